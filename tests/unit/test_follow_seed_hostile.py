"""A seeded follower (live/seed.py) against hostile runs and writers.

Every case compares with the truth: each record written, once, read back through
``index.get(row)`` as itself from the file and line the index names; where a follower that
meets a rotation at its start may order it otherwise, the same multiset. Files change at every
point of a seeding (before the build, during its scan, after it, after the check), the base ends
in every odd way, big members are cut into pieces, the persistent cache is warm from earlier
builds, and a real writer rotates while the first poll runs.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cache_runs import OLD, cold, private_cache, state
from records import encode_line, tool
from test_follow_writer import WRITER

from tracetui.live import seed
from tracetui.live.follow import Follower
from tracetui.store import build, fastindex
from tracetui.store.build import build_index
from tracetui.store.reader import BadLine
from tracetui.store.runset import open_path, sidecar_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="seeding needs the C scanner")


def rec(i: int) -> bytes:
    line: bytes = encode_line(tool(f"c{i:04d}", exit_code=1 if i % 5 == 0 else 0))
    return line


def recs(first: int, n: int) -> bytes:
    return b"".join(rec(i) for i in range(first, first + n))


def ids(first: int, n: int) -> list[str]:
    return [f"c{i:04d}" for i in range(first, first + n)]


@pytest.fixture(autouse=True)
def _seed_every_run(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Seed runs of any size, the cache off unless a test turns it on; each seeding's outcome."""
    monkeypatch.setattr(seed, "SEED_BYTES", 0)
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    outcomes: list[bool] = []
    real = seed.seeded

    def spy(*args: Any, **kw: Any) -> seed.Seeded | None:
        got = real(*args, **kw)
        outcomes.append(got is not None)
        return got

    monkeypatch.setattr("tracetui.live.follow.seeded", spy)
    return outcomes


def make_run(folder: Path, base_data: bytes | None = None) -> Path:
    """``B.2.gz`` (c0000-c0009), ``B.1`` (c0010-c0019), ``B`` (c0020-c0029, then half of c0030)."""
    folder.mkdir()
    base = folder / "run.jsonl"
    with gzip.open(folder / "run.jsonl.2.gz", "wb") as fh:
        fh.write(recs(0, 10))
    (folder / "run.jsonl.1").write_bytes(recs(10, 10))
    base.write_bytes(recs(20, 10) + rec(30)[:25] if base_data is None else base_data)
    return base


def drain(f: Follower) -> None:
    while f.poll_once() or f.more:
        pass


def rows(f: Follower) -> list[tuple[str, str, int]]:
    """Every row as read back from its file now: its id (or its bad line's reason), the name of
    the file the index says it is in, and its line there."""
    ix = f.index
    out = []
    for r in range(len(ix)):
        got = ix.get(r)
        what = got.reason.split(" at ")[0] if isinstance(got, BadLine) else str(got.command_id)
        name = os.path.basename(ix.members[ix.member_no[r]].member.path)
        out.append((what, name, ix.line_no[r]))
    return out


def read_ids(f: Follower) -> list[str]:
    """The rows' ids read back; each row must also read back as the id its column holds."""
    got = [what for what, _, _ in rows(f)]
    assert got == [str(i) if i is not None else got[r] for r, i in enumerate(f.index.ids)]
    return got


def follower(base: Path, *, seeded: bool = True) -> Follower:
    f = Follower(open_path(str(base))[0], seed=seeded)
    drain(f)
    return f


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)


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


def oldest_dropped(base: Path) -> None:
    """The oldest generation deleted (its rows, read before, are gone from disk)."""
    os.unlink(f"{base}.2.gz")
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
        _old(base.parent)
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


# ------------------------------------------------------------------ the persistent cache
def _old(folder: Path, step: int = 0) -> None:
    """Every file's mtime well in the past (a cached member is then trusted as it is)."""
    for path in folder.iterdir():
        if path.is_file():
            os.utime(path, ns=(OLD + step, OLD + step))


def plain_build(base: Path) -> None:
    build_index(open_path(str(base))[0]).close()


def seeded_follow(base: Path) -> None:
    follower(base).stop()


def finish_and_append(base: Path) -> None:
    append(base, rec(30)[25:] + recs(31, 3))


def append_partial(base: Path) -> None:
    append(base, rec(30)[25:] + rec(31) + rec(32)[:20])


