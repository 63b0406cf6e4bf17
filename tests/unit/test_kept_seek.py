"""Paging a gzip'd kept stream straight from its file (record/kept_seek.py), checked first.

Every range read equals the same range of the stream; the pages equal those of the temp-copy
path (the reference) at every offset; a damaged, changed or mismatched file is refused with the
line the whole-stream check says; the checkpoints stay bounded.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import random
from pathlib import Path

import pytest

from tracetui.record import kept_seek
from tracetui.record.kept_pages import UnseenPages
from tracetui.record.kept_read import KeptMismatch, KeptStream
from tracetui.record.kept_seek import GzipRanges

RNG = random.Random(7)
TEXT = b"".join(
    f"test_{i:05d} {'PASSED' if i % 7 else 'FAILED'} {'x' * RNG.randint(0, 300)}\n".encode()
    for i in range(20_000)
)
LAYOUTS = {
    "one-member": lambda d: gzip.compress(d),
    "three-members": lambda d: b"".join(
        gzip.compress(d[i * len(d) // 3 : (i + 1) * len(d) // 3]) for i in range(3)
    ),
    "nul-padding": lambda d: gzip.compress(d) + bytes(100),
    "random-bytes": lambda d: gzip.compress(d, compresslevel=1),
}


def _open(tmp_path: Path, blob: bytes, data: bytes = TEXT, sha: str | None = None) -> GzipRanges:
    path = tmp_path / "k.gz"
    path.write_bytes(blob)
    sha = hashlib.sha256(data).hexdigest() if sha is None else sha
    return GzipRanges.check(os.open(path, os.O_RDONLY), len(data), sha, str(path))


@pytest.mark.parametrize("layout", list(LAYOUTS), ids=list(LAYOUTS))
def test_every_range_is_the_streams(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str
) -> None:
    monkeypatch.setattr(kept_seek, "SPACING_MIN", 1 << 16)  # many checkpoints in 3 MB
    ranges = _open(tmp_path, LAYOUTS[layout](TEXT))
    try:
        for _ in range(300):
            at, n = RNG.randrange(len(TEXT)), RNG.randrange(200_000)
            assert ranges.read(at, n) == TEXT[at : at + n]
        at = 0
        while at < len(TEXT):  # forward, as paging goes: on from the last read
            assert ranges.read(at, 40_000) == TEXT[at : at + 40_000]
            at += 40_000
        assert ranges.read(len(TEXT), 10) == b""
    finally:
        ranges.close()


def _flipped(blob: bytes) -> bytes:
    spoiled = bytearray(blob)
    spoiled[len(blob) // 2] ^= 0xFF
    return bytes(spoiled)


REFUSED = [
    ("other-hash", lambda b: b, "0" * 64, "{p} does not match the hash in its record (changed?)"),
    (
        "cut-short",
        lambda b: b[:-100],
        None,
        "{p} is damaged (Compressed file ended before the "
        "end-of-stream marker was reached), so it cannot be checked",
    ),
    (
        "longer-than-recorded",
        lambda b: b + gzip.compress(b"more"),
        None,
        "{p} does not match the hash in its record (changed?)",
    ),
]


@pytest.mark.parametrize(("name", "spoil", "sha", "said"), REFUSED, ids=[c[0] for c in REFUSED])
def test_a_file_that_does_not_match_is_refused(
    tmp_path: Path, name: str, spoil: object, sha: str | None, said: str
) -> None:
    with pytest.raises(KeptMismatch) as raised:
        _open(tmp_path, spoil(gzip.compress(TEXT)), sha=sha)  # type: ignore[operator]
    assert str(raised.value) == said.format(p=tmp_path / "k.gz")


def test_a_damaged_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(KeptMismatch) as raised:
        _open(tmp_path, _flipped(gzip.compress(TEXT)))
    assert str(raised.value).startswith(f"{tmp_path / 'k.gz'} is damaged (")


def test_a_file_changed_after_its_check_is_not_read(tmp_path: Path) -> None:
    ranges = _open(tmp_path, gzip.compress(TEXT))
    try:
        assert ranges.read(0, 5) == TEXT[:5]
        with open(tmp_path / "k.gz", "r+b") as fh:  # in place: the same file, new bytes
            fh.seek(30)
            fh.write(b"\0")
        with pytest.raises(KeptMismatch) as raised:
            ranges.read(100, 5)
        assert str(raised.value) == f"{tmp_path / 'k.gz'} changed since it was checked"
    finally:
        ranges.close()


def test_the_checkpoints_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_seek, "SPACING_MIN", 1 << 10)
    ranges = _open(tmp_path, gzip.compress(TEXT, compresslevel=1))
    try:
        assert len(ranges._points) <= kept_seek.MAX_CHECKPOINTS + 1
    finally:
        ranges.close()


def test_pages_equal_the_copied_pages(tmp_path: Path) -> None:
    """The store path (paged from the file) against the copy path, page by page."""
    start, end = 8192, len(TEXT) - 4096
    (tmp_path / "B.kept").mkdir()
    sha = hashlib.sha256(TEXT).hexdigest()
    (tmp_path / "B.kept" / f"{sha}.gz").write_bytes(gzip.compress(TEXT))
    from tracetui.record.kept_read import find_kept

    raw = {
        "stdout_kept": {"sha256": sha, "bytes": len(TEXT), "unseen_start": start, "unseen_end": end}
    }
    store = find_kept(str(tmp_path / "B"), raw, "stdout")
    copied = KeptStream("", store.size, start, end, "x", lambda: io.BytesIO(TEXT), lambda fh: None)
    a, b = UnseenPages.load(store), UnseenPages.load(copied)
    try:
        assert a._ranges is not None and b._ranges is None
        assert a.size == b.size == end - start
        for at in [0, 1, 5000, a.size // 2, a.size - 10, a.size, *RNG.sample(range(a.size), 40)]:
            assert a.page(at, 30) == b.page(at, 30)
            assert a.back(at, 30) == b.back(at, 30)
            assert a.line_start(at) == b.line_start(at)
            for q in (b"FAILED", b"x" * 250):
                assert a.find(q, at) == b.find(q, at)
                assert a.find(q, at, forward=False) == b.find(q, at, forward=False)
    finally:
        a.close()
        b.close()
