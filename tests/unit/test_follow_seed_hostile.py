"""A seeded follower (live/seed.py) against hostile runs: how the base ends, a base scanned
in two pieces, and files changed at every point of a seeding.

Every case compares with the truth: each record written, once, read back through
``index.get(row)`` as itself from the file and line the index names; where a follower that
meets a rotation at its start may order it otherwise, the same multiset. Files change after the
run is listed, before the build, during its scan, after it and after its check, with the cache
off and warm (test_follow_seed_hostile_cache.py, _sets.py and _gaps.py have the rest).
"""

from __future__ import annotations

import gzip
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cache_runs import cold, private_cache, state
from seed_hostile_runs import (
    append,
    drain,
    follower,
    ids,
    make_run,
    old_mtimes,
    plain_build,
    read_ids,
    rec,
    recs,
    rows,
    seed_every_run,
)

from tracetui.live import seed
from tracetui.live.follow import Follower
from tracetui.store import build, fastindex
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="seeding needs the C scanner")

SEED_BYTES = seed.SEED_BYTES
"""The real threshold (the fixture lowers it to 0)."""


@pytest.fixture(autouse=True)
def _seed_every_run(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Seed runs of any size, the cache off unless a test turns it on; each seeding's outcome."""
    return seed_every_run(monkeypatch)


# ------------------------------------------------------------------ how the base ends
ENDS: dict[str, tuple[bytes, bytes]] = {
    # base as found, then what the writer appends
    "blank-lines": (recs(20, 3) + b"\n\n", recs(23, 2)),
    "whitespace-lines": (recs(20, 3) + b"  \n \t\n", recs(23, 2)),
    "crlf-blank-lines": (recs(20, 3) + b"\r\n\r\n", recs(23, 2)),
    "crlf-records": (recs(20, 3).replace(b"\n", b"\r\n"), recs(23, 2).replace(b"\n", b"\r\n")),
    "partial-cr": (recs(20, 3) + rec(23)[:-1] + b"\r", b"\n" + recs(24, 1)),
    "partial-whitespace": (recs(20, 3) + b"   ", b"\n" + recs(23, 2)),
    "whole-record-no-newline": (recs(20, 3) + rec(23)[:-1], b"\n" + recs(24, 1)),
    "only-a-partial-line": (rec(20)[:10], rec(20)[10:] + recs(21, 2)),
    "empty": (b"", recs(20, 2)),
    "partial-then-blank": (recs(20, 2) + rec(22)[:30], rec(22)[30:] + b"\n\n" + recs(23, 1)),
    "bad-line-last": (recs(20, 2) + b"{nope\n", recs(22, 1)),
}


@pytest.mark.parametrize(("found", "then"), list(ENDS.values()), ids=list(ENDS))
def test_the_base_reads_on_as_if_read_from_its_start(
    tmp_path: Path, found: bytes, then: bytes, _seed_every_run: list[bool]
) -> None:
    """Same rows, files and line numbers as a follower that read every byte, before and after
    the writer goes on (a blank line or a partial one at the end never shifts a line number
    nor becomes a bad row)."""
    base = make_run(tmp_path / "run", found)
    seeded, plain = follower(base), follower(base, seeded=False)
    assert _seed_every_run == [True]
    assert rows(seeded) == rows(plain)
    append(base, then)
    drain(seeded)
    drain(plain)
    assert rows(seeded) == rows(plain)
    assert len(seeded.index.bad) == (1 if b"{nope" in found else 0)
    seeded.stop()
    plain.stop()


# ------------------------------------------------------------------ a member cut in two pieces
def _lines_around(n: int) -> bytes:
    """Records with blank lines, CRLF and a bad line spread through them."""
    out = b""
    for i in range(n):
        out += rec(100 + i)
        if i % 7 == 3:
            out += b"\n"
        if i % 11 == 5:
            out += b"\r\n"
        if i == n // 2:
            out += b"{bad\n"
    return out


@pytest.mark.parametrize("piece", [512, 2048, 9000], ids=["tiny", "small", "near-half"])
def test_a_base_scanned_in_two_pieces_reads_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, piece: int, _seed_every_run: list[bool]
) -> None:
    monkeypatch.setattr(build, "PIECE_BYTES", piece)
    base = make_run(tmp_path / "run", _lines_around(80) + rec(300)[:40])
    seeded, plain = follower(base), follower(base, seeded=False)
    assert _seed_every_run == [True]
    assert rows(seeded) == rows(plain)
    append(base, rec(300)[40:] + b"\n" + recs(301, 2))
    drain(seeded)
    drain(plain)
    assert rows(seeded) == rows(plain)
    assert [w for w, _, _ in rows(seeded)][-3:] == ["c0300", "c0301", "c0302"]
    seeded.stop()
    plain.stop()


