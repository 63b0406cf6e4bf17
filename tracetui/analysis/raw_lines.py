"""The raw bytes of indexed rows, read straight from a run's members, and byte-level looks at
them: for the passes over a finished index that must not parse every row they look at (the
suspicion count, lint's choice of the rows it reads).

The looks take the first occurrence of a key for the record's own: callers make sure it is the
only one (or only ask of keys that tracetui's dialects write once, before any preview).
"""

from __future__ import annotations

import os
from typing import Any

from tracetui.store.fastindex import ones as fast_ones
from tracetui.store.index import RunIndex
from tracetui.store.reader import loads, open_regular

_SPACE = b" \t\r\n:"


def value_at(buf: bytes, key: bytes, start: int, end: int) -> int:
    """Where ``key``'s value starts in ``buf[start:end]`` (spaces and the colon skipped); -1
    when the key is not there."""
    at = buf.find(key, start, end)
    if at < 0:
        return -1
    at += len(key)
    while at < end and buf[at] in _SPACE:
        at += 1
    return at


def json_string(buf: bytes, at: int, end: int) -> str | None:
    """The JSON string starting at ``buf[at]``, decoded; None when no plain string is there."""
    if at >= end or buf[at] != 0x22:  # '"'
        return None
    close = buf.find(b'"', at + 1, end)
    while close > 0 and buf[close - 1] == 0x5C:  # a backslash: escaped, unless itself escaped
        slashes = 1
        while buf[close - 1 - slashes] == 0x5C:
            slashes += 1
        if slashes % 2 == 0:
            break
        close = buf.find(b'"', close + 1, end)
    if close < 0:
        return None
    value = load_json(buf[at : close + 1])
    return value if isinstance(value, str) else None


def load_json(data: bytes) -> Any:
    try:
        return loads(data)[0]
    except ValueError:
        return None


SPARSE = 64
"""Lines read one by one when fewer than one row in this many is read (a row pread costs about
what copying ~50 rows' bytes does; a 4 MiB read holds ~3,000 rows of a tracetui run)."""
CHUNK = 4 << 20
"""Bytes read from a member at a time by :meth:`RawLines.locate`."""
_UNOPENED = -2
"""A member whose descriptor is not opened yet (-1: it cannot be)."""


def _regular_fd(path: str) -> int:
    """A descriptor of ``path`` when it is a regular file: a member swapped for a FIFO after
    indexing would block a plain open for ever (:func:`tracetui.store.reader.open_regular`)."""
    with open_regular(path) as fh:
        return os.dup(fh.fileno())


class RawLines:
    """The raw bytes of rows, read straight from the members (one descriptor each).

    For a finished index (``summary``): reading through :meth:`RunIndex.get` would parse every
    row it reads, which is what this scan avoids. A member that cannot be opened reads as
    nothing (its rows are skipped, as lint reports them unreadable).

    As a context manager every member is opened on entry; without one (the viewer's search,
    whose matcher lives as long as the search) a member is opened when a row of it is first
    read, members added since (a live run) included, and :meth:`close` (or dropping the
    object) closes them.
    """

    def __init__(self, index: RunIndex, *, sparse: bool = False) -> None:
        self.index = index
        self.sparse = sparse
        """Each :meth:`locate` that misses reads just its row's line (for rows far apart: a 4 MiB
        read after every miss would copy whole members to look at a few lines)."""
        self.fds: list[int] = []
        self.chunk = b""
        self.chunk_member = -1
        self.chunk_base = 0

    @classmethod
    def for_rows(cls, index: RunIndex, wanted: int) -> RawLines:
        """A reader of ``wanted`` of the index's rows, in set order: line by line when they are
        few and far apart (see :data:`SPARSE`), else in large reads."""
        return cls(index, sparse=wanted * SPARSE < len(index))

    def __enter__(self) -> RawLines:
        for im in self.index.members:
            try:
                fd = _regular_fd(im.readable) if im.readable else -1
            except OSError:  # gone, unreadable, or no longer a regular file
                fd = -1
            self.fds.append(fd)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for fd in self.fds:
            if fd >= 0:
                os.close(fd)
        self.fds.clear()

    def __del__(self) -> None:
        self.close()

    def _fd(self, mno: int) -> int:
        """The descriptor of member ``mno``, opened on first use; -1 when it cannot be."""
        fds = self.fds
        while len(fds) <= mno:
            fds.append(_UNOPENED)
        fd = fds[mno]
        if fd == _UNOPENED:
            readable = self.index.members[mno].readable
            try:
                fd = _regular_fd(readable) if readable else -1
            except OSError:  # gone, unreadable, or no longer a regular file
                fd = -1
            fds[mno] = fd
        return fd

    def locate(self, row: int) -> tuple[bytes, int, int] | None:
        """``(buffer, start, end)``: row ``row``'s bytes are ``buffer[start:end]``.

        Rows asked in set order are served from one large read of their member at a time: the
        looks at a row search the buffer in place, with no read or copy per row (``sparse``: one
        read of its own per row).
        """
        ix = self.index
        mno, offset, length = ix.member_no[row], ix.offset[row], ix.length[row]
        base = self.chunk_base
        if mno != self.chunk_member or offset < base or offset + length > base + len(self.chunk):
            fd = self._fd(mno)
            size = length if self.sparse else max(CHUNK, length)
            try:
                self.chunk = os.pread(fd, size, offset) if fd >= 0 else b""
            except OSError:
                self.chunk = b""
            self.chunk_member, self.chunk_base = mno, offset
            base = offset
        start = offset - base
        if start + length > len(self.chunk):
            return None  # the file is shorter than indexed (truncated since?)
        return self.chunk, start, start + length

    def line(self, row: int) -> bytes | None:
        ix = self.index
        fd = self._fd(ix.member_no[row])
        length = ix.length[row]
        try:
            data = os.pread(fd, length, ix.offset[row]) if fd >= 0 else b""
        except OSError:
            return None
        return data if len(data) == length else None


# Columns of 0/1 bytes, one a row (a flags or marks column translated), combined at C speed.
def columns_or(a: bytes, b: bytes) -> bytes:
    """Byte-wise OR of two 0/1 columns of the same length, at C speed."""
    return (int.from_bytes(a, "little") | int.from_bytes(b, "little")).to_bytes(len(a), "little")


def columns_and(a: bytes, b: bytes) -> bytes:
    """Byte-wise AND of two 0/1 columns of the same length, at C speed."""
    return (int.from_bytes(a, "little") & int.from_bytes(b, "little")).to_bytes(len(a), "little")


def ones(column: bytes, start: int = 0) -> list[int]:
    """Positions (from ``start``) of the 1 bytes of a 0/1 column (``fastindex.ones``)."""
    return fast_ones(column, start)
