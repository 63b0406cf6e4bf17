"""The viewer's ``u`` copy of the unseen bytes (record/kept_pages.py) on a hostile temp folder.

tracetui's own kept files are paged from the file now (no copy); the copy remains for another
agent's kept output, which these cases hold to the rules below.

Before: the copy was written with no check of the room left and no handling of a failed write.
A full temp disk (or a TMPDIR that is a file) raised OSError in the screen's worker, which
catches only NotKept: the screen stayed on "checking the kept bytes…" for good, and a kept file
that decompresses to gigabytes (its hash recorded to match) filled the temp disk first.
Now each is a NotKept with one line, the screen says it, and the descriptor is closed.
"""

from __future__ import annotations

import dataclasses
import errno
import io
import os
import sys
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest

from tracetui.record import kept
from tracetui.record.kept_pages import TEMP_RESERVE, UnseenPages
from tracetui.record.kept_read import KeptMismatch, KeptStream, NotKept, find_kept, open_verified
from tracetui.record.recorder import run_with_feedback

PY = sys.executable


def kept_stream(tmp_path: Path) -> KeptStream:
    code = "import sys; sys.stdout.write('line\\n' * 20_000)"
    run_with_feedback([PY, "-c", code], log=tmp_path / "B", cap=100)
    raw = orjson.loads((tmp_path / "B").read_bytes().splitlines()[-1])
    return find_kept(str(tmp_path / "B"), raw, "stdout")


def agent_kept_stream(tmp_path: Path) -> KeptStream:
    """The same bytes as another agent's kept output (checked its own way): the copied path."""
    store = kept_stream(tmp_path)
    with open_verified(store) as verified:
        data = b"".join(verified.chunks())
    return dataclasses.replace(
        store, opener=lambda: io.BytesIO(data), check=lambda fh: None, sha256=""
    )


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def disk_full(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    real = os.write

    def write(fd: int, data: Any) -> int:
        if fd > 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)
    return f"cannot copy it to the temp folder {tempfile.gettempdir()}: No space left on device"