# ------------------------------------------------------------------ files change around the build
def rename_rotation(base: Path) -> None:
    """B.2.gz → B.3.gz, B.1 → B.2, B → B.1 (its partial line finished first), a new B."""
    append(base, rec(30)[25:])
    os.rename(f"{base}.2.gz", f"{base}.3.gz")
    os.rename(f"{base}.1", f"{base}.2")
    os.rename(base, f"{base}.1")
    base.write_bytes(recs(31, 2))


def copy_truncate(base: Path) -> None:
    append(base, rec(30)[25:])
    os.rename(f"{base}.2.gz", f"{base}.3.gz")
    os.rename(f"{base}.1", f"{base}.2")
    shutil.copyfile(base, f"{base}.1")
    with open(base, "r+b") as fh:
        fh.truncate(0)
    append(base, recs(31, 2))


def delete_recreate(base: Path) -> None:
    append(base, rec(30)[25:])
    os.rename(f"{base}.2.gz", f"{base}.3.gz")
    os.rename(f"{base}.1", f"{base}.2")
    shutil.copyfile(base, f"{base}.1")
    os.unlink(base)
    base.write_bytes(recs(31, 2))


def compress_rotated(base: Path) -> None:
    """B.1 compressed to B.1.gz, the plain one removed."""
    with open(f"{base}.1", "rb") as src, gzip.open(f"{base}.1.gz", "wb") as dst:
        dst.write(src.read())
    os.unlink(f"{base}.1")
    append(base, rec(30)[25:] + recs(31, 2))


def base_finished(base: Path) -> None:
    append(base, rec(30)[25:] + recs(31, 2))


def base_grew_partial(base: Path) -> None:
    """More of the unfinished line, still unfinished; finished by the writer later."""
    append(base, rec(30)[25:40])


BASE_ONLY = (base_finished, base_grew_partial)
"""Changes a seeding reads through: the base only grew."""

CHANGES: dict[str, tuple[Callable[[Path], None], list[str]]] = {
    # the change, and the records on disk once the writer finished (those of a dropped file
    # included when they were read before it went)
    "rename": (rename_rotation, ids(0, 33)),
    "copy-truncate": (copy_truncate, ids(0, 33)),
    "delete-recreate": (delete_recreate, ids(0, 33)),
    "gzip-rotated": (compress_rotated, ids(0, 33)),
    "base-finished": (base_finished, ids(0, 33)),
    "base-grew-partial": (base_grew_partial, ids(0, 31)),
}


def _finish(base: Path) -> None:
    """The writer finishes whatever line it left half-written, and writes one more."""
    data = base.read_bytes()
    if data and not data.endswith(b"\n"):
        append(base, rec(30)[40:])
    append(base, rec(99))


def _when(
    point: str, change: Callable[[], None], monkeypatch: pytest.MonkeyPatch
) -> Callable[[], None]:
    """Arrange for ``change`` at ``point`` of the seeding; returns what runs it at "start"."""
    once: list[bool] = []

    def fire() -> None:
        if not once:
            once.append(True)
            change()

    if point == "before-build" or point == "after-build":
        real = seed.build_index

        def building(*args: Any, **kw: Any) -> Any:
            if point == "before-build":
                fire()
            got = real(*args, **kw)
            fire()
            return got

        monkeypatch.setattr(seed, "build_index", building)
    elif point == "mid-scan":
        scan = fastindex.scan_member

        def scanning(*args: Any, **kw: Any) -> Iterator[Any]:
            for item in scan(*args, **kw):
                yield item
                fire()

        monkeypatch.setattr(fastindex, "CHUNK", 1024)  # the scan reads a member in steps
        monkeypatch.setattr(fastindex, "scan_member", scanning)
    elif point == "after-check":
        check = seed._check

        def checking(*args: Any, **kw: Any) -> Any:
            got = check(*args, **kw)
            fire()
            return got

        monkeypatch.setattr(seed, "_check", checking)
    return fire