def rename_rotate(base: Path) -> None:
    finish_and_append(base)
    os.rename(f"{base}.2.gz", f"{base}.3.gz")
    os.rename(f"{base}.1", f"{base}.2")
    os.rename(base, f"{base}.1")
    base.write_bytes(recs(40, 2) + rec(42)[:9])


def rewrite_in_place(base: Path) -> None:
    """Copy-and-truncate, the fresh base already longer than the old one."""
    append(base, rec(30)[25:])
    os.rename(f"{base}.1", f"{base}.9")
    shutil.copyfile(base, f"{base}.1")
    with open(base, "r+b") as fh:
        fh.truncate(0)
        fh.write(recs(200, 20))


WARMED: dict[str, tuple[Callable[[Path], None], Callable[[Path], None]]] = {
    "plain-partial-then-finished": (plain_build, finish_and_append),
    "plain-then-partial": (plain_build, append_partial),
    "seeded-then-partial": (seeded_follow, append_partial),
    "seeded-then-rotated": (seeded_follow, rename_rotate),
    "plain-then-rewritten": (plain_build, rewrite_in_place),
    "seeded-then-rewritten": (seeded_follow, rewrite_in_place),
}


@pytest.mark.parametrize(("first", "change"), list(WARMED.values()), ids=list(WARMED))
@pytest.mark.parametrize("racy", [False, True], ids=["old-mtimes", "fresh-mtimes"])
def test_a_warm_cache_gives_the_rows_on_disk(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    first: Callable[[Path], None],
    change: Callable[[Path], None],
    racy: bool,
) -> None:
    """Whatever an earlier plain or seeded build kept, a seeded follower and the plain builds
    after it give the rows a build without the cache gives."""
    private_cache(tmp_path, monkeypatch)
    base = make_run(tmp_path / "run")
    if not racy:
        _old(base.parent)
    first(base)
    change(base)
    if not racy:
        _old(base.parent, 10**9)
    f = follower(base)
    truth = cold(base)
    want = [str(i) for i in truth.ids]
    if not base.read_bytes().endswith(b"\n"):
        want = want[:-1]  # the unfinished line waits for its newline
    assert read_ids(f) == want
    assert not f.index.bad
    f.stop()
    for _ in range(2):  # one built from what the seeding kept, one from what that one kept
        warm = build_index(open_path(str(base))[0])
        assert state(warm) == state(truth)
        warm.close()


@pytest.mark.parametrize("seeded", [True, False], ids=["seeded-follower", "plain-build"])
def test_a_copy_and_truncate_during_the_scan_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seeded: bool, _seed_every_run: list[bool]
) -> None:
    """The base's first KiB read, then copied and truncated and written past its old size
    before the scan reaches its end: its rows are of two files. The seeding falls back, and
    the cache must not keep them as the rows of the file now there: a later build showed the
    old records at the new one's offsets (c0020 where c0200 is), till store/build.py left such
    a member out of the cache."""
    private_cache(tmp_path, monkeypatch)
    base = make_run(tmp_path / "run", recs(20, 40))
    scan = fastindex.scan_member
    done: list[bool] = []

    def scanning(path: str, *args: Any, **kw: Any) -> Iterator[Any]:
        for item in scan(path, *args, **kw):
            yield item
            if path == str(base) and not done:
                done.append(True)
                shutil.copyfile(base, f"{base}.1.tmp")
                os.rename(f"{base}.1", f"{base}.9")
                os.rename(f"{base}.1.tmp", f"{base}.1")
                with open(base, "r+b") as fh:
                    fh.truncate(0)
                    fh.write(recs(200, 60))

    with monkeypatch.context() as m:
        m.setattr(fastindex, "CHUNK", 1024)  # the scan reads the base in steps
        m.setattr(fastindex, "scan_member", scanning)
        if seeded:
            f = follower(base)
        else:
            build_index(open_path(str(base))[0]).close()
    assert done
    if seeded:
        assert _seed_every_run == [False]
        assert sorted(read_ids(f)) == [*ids(0, 60), *ids(200, 60)]
        f.stop()
    append(base, recs(260, 2))  # an append: the cache resumes a file it kept whole
    truth = cold(base)
    warm = build_index(open_path(str(base))[0])
    assert [str(i) for i in warm.ids] == [str(i) for i in truth.ids]
    assert state(warm) == state(truth)


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