def little_room(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    free = TEMP_RESERVE + 50_000  # less than the 99,900 unseen bytes past the reserve
    room = SimpleNamespace(f_bavail=free // 512, f_frsize=512)
    monkeypatch.setattr(os, "fstatvfs", lambda fd: room)
    return (
        f"its 99,900 unseen bytes would not fit in the temp folder {tempfile.gettempdir()} "
        f"({free // 512 * 512:,} bytes free; set TMPDIR to a larger one)"
    )


def tmpdir_a_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> str:
    folder = tmp_path / "not-a-folder"
    folder.write_text("x")
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return f"cannot copy it to the temp folder {folder}: Not a directory"


CASES: list[tuple[str, Callable[[pytest.MonkeyPatch, Path], str]]] = [
    ("disk-full", disk_full),
    ("less-room-than-the-unseen-bytes", little_room),
    ("TMPDIR-is-a-file", tmpdir_a_file),
]


@pytest.mark.parametrize("spoil", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_a_copy_that_cannot_be_made_is_one_line_not_a_stuck_screen(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    spoil: Callable[[pytest.MonkeyPatch, Path], str],
) -> None:
    kept = agent_kept_stream(tmp_path)  # another agent's kept output is still copied
    assert kept.unseen == 99_900
    before = open_fds()
    with monkeypatch.context() as patch:
        expected = spoil(patch, tmp_path)
        with pytest.raises(NotKept) as raised:
            UnseenPages.load(kept)
    assert str(raised.value) == expected
    assert open_fds() == before  # the temp copy's descriptor is closed


@pytest.mark.parametrize("spoil", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_the_store_is_paged_from_its_file_whatever_the_temp_folder(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    spoil: Callable[[pytest.MonkeyPatch, Path], str],
) -> None:
    """tracetui's own kept file is checked, then paged straight from disk (record/kept_seek.py):
    no copy is made, so a full, small or broken temp folder changes nothing (before, each made
    the unseen part unreadable)."""
    kept = kept_stream(tmp_path)
    before = open_fds()
    with monkeypatch.context() as patch:
        spoil(patch, tmp_path)
        pages = UnseenPages.load(kept)
        try:
            assert pages.size == 99_900
            assert pages.page(0, 2).lines == [b"line", b"line"]
            assert open_fds() == before + 1  # the kept file itself, held open
        finally:
            pages.close()
    assert open_fds() == before


def test_enough_room_copies_the_unseen_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = kept_stream(tmp_path)
    room = SimpleNamespace(f_bavail=(TEMP_RESERVE + 99_900) // 512 + 1, f_frsize=512)
    monkeypatch.setattr(os, "fstatvfs", lambda fd: room)
    pages = UnseenPages.load(kept)
    try:
        assert pages.size == 99_900
        assert pages.page(0, 2).lines == [b"line", b"line"]  # the head saw 20 whole lines
    finally:
        pages.close()


def test_a_record_claiming_more_than_its_file_can_hold_is_refused_unread(
    tmp_path: Path,
) -> None:
    """A bomb (64 MiB of NULs in ~64 KiB) under a record claiming 2**40 bytes: it was
    decompressed to its end before the hash was found wrong (a 4 GiB one took 12.9 s); now the
    file's size alone refuses it, before any byte is decompressed."""
    sha = "ab" * 32
    folder = tmp_path / "B.kept"
    folder.mkdir(mode=0o700)
    zipper = zlib.compressobj(9, zlib.DEFLATED, 31)
    bomb = b"".join(zipper.compress(bytes(1 << 20)) for _ in range(64)) + zipper.flush()
    (folder / f"{sha}.gz").write_bytes(bomb)
    claim = 1 << 40
    raw = {"stdout_kept": {"sha256": sha, "bytes": claim, "unseen_start": 0, "unseen_end": claim}}
    kept = find_kept(str(tmp_path / "B"), raw, "stdout")
    with pytest.raises(KeptMismatch) as raised, open_verified(kept):
        pass
    assert str(raised.value) == (
        f"{folder}/{sha}.gz does not match the hash in its record (changed?): its "
        f"{len(bomb):,} bytes cannot hold the {claim:,} the record says"
    )


def gz_member(path: Path, size: int, sha: str) -> None:
    """A gzip member: a record naming kept file ``sha`` after ``size`` bytes of NULs."""
    zipper = zlib.compressobj(1, zlib.DEFLATED, 31)
    record = b'{"stdout_kept":{"sha256":"' + sha.encode() + b'","bytes":1}}\n'
    path.write_bytes(zipper.compress(bytes(size)) + zipper.compress(record) + zipper.flush())


MEMBERS = [
    ("under-the-limit", 1 << 20, {"cd" * 32}),
    ("a-bomb-over-the-limit", 3 << 20, None),
]


@pytest.mark.parametrize(("size", "found"), [m[1:] for m in MEMBERS], ids=[m[0] for m in MEMBERS])
def test_a_dropped_member_is_read_for_hashes_only_up_to_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int, found: set[str] | None
) -> None:
    """Rotation reads the members it drops for the kept files only they name. A planted 4 MB
    gzip bomb (4 GiB of NULs) as the dropped member was read to its end: 15.4 s added to the
    agent's `tracetui run`. Past the limit it now stops with an OSError, and the caller
    forgets nothing (the files are left to the budget)."""
    monkeypatch.setattr(kept, "SCAN_LIMIT", 2 << 20)
    member = tmp_path / "B.jsonl.4.gz"
    gz_member(member, size, "cd" * 32)
    if found is not None:
        assert kept.hashes_in(str(member)) == found
        return
    with pytest.raises(OSError) as raised:
        kept.hashes_in(str(member))
    assert (raised.value.errno, str(raised.value)) == (
        errno.EFBIG,
        f"[Errno {errno.EFBIG}] over 2 MiB decompressed: '{member}'",
    )