@pytest.mark.parametrize(
    "point", ["listed", "before-build", "mid-scan", "after-build", "after-check"]
)
@pytest.mark.parametrize(("change", "truth"), list(CHANGES.values()), ids=list(CHANGES))
@pytest.mark.parametrize("warm", [False, True], ids=["no-cache", "warm-cache"])
def test_every_record_once_whenever_files_change(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    point: str,
    change: Callable[[Path], None],
    truth: list[str],
    warm: bool,
    _seed_every_run: list[bool],
) -> None:
    """Warm: a plain build kept the run's rows first, and the builds after the follower's
    (from what it kept) must give what a build without the cache gives."""
    base = make_run(tmp_path / "run")
    if warm:
        private_cache(tmp_path, monkeypatch)
        old_mtimes(base.parent)
        plain_build(base)
    run = open_path(str(base))[0]
    with monkeypatch.context() as m:
        fire = _when(point, lambda: change(base), m)
        if point == "listed":
            fire()  # after the run was listed, before the seeding opened its members
        f = Follower(run, seed=True)
        drain(f)
    # Taken only when nothing it holds changed before the check.
    assert _seed_every_run == [point == "after-check" or change in BASE_ONLY]
    fire()  # (when the point was never reached: a seeding that fell back early)
    _finish(base)
    drain(f)
    got = read_ids(f)
    assert sorted(got) == sorted([*truth, "c0099"]), (point, got)
    assert not f.index.bad  # no partial line ever taken for a bad one
    f.stop()
    if warm:
        assert state(build_index(open_path(str(base))[0])) == state(cold(base))


def test_a_big_base_at_the_real_sizes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _seed_every_run: list[bool]
) -> None:
    """Past SEED_BYTES and cut into two pieces at the real PIECE_BYTES, ending mid-record: the
    seeded index is the one a follower reading every byte builds, column by column, and both
    read on alike."""
    monkeypatch.setattr(seed, "SEED_BYTES", SEED_BYTES)
    scan = fastindex.scan_member
    cuts: list[int] = []

    def spy(*args: Any, end: int | None = None, **kw: Any) -> Iterator[Any]:
        if end is not None:
            cuts.append(end)
        return scan(*args, end=end, **kw)

    monkeypatch.setattr(fastindex, "scan_member", spy)
    line = rec(0)
    n = (2 * build.PIECE_BYTES) // len(line) + 2000
    body = b"".join(line.replace(b"c0000", b"%05d" % i, 1) for i in range(n))
    base = make_run(tmp_path / "run", body + rec(30)[:25])
    assert base.stat().st_size > max(seed.SEED_BYTES, 2 * build.PIECE_BYTES)
    seeded, plain = follower(base), follower(base, seeded=False)
    assert _seed_every_run == [True]
    assert len(cuts) == 1  # the base scanned as two pieces

    def columns(f: Follower) -> tuple[Any, ...]:
        ix = f.index
        names = [im.member.path for im in ix.members]
        return (
            [names[m] for m in ix.member_no],
            ix.offset.tobytes(),
            ix.line_no.tobytes(),
            ix.ids,
            ix.bad,
        )

    assert columns(seeded) == columns(plain)
    append(base, rec(30)[25:] + rec(31))
    drain(seeded)
    drain(plain)
    assert columns(seeded) == columns(plain)
    assert [str(i) for i in seeded.index.ids[-2:]] == ["c0030", "c0031"]
    seeded.stop()
    plain.stop()


def _rename_unfinished(base: Path) -> None:
    os.rename(f"{base}.2.gz", f"{base}.3.gz")
    os.rename(f"{base}.1", f"{base}.2")
    os.rename(base, f"{base}.1")
    base.write_bytes(recs(31, 2))


def _copy_truncate_unfinished(base: Path) -> None:
    os.rename(f"{base}.2.gz", f"{base}.3.gz")
    os.rename(f"{base}.1", f"{base}.2")
    shutil.copyfile(base, f"{base}.1")
    with open(base, "r+b") as fh:
        fh.truncate(0)
    append(base, recs(31, 2))


def _delete_unfinished(base: Path) -> None:
    os.rename(f"{base}.2.gz", f"{base}.3.gz")
    os.rename(f"{base}.1", f"{base}.2")
    shutil.copyfile(base, f"{base}.1")
    os.unlink(base)
    base.write_bytes(recs(31, 2))


@pytest.mark.parametrize(
    "rotate",
    [_rename_unfinished, _copy_truncate_unfinished, _delete_unfinished],
    ids=["rename", "copy-truncate", "delete-recreate"],
)
def test_an_unfinished_base_rotated_away_is_read_as_it_is(
    tmp_path: Path, rotate: Callable[[Path], None], _seed_every_run: list[bool]
) -> None:
    """The writer rotated the base away mid-record (it died, say): the line can no longer
    grow, and is read once, as the truncated line it is, from the file it is in by then."""
    got = []
    for seeded in (True, False):
        base = make_run(tmp_path / f"run-{seeded}")
        f = follower(base, seeded=seeded)
        rotate(base)
        drain(f)
        got.append(rows(f))
        f.stop()
    assert _seed_every_run == [True]
    assert got[0] == got[1]
    reasons = [w for w, _, _ in got[0]]
    assert reasons == [*ids(0, 30), reasons[30], *ids(31, 2)]
    assert reasons[30].startswith("truncated line")
    assert got[0][30][1] == "run.jsonl.1"