PLANTED: dict[str, tuple[Callable[[Path], None], list[str]]] = {
    # what replaces B.1 once the seeding opened it, and the rows read then: those of the run
    # as it is after the change (the follower reads it again, from its names)
    "fifo": (_fifo, [*ids(0, 10), *ids(20, 10)]),
    "dev-zero": (_zero, [*ids(0, 10), *ids(20, 10)]),
    "link-to-another-file": (_other_file, [*ids(0, 10), *ids(500, 10), *ids(20, 10)]),
}


@pytest.mark.parametrize(("plant", "want"), list(PLANTED.values()), ids=list(PLANTED))
def test_a_member_swapped_during_the_build_is_never_trusted(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    plant: Callable[[Path], None],
    want: list[str],
    _seed_every_run: list[bool],
) -> None:
    """``B.1`` replaced by a FIFO, a device or a link to another file after the seeding
    opened it: the seeding falls back (nothing blocks, nothing endless is read) and no row of
    the seeded index survives."""
    base = make_run(tmp_path / "run")
    real = seed.build_index

    def building(*args: Any, **kw: Any) -> Any:
        plant(tmp_path / "run" / "run.jsonl.1")
        return real(*args, **kw)

    monkeypatch.setattr(seed, "build_index", building)
    run = open_path(str(base))[0]
    f = Follower(run, seed=True)
    drain(f)
    assert _seed_every_run == [False]
    assert read_ids(f) == want
    assert not f.index.bad
    if plant is not _other_file:
        assert any("run.jsonl.1" in n for n in run.notes + f.notes)
    f.stop()


def test_a_generation_deleted_during_the_build_is_noted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, _seed_every_run: list[bool]
) -> None:
    """The oldest generation deleted while the build runs (``rotate N`` of logrotate): the
    seeding falls back, the follower says the file could not be read, and reads the rest."""
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
    assert read_ids(f) == ids(10, 20)
    notes = [n for n in run.notes + f.notes if "run.jsonl.2.gz" in n]
    assert len(notes) == 1
    f.stop()


@pytest.mark.xfail(
    strict=True,
    reason="the fallback reopens members by name: a generation deleted during the build is "
    "lost, though the seeding held it open (an unseeded follower reads it from its handle)",
)
def test_a_generation_deleted_during_the_build_is_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = make_run(tmp_path / "run")
    real = seed.build_index

    def building(*args: Any, **kw: Any) -> Any:
        os.unlink(f"{base}.2.gz")
        return real(*args, **kw)

    monkeypatch.setattr(seed, "build_index", building)
    f = follower(base)
    assert sorted(f.index.ids) == ids(0, 30)  # type: ignore[type-var]
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
        if start == "first-write":
            return os.path.exists(f"{base}.1") or base.stat().st_size != size
        return os.path.exists(f"{base}.1")

    def building(*args: Any, **kw: Any) -> Any:
        # The members are open; the writer has begun before the build reads them.
        while writer[0].poll() is None and not under_way():
            os.sched_yield()
        return real(*args, **kw)

    monkeypatch.setattr(seed, "build_index", building)
    f = Follower(open_path(str(base))[0], seed=True)
    count = 150
    argv = [sys.executable, "-c", WRITER, str(base), mode, str(count), "6", "40", str(seed_no)]
    writer.append(subprocess.Popen(argv))
    try:
        while writer[0].poll() is None:
            f.poll_once()
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
def _open_in(folder: Path) -> list[str]:
    """The files under ``folder`` this process holds open."""
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(folder)):
            out.append(target)
    return out


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
    f.stop()
    f.index.close()
    assert _open_in(tmp_path / "run") == []


@pytest.mark.xfail(
    strict=True,
    raises=zlib.error,
    reason="watch.head_of catches OSError and EOFError, not zlib.error: a gzip member whose "
    "first block is damaged stops the first poll (seeded: in seed._hold, its handles left "
    "open; unseeded: in the rotation scan's list_members)",
)
@pytest.mark.parametrize("seeded", [True, False], ids=["seeded", "unseeded"])
def test_a_gzip_member_damaged_at_its_start_is_noted(tmp_path: Path, seeded: bool) -> None:
    base = make_run(tmp_path / "run")
    data = gzip.compress(recs(0, 10))
    (tmp_path / "run" / "run.jsonl.2.gz").write_bytes(
        data[:12] + bytes(b ^ 0x55 for b in data[12:40]) + data[40:]
    )
    run = open_path(str(base))[0]
    f = Follower(run, seed=seeded)
    try:
        drain(f)
        assert read_ids(f) == ids(10, 20)
        assert any("run.jsonl.2.gz" in n for n in run.notes + f.notes)
    finally:
        f.stop()


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
