"""A follower seeded by ``build_index`` (live/seed.py) against one that reads the run itself.

The seeded follower must end up exactly where a follower that read every byte would: the same
index, row by row, and the same reading afterwards (appends, a partial line finished, rotations
by rename, copy-and-truncate and gzip). A file that changes while the build runs must make it
fall back to reading the run itself, never keep rows of another file. And the cache must never
keep a base indexed short of its end as if it were the whole file.
"""

from __future__ import annotations

import gzip
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cache_runs import OLD, private_cache, state
from records import encode_line, tool
from seed_hostile_runs import open_in
from seed_spy import seed_every_run

from tracetui.live import seed
from tracetui.live.follow import Follower
from tracetui.store import build, fastindex, gz
from tracetui.store.reader import BadLine
from tracetui.store.runset import open_path, sidecar_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="seeding needs the C scanner")


def rec(i: int, **fields: Any) -> bytes:
    line: bytes = encode_line(tool(f"c{i:04d}", exit_code=1 if i % 4 == 0 else 0, **fields))
    return line


def recs(first: int, n: int) -> bytes:
    return b"".join(rec(i) for i in range(first, first + n))


@pytest.fixture(autouse=True)
def _seed_every_run(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Seed runs of any size, and note each seeding's outcome (True: the index was taken)."""
    return seed_every_run(monkeypatch)


def make_run(folder: Path, *, partial: bool = True, sidecar: bool = True) -> Path:
    """``B.2.gz`` (a bad line), ``B.1`` (a blank line, a retry), ``B`` (ends mid-record), and
    a re-runs file."""
    folder.mkdir()
    base = folder / "run.jsonl"
    with gzip.open(folder / "run.jsonl.2.gz", "wb") as fh:
        fh.write(recs(0, 10) + b"not json\n" + recs(10, 5))
    (folder / "run.jsonl.1").write_bytes(
        recs(15, 5) + b"\n" + rec(20, parent_command_id="c0016") + recs(21, 9)
    )
    base.write_bytes(recs(30, 10) + (rec(40)[:17] if partial else b""))
    if sidecar:
        Path(sidecar_path(str(base))).write_bytes(rec(900, parent_command_id="c0031"))
    return base


def follow(base: Path, *, seeded: bool, **kw: Any) -> Follower:
    f = Follower(open_path(str(base))[0], seed=seeded, **kw)
    drain(f)
    return f


def _facts(f: Follower) -> tuple[Any, ...]:
    """The index's state but its marks: a line read alone is marked "may need anything" (the
    marks only ever spare lint a read), the scanner's marks are exact."""
    got = state(f.index)
    return got[1:8] + got[9:]


def drain(f: Follower) -> None:
    while f.poll_once() or f.more:
        pass


def read_back(f: Follower) -> list[str]:
    """Every row of the index as read back from its file now: its id, or its bad line's reason."""
    out = []
    for r in range(len(f.index)):
        got = f.index.get(r)
        bad = isinstance(got, BadLine)
        out.append(got.reason.split(" at ")[0] if bad else str(got.command_id))  # type: ignore[union-attr]
    return out


def expected(ids: list[int], bad_at: int = 10) -> list[str]:
    out = [f"c{i:04d}" for i in ids]
    out.insert(bad_at, "malformed JSON")
    return out


# ------------------------------------------------------------------ the first read
def test_a_seeded_catch_up_is_the_index_of_reading_from_the_start(
    tmp_path: Path, _seed_every_run: list[bool]
) -> None:
    base = make_run(tmp_path / "run")
    seeded, plain = follow(base, seeded=True), follow(base, seeded=False)
    assert _seed_every_run == [True]
    assert _facts(seeded) == _facts(plain)
    # Members in the same order (the gzip one read through a decompressed copy in both).
    assert [im.member.path for im in seeded.index.members] == [
        im.member.path for im in plain.index.members
    ]
    assert read_back(seeded) == [*expected(list(range(40))), "c0900"]
    seeded.stop()
    plain.stop()


def test_the_unfinished_line_is_left_to_the_follower(tmp_path: Path) -> None:
    base = make_run(tmp_path / "run", sidecar=False)
    f = follow(base, seeded=True)
    assert read_back(f) == expected(list(range(40)))
    with open(base, "ab") as fh:
        fh.write(rec(40)[17:] + rec(41))
    drain(f)
    assert read_back(f) == expected(list(range(42)))
    assert set(f.index.bad) == {10}  # the finished line is a span, not a bad line
    f.stop()


def _rename(base: Path) -> None:
    os.rename(f"{base}.2.gz", f"{base}.3.gz")
    os.rename(f"{base}.1", f"{base}.2")
    os.rename(base, f"{base}.1")
    base.write_bytes(recs(41, 3))


def _copy_truncate(base: Path) -> None:
    os.rename(f"{base}.2.gz", f"{base}.3.gz")
    os.rename(f"{base}.1", f"{base}.2")
    shutil.copyfile(base, f"{base}.1")
    with open(base, "r+b") as fh:
        fh.truncate(0)
    with open(base, "ab") as fh:
        fh.write(recs(41, 3))


def _compress(base: Path) -> None:
    _rename(base)
    with open(f"{base}.2", "rb") as src, gzip.open(f"{base}.2.gz", "wb") as dst:
        dst.write(src.read())
    os.unlink(f"{base}.2")


@pytest.mark.parametrize(
    "rotate", [_rename, _copy_truncate, _compress], ids=["rename", "copy-truncate", "gzip"]
)
def test_reading_goes_on_across_rotations(tmp_path: Path, rotate: Callable[[Path], None]) -> None:
    base = make_run(tmp_path / "run", sidecar=False)
    f = follow(base, seeded=True)
    with open(base, "ab") as fh:
        fh.write(rec(40)[17:])
    rotate(base)
    drain(f)
    assert read_back(f) == expected(list(range(44)))
    with open(base, "ab") as fh:
        fh.write(recs(44, 2))
    drain(f)
    assert read_back(f) == expected(list(range(46)))
    f.stop()


def test_a_sidecar_written_later_is_read_on(tmp_path: Path) -> None:
    base = make_run(tmp_path / "run")
    f = follow(base, seeded=True)
    with open(sidecar_path(str(base)), "ab") as fh:
        fh.write(rec(901))
    drain(f)
    assert read_back(f)[-2:] == ["c0900", "c0901"]
    f.stop()


# ------------------------------------------------------------------ doubt: read it all instead
def _rename_base(base: Path) -> None:
    os.rename(base, f"{base}.9")
    base.write_bytes(recs(41, 2))


def _rewrite_base(base: Path) -> None:
    with open(base, "r+b") as fh:  # copy-and-truncate, then a new first record
        fh.truncate(0)
        fh.write(recs(500, 12))


def _shrink_base(base: Path) -> None:
    with open(base, "r+b") as fh:
        fh.truncate(100)


def _replace_gz(base: Path) -> None:
    with gzip.open(f"{base}.2.gz", "ab") as fh:
        fh.write(rec(700))


@pytest.mark.parametrize(
    "change",
    [_rename_base, _rewrite_base, _shrink_base, _replace_gz],
    ids=["base-renamed", "base-rewritten", "base-shrunk", "gz-member-grew"],
)
def test_a_file_changed_during_the_build_is_read_afresh(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    change: Callable[[Path], None],
    _seed_every_run: list[bool],
) -> None:
    base = make_run(tmp_path / "run", sidecar=False)
    real = build.build_index

    def changing(*args: Any, **kw: Any) -> Any:
        got = real(*args, **kw)
        change(base)
        return got

    monkeypatch.setattr(seed, "build_index", changing)
    f = follow(base, seeded=True)
    assert _seed_every_run == [False]
    fresh = Follower(open_path(str(base))[0])  # what reading the run now gives
    drain(fresh)
    # Every row once (a follower that found a rotation at its start may order it otherwise).
    assert sorted(read_back(f)) == sorted(read_back(fresh))
    assert f.notes == fresh.notes
    f.stop()
    fresh.stop()


@pytest.mark.parametrize("when", ["listed", "opened"])
def test_a_member_that_is_a_device_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str, _seed_every_run: list[bool]
) -> None:
    """Planted before the run is listed, it is no member; between the listing and the seeding's
    open, the seeding leaves the run to the follower, which says so."""
    base = make_run(tmp_path / "run", sidecar=False)
    planted = tmp_path / "run" / "run.jsonl.1"

    def plant() -> None:
        planted.unlink()
        planted.symlink_to("/dev/zero")

    if when == "listed":
        plant()
        run = open_path(str(base))[0]
    else:
        run = open_path(str(base))[0]
        plant()
    f = Follower(run, seed=True)
    drain(f)
    assert _seed_every_run == [when == "listed"]
    assert any("run.jsonl.1" in note for note in run.notes + f.notes)
    assert read_back(f) == expected([*range(15), *range(30, 40)])
    f.stop()


