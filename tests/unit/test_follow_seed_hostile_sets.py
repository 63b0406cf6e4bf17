"""A seeded follower (live/seed.py) against odd sets of members and writers: a missing or
compressed base, members swapped for a FIFO, a device or another file during the build, a
generation deleted or renamed out of the listing, a real writer rotating through the first
poll, and stop() at every point of the seeding.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool
from seed_hostile_runs import (
    append,
    drain,
    follower,
    ids,
    make_run,
    open_in,
    read_ids,
    rec,
    recs,
    rows,
    seed_every_run,
)
from test_follow_writer import WRITER

from tracetui.live import seed
from tracetui.live.follow import Follower
from tracetui.store import fastindex
from tracetui.store.runset import open_path, sidecar_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="seeding needs the C scanner")


@pytest.fixture(autouse=True)
def _seed_every_run(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Seed runs of any size, the cache off unless a test turns it on; each seeding's outcome."""
    return seed_every_run(monkeypatch)


# ------------------------------------------------------------------ odd sets of members
def test_a_run_whose_base_is_missing_reads_on_once_it_appears(
    tmp_path: Path, _seed_every_run: list[bool]
) -> None:
    """Only rotated members (the base deleted, not yet written again); an empty one too."""
    base = make_run(tmp_path / "run")
    base.unlink()
    (tmp_path / "run" / "run.jsonl.3").write_bytes(b"")
    got = []
    for seeded in (True, False):
        f = Follower(open_path(str(tmp_path / "run"))[0], seed=seeded)
        drain(f)
        got.append(rows(f))
        f.stop()
    assert _seed_every_run == [True]
    assert got[0] == got[1]
    assert [w for w, _, _ in got[0]] == ids(0, 20)
    f = Follower(open_path(str(tmp_path / "run"))[0], seed=True)
    drain(f)
    base.write_bytes(recs(20, 2))
    drain(f)
    assert read_ids(f) == ids(0, 22)
    f.stop()


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _other_file(path: Path) -> None:
    """A link to another run's file, planted under the member's name."""
    other = path.parent.parent / "other.jsonl"
    other.write_bytes(recs(500, 10))
    path.unlink()
    path.symlink_to(other)


PLANTED: dict[str, tuple[Callable[[Path], None], str, list[str]]] = {
    # what replaces a member once the seeding opened it, which member, and the rows read then:
    # the files the seeding opened, read through its handles (as by a follower that opened
    # them at that moment), then what the follower finds under the names afterwards
    "fifo": (_fifo, "run.jsonl.1", ids(0, 30)),
    "dev-zero": (_zero, "run.jsonl.1", ids(0, 30)),
    "link-to-another-file": (
        _other_file,
        "run.jsonl.1",
        [*ids(0, 20), *ids(500, 10), *ids(20, 10)],  # the link: a generation new to it
    ),
    "fifo-base": (_fifo, "run.jsonl", ids(0, 30)),
    "dev-zero-base": (_zero, "run.jsonl", ids(0, 30)),
}


@pytest.mark.parametrize(("plant", "name", "want"), list(PLANTED.values()), ids=list(PLANTED))
def test_a_member_swapped_during_the_build_is_never_trusted(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    plant: Callable[[Path], None],
    name: str,
    want: list[str],
    _seed_every_run: list[bool],
) -> None:
    """A member replaced by a FIFO, a device or a link to another file after the seeding
    opened it: the seeding falls back (nothing blocks, nothing endless is read), no row of the
    seeded index survives, the follower reads the files the seeding opened, and says what it
    does not read. A base deleted that way is gone from disk: its rows say so when read."""
    base = make_run(tmp_path / "run")
    real = seed.build_index

    def building(*args: Any, **kw: Any) -> Any:
        plant(tmp_path / "run" / name)
        return real(*args, **kw)

    monkeypatch.setattr(seed, "build_index", building)
    run = open_path(str(base))[0]
    f = Follower(run, seed=True)
    drain(f)
    assert _seed_every_run == [False]
    assert [cid for cid in f.index.ids if cid is not None] == want
    if name == "run.jsonl":
        # The base's unfinished line is read as it is once its file is gone (a bad line), and
        # its rows are in a file no longer on disk; the device under its name is refused.
        read = [what for what, _, _ in rows(f)][20:]
        assert ["member is gone" in w for w in read] == [True] * 10 + [False]
        assert read[-1].startswith("truncated line")
        assert any(name in n and "not followed" in n for n in f.notes)
    else:
        assert read_ids(f) == want
        assert not f.index.bad
    f.stop()


