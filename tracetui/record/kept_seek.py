"""Reading any range of a gzip'd kept stream straight from its file, after checking it whole.

A gzip file can only be decompressed forward. So the one pass that checks the stream against its
length and sha256 also leaves *checkpoints*: a copy of the inflater's state (the 32 KiB window
and its bits, some 40 KiB) every :data:`SPACING_MIN` bytes or more, at most about
:data:`MAX_CHECKPOINTS` of them, with where in the file and in the stream each stands. A range
is then read by starting from the checkpoint before it (or from where the last read ended, so
reading forward is one pass) and decompressing up to its end: memory stays bounded (the
checkpoints, and one range), and nothing is copied anywhere.

The bytes shown are the bytes checked: the file is kept open (a rename or a new file under its
name changes nothing), and before every read its identity, size and change times are compared
with those it had when it was checked; a change in place is :class:`KeptMismatch`, as a damaged
file is (an inflater that fails, or a stream that ends early).
"""

from __future__ import annotations

import bisect
import hashlib
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tracetui.record.kept_errors import KeptMismatch

SPACING_MIN = 1 << 20
"""Least decompressed bytes between two checkpoints."""
MAX_CHECKPOINTS = 256
"""About the most checkpoints one stream keeps (the spacing grows with the stream)."""
_FEED = 1 << 16
"""Compressed bytes read from the file per step."""
_STEP_OUT = 1 << 20
"""Most decompressed bytes one step makes (a bomb never makes more at once)."""
_GZIP = 31
"""zlib's wbits for a gzip member (header, deflate, CRC-32 and length checked)."""


@dataclass(frozen=True, slots=True)
class _Point:
    """A place to start decompressing from."""

    comp: int
    """Offset in the file of the next compressed byte to feed."""
    out: int
    """Offset in the stream of the next byte it makes."""
    inflater: Any
    """The inflater's state there (a ``zlib`` decompressor, copied again before each use)."""


def _key(fd: int) -> tuple[int, int, int, int, int]:
    st = os.fstat(fd)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class GzipRanges:
    """A checked gzip'd stream, read by range from its open file (see the module docstring)."""

    def __init__(self, fd: int, size: int, where: str, points: list[_Point]) -> None:
        self._fd = fd
        self.size = size
        self.where = where
        self._points = points
        self._outs = [p.out for p in points]
        self._last: tuple[_Point, bytes] | None = None
        """Where the last read stopped, and the bytes of its last step (at most a step's)."""
        self._key = _key(fd)

    @classmethod
    def check(cls, fd: int, size: int, sha256: str, where: str) -> GzipRanges:
        """Check the gzip file open as ``fd`` (owned from here on) against ``size`` and
        ``sha256``, leaving checkpoints; raises :class:`KeptMismatch` (``fd`` then closed)."""
        try:
            spacing = max(SPACING_MIN, -(-size // MAX_CHECKPOINTS))
            sha = hashlib.sha256()
            start = _Point(0, 0, zlib.decompressobj(_GZIP))
            points = [start]
            next_at = spacing
            out = 0
            for comp, out, data, inflater in _steps(fd, start, where):
                if out > size:
                    break
                sha.update(data)
                if out >= next_at:
                    points.append(_Point(comp, out, inflater.copy()))
                    next_at = out + spacing
            if out != size or sha.hexdigest() != sha256:
                raise KeptMismatch(f"{where} does not match the hash in its record (changed?)")
            return cls(fd, size, where, points)
        except BaseException:
            os.close(fd)
            raise

    def read(self, offset: int, count: int) -> bytes:
        """Bytes ``offset`` … ``offset + count`` of the stream (fewer at its end)."""
        offset = max(0, offset)
        end = min(self.size, offset + max(0, count))
        if offset >= end:
            return b""
        if _key(self._fd) != self._key:
            raise KeptMismatch(f"{self.where} changed since it was checked")
        point = self._points[bisect.bisect_right(self._outs, offset) - 1]
        parts: list[bytes] = []
        last = self._last
        if last is not None and point.out <= last[0].out - len(last[1]) <= offset:
            # On from the last read (paging forward): its last step's bytes, then onwards.
            after, data = last
            parts.append(_slice(data, after.out - len(data), offset, end))
            point = after
        if point.out < end:
            start = _Point(point.comp, point.out, point.inflater.copy())
            for comp, out, data, inflater in _steps(self._fd, start, self.where):
                parts.append(_slice(data, out - len(data), offset, end))
                if out >= end:
                    self._last = (_Point(comp, out, inflater.copy()), data)
                    break
        got = b"".join(parts)
        if len(got) != end - offset:
            raise KeptMismatch(f"{self.where} ended early while it was read")
        return got

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._points, self._outs, self._last = [], [], None


def _slice(data: bytes, at: int, offset: int, end: int) -> bytes:
    """The part of ``data`` (stream bytes from ``at``) inside ``offset`` … ``end``."""
    return data[max(0, offset - at) : max(0, end - at)]


def _steps(fd: int, start: _Point, where: str) -> Iterator[tuple[int, int, bytes, Any]]:
    """``(file offset, stream offset, bytes made, inflater)`` after each step from ``start``.

    A file of several gzip members reads as their bytes one after the other (as ``gzip`` reads
    it); NUL bytes after the last member are padding. A damaged member is :class:`KeptMismatch`.
    """
    comp, out, inflater = start.comp, start.out, start.inflater
    buf = b""
    try:
        while True:
            if not buf:
                buf = os.pread(fd, _FEED, comp)
                if not buf:
                    data = b"" if inflater.eof else inflater.decompress(b"", _STEP_OUT)
                    if data:  # what the inflater still held back at the end of the input
                        out += len(data)
                        yield comp, out, data, inflater
                        continue
                    if not inflater.eof and (out or comp):
                        raise KeptMismatch(
                            f"{where} is damaged (Compressed file ended before the "
                            "end-of-stream marker was reached), so it cannot be checked"
                        )
                    return
            if inflater.eof:
                if not buf.strip(b"\0") and not _rest_is_padding(fd, comp + len(buf)):
                    raise KeptMismatch(f"{where} is damaged (data after its end)")
                if not buf.strip(b"\0"):
                    return
                inflater = zlib.decompressobj(_GZIP)  # the next member
            data = inflater.decompress(buf, _STEP_OUT)
            left = inflater.unused_data if inflater.eof else inflater.unconsumed_tail
            comp += len(buf) - len(left)
            buf = left
            out += len(data)
            yield comp, out, data, inflater
    except zlib.error as exc:
        raise KeptMismatch(f"{where} is damaged ({exc}), so it cannot be checked") from None


def _rest_is_padding(fd: int, at: int) -> bool:
    """Whether the file holds only NUL bytes from ``at`` on."""
    while True:
        data = os.pread(fd, _FEED, at)
        if not data:
            return True
        if data.strip(b"\0"):
            return False
        at += len(data)