def test_stopped_during_the_build_reads_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = make_run(tmp_path / "run")
    f = Follower(open_path(str(base))[0], seed=True)

    def cancelled(*args: Any, **kw: Any) -> Any:
        f.stop()  # the user opened another run meanwhile
        raise gz.Cancelled

    monkeypatch.setattr(seed, "build_index", cancelled)
    assert f.poll_once() == 0
    assert len(f.index) == 0


def test_a_small_run_is_read_by_the_follower(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _seed_every_run: list[bool]
) -> None:
    monkeypatch.setattr(seed, "SEED_BYTES", 1 << 20)
    base = make_run(tmp_path / "run")
    f = follow(base, seeded=True)
    assert _seed_every_run == [False]
    assert read_back(f) == [*expected(list(range(40))), "c0900"]
    f.stop()


# ------------------------------------------------------------------ the cache
def test_the_cache_never_takes_a_short_base_for_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    private_cache(tmp_path, monkeypatch)
    base = make_run(tmp_path / "run", sidecar=False)
    for path in base.parent.iterdir():
        os.utime(path, ns=(OLD, OLD))  # not racy: a member's cached rows would be trusted
    run = open_path(str(base))[0]
    short = build.build_index(run, for_follower=True)
    assert len(short) == 40 + 1  # the bad line counts, the unfinished one does not
    for _ in range(2):  # a frozen build, then one from whatever the cache kept
        whole = build.build_index(open_path(str(base))[0])
        assert len(whole) == len(short) + 1
        assert set(whole.bad) == {10, len(short)}
    again = build.build_index(open_path(str(base))[0], for_follower=True)
    assert state(again)[1:] == state(short)[1:]


def test_out_of_descriptors_while_checking_falls_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _seed_every_run: list[bool]
) -> None:
    """The check's last step (a descriptor per member) failing leaves the run, base included,
    to the follower: nothing lost, nothing left open."""
    base = make_run(tmp_path / "run", sidecar=False)

    real = seed._check

    def checking(*args: Any, **kw: Any) -> Any:
        def no_dup(fd: int) -> int:
            raise OSError(24, "Too many open files")

        with monkeypatch.context() as m:
            m.setattr(seed.os, "dup", no_dup)  # during the check only
            return real(*args, **kw)

    monkeypatch.setattr(seed, "_check", checking)
    f = Follower(open_path(str(base))[0], seed=True)
    drain(f)
    assert _seed_every_run == [False]
    assert read_back(f) == expected(list(range(40)))
    f.stop()
    f.index.close()
    if os.path.isdir("/proc/self/fd"):
        assert open_in(tmp_path / "run") == []