def test_a_generation_deleted_during_the_build_is_read_through_the_seedings_handle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _seed_every_run: list[bool]
) -> None:
    """The oldest generation deleted while the build runs (``rotate N`` of logrotate): the
    seeding falls back and the follower reads it through the handle the seeding opened (it
    read every row of it before the file went)."""
    base = make_run(tmp_path / "run")
    real = seed.build_index

    def building(*args: Any, **kw: Any) -> Any:
        os.unlink(f"{base}.2.gz")
        return real(*args, **kw)

    monkeypatch.setattr(seed, "build_index", building)
    run = open_path(str(base))[0]
    f = Follower(run, seed=True)
    drain(f)
    assert _seed_every_run == [False]
    assert read_ids(f) == ids(0, 30)  # its rows from the follower's decompressed copy
    assert not [n for n in run.notes + f.notes if "run.jsonl.2.gz" in n]  # nothing was lost
    f.stop()


# ------------------------------------------------------------------ a real writer at the start
@pytest.mark.parametrize("start", ["first-write", "first-rotation"])
@pytest.mark.parametrize(
    ("mode", "seed_no"),
    [("rename", 11), ("copytruncate", 12), ("delete", 13)],
    ids=["rename-rotation", "copy-and-truncate", "delete-and-recreate"],
)
def test_a_writer_rotating_through_the_first_poll(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    seed_no: int,
    start: str,
    _seed_every_run: list[bool],
) -> None:
    """The writer of test_follow_writer (records cut into partial writes, a rotation every six)
    is running when the seeding builds: every record once, none of them a bad row. (It keeps
    more generations than it makes: a generation deleted during the build is another case.)"""
    base = tmp_path / "run.jsonl"
    base.write_bytes(recs(0, 200))
    size = base.stat().st_size
    real = seed.build_index
    writer: list[subprocess.Popen[bytes]] = []

    def under_way() -> bool:
        if os.path.exists(f"{base}.1"):
            return True
        try:
            return start == "first-write" and base.stat().st_size != size
        except OSError:
            return True  # deleted by a rotation: under way

    def building(*args: Any, **kw: Any) -> Any:
        # The members are open; the writer has begun before the build reads them.
        while writer[0].poll() is None and not under_way():
            time.sleep(0.0005)
        return real(*args, **kw)

    monkeypatch.setattr(seed, "build_index", building)
    f = Follower(open_path(str(base))[0], seed=True)
    count = 150
    argv = [sys.executable, "-c", WRITER, str(base), mode, str(count), "6", "40", str(seed_no)]
    writer.append(subprocess.Popen(argv))
    try:
        while writer[0].poll() is None:
            f.poll_once()
            time.sleep(0.0005)
        assert writer[0].wait() == 0
        drain(f)
    finally:
        if writer[0].poll() is None:
            writer[0].kill()
        f.stop()
    assert not f.index.bad
    got = [str(i) for i in f.index.ids]
    truth = [*ids(0, 200), *(f"w{i:06d}" for i in range(count))]
    if _seed_every_run == [True]:
        assert got == truth  # seeded, then rotated: read on in order
    else:
        assert sorted(got) == sorted(truth)  # a rotation at the start may be read otherwise
        written = [g for g in got if g.startswith("w")]
        assert written == sorted(written)


# ------------------------------------------------------------------ stopping
@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
@pytest.mark.parametrize("when", ["during-build", "after-build", "after-check"])
def test_stopped_during_the_seeding_leaves_no_file_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """stop() from another thread (the viewer opening another run) while the first poll
    seeds: the poll returns, reads nothing more, and once the index is closed nothing of the
    run is held open."""
    base = make_run(tmp_path / "run")
    Path(sidecar_path(str(base))).write_bytes(rec(900))
    f = Follower(open_path(str(base))[0], seed=True)
    if when == "after-check":
        check = seed._check

        def checking(*args: Any, **kw: Any) -> Any:
            got = check(*args, **kw)
            f.stop()
            return got

        monkeypatch.setattr(seed, "_check", checking)
    else:
        real = seed.build_index

        def building(*args: Any, **kw: Any) -> Any:
            if when == "during-build":
                f.stop()
            got = real(*args, **kw)
            f.stop()
            return got

        monkeypatch.setattr(seed, "build_index", building)
    assert f.poll_once() == 0
    assert not f.more
    f.index.close()  # (stop() is not called again: the viewer calls it once)
    assert open_in(tmp_path / "run") == []


