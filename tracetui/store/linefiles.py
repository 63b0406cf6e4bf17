"""Reading one indexed line back from its file, through a small cache of open descriptors.

The viewer reads a screenful of rows at a time, often from the same few members: keeping their
descriptors open makes each row one ``pread``. Files are known by path *and* inode, so after a
rotation renames files around us the next read opens whatever the path names now.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict

from tracetui.model.spans import Span
from tracetui.store.reader import BadLine, RawLine, parse_line

KEEP_OPEN = 16
"""Descriptors kept open (least recently used closed first)."""


class LineFiles:
    """Open descriptors by ``(inode, path)``; safe to use from several threads."""

    def __init__(self) -> None:
        self._fds: OrderedDict[tuple[int, str], int] = OrderedDict()
        self._lock = threading.RLock()

    def read(
        self, path: str, readable: str, offset: int, length: int, line_no: int
    ) -> Span | BadLine:
        """The line at ``offset`` of ``readable``, parsed; a BadLine naming ``path`` when it is
        no longer there (rotated away, truncated, deleted)."""
        try:
            # Under the lock: another thread must not close (or evict) the descriptor between
            # looking it up and reading through it, or the read could land in a reused one.
            with self._lock:
                data = os.pread(self._fd(readable), length, offset)
        except OSError as exc:
            why = f"cannot read: {exc.strerror} (rotated away?)"
            return BadLine(path, line_no, offset, why)
        if len(data) != length:
            why = "line no longer in the file (rotated or truncated?)"
            return BadLine(path, line_no, offset, why)
        return parse_line(RawLine(line_no, offset, length, data), path)

    def _fd(self, readable: str) -> int:
        if not readable:
            raise FileNotFoundError(2, "No such file (the member is gone)")
        """A descriptor for ``readable`` (the caller holds the lock)."""
        key = (os.stat(readable).st_ino, readable)
        fd = self._fds.get(key)
        if fd is not None:
            self._fds.move_to_end(key)
            return fd
        fd = os.open(readable, os.O_RDONLY)
        key = (os.fstat(fd).st_ino, readable)  # what was opened, should the path have changed
        old = self._fds.pop(key, None)
        if old is not None:
            os.close(old)
        self._fds[key] = fd
        while len(self._fds) > KEEP_OPEN:
            os.close(self._fds.popitem(last=False)[1])
        return fd

    def close(self) -> None:
        with self._lock:
            fds, self._fds = list(self._fds.values()), OrderedDict()
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