# ------------------------------------------------------------------ a compressed base
@pytest.mark.parametrize("rotated", [False, True], ids=["alone", "with-rotated-members"])
def test_a_compressed_base_reads_back(
    tmp_path: Path, rotated: bool, _seed_every_run: list[bool]
) -> None:
    """A run opened as ``B.gz`` (an archived run, followed as the viewer does by default): the
    rotation scan lists numbered members only, so the seeded ``B.gz`` was taken for gone and
    every row of it read back as "cannot read … (rotated away?)", till seed.py marked it as
    the follower's own catch-up leaves it."""
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.jsonl.gz").write_bytes(gzip.compress(recs(20, 10)))
    if rotated:
        (folder / "run.jsonl.1").write_bytes(recs(10, 10))
        with gzip.open(folder / "run.jsonl.2.gz", "wb") as fh:
            fh.write(recs(0, 10))
    got = []
    for seeded in (True, False):
        f = Follower(open_path(str(folder / "run.jsonl.gz"))[0], seed=seeded)
        drain(f)
        got.append(rows(f))
        assert read_ids(f) == (ids(0, 30) if rotated else ids(20, 10))
        f.stop()
    assert _seed_every_run == [True]
    assert got[0] == got[1]


def test_a_rename_between_the_listing_and_the_seeding(
    tmp_path: Path, _seed_every_run: list[bool]
) -> None:
    """Plain members only: the names listed now hold other files (B.1 the old base), each
    opened as found, and the generation renamed out of the listing (B.2) is on disk beside
    them. Seeded, B.2's rows came after the new base's (the first scan found it after the
    build had read the base), till seed.py left such a run to the follower: the same rows, in
    the same order, as a follower reading the run itself from that listing."""
    got = []
    for seeded in (True, False):
        folder = tmp_path / f"run-{seeded}"
        folder.mkdir()
        base = folder / "run.jsonl"
        (folder / "run.jsonl.1").write_bytes(recs(0, 10))
        base.write_bytes(recs(10, 10))
        run = open_path(str(base))[0]
        os.rename(f"{base}.1", f"{base}.2")
        os.rename(base, f"{base}.1")
        base.write_bytes(recs(20, 3))
        f = Follower(run, seed=seeded)
        drain(f)
        append(base, recs(23, 1))
        drain(f)
        got.append(rows(f))
        assert sorted(read_ids(f)) == ids(0, 24)
        f.stop()
    assert _seed_every_run == [False]
    assert got[0] == got[1]
    assert [w for w, _, _ in got[0]][-4:] == ids(20, 4)  # the base's rows last


def test_an_unfinished_overlong_last_line_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _seed_every_run: list[bool]
) -> None:
    """The base ends in a line longer than the scanner holds (it hands it to the line reader),
    unfinished: left to the follower like any other, then read once finished."""
    monkeypatch.setattr(fastindex, "MAX_LINE", 4096)
    long = encode_line(tool("c0030", pad="x" * 12_000))
    base = make_run(tmp_path / "run", recs(20, 10) + long[:9000])
    seeded, plain = follower(base), follower(base, seeded=False)
    assert _seed_every_run == [True]
    assert rows(seeded) == rows(plain)
    assert not seeded.index.bad
    append(base, long[9000:] + recs(31, 1))
    drain(seeded)
    drain(plain)
    assert rows(seeded) == rows(plain)
    assert read_ids(seeded) == ids(0, 32)
    seeded.stop()
    plain.stop()


def test_a_compressed_twin_beside_its_member_is_seeded(
    tmp_path: Path, _seed_every_run: list[bool]
) -> None:
    """``B.1.gz`` beside ``B.1`` (a compressor mid-way, or one that left it): the listing reads
    the plain one; the seeding still takes the run, and no row is read twice."""
    base = make_run(tmp_path / "run")
    with gzip.open(f"{base}.1.gz", "wb") as fh:
        fh.write(recs(10, 10))
    f = follower(base)
    assert _seed_every_run == [True]
    append(base, rec(30)[25:])
    drain(f)
    assert read_ids(f) == ids(0, 31)
    f.stop()
