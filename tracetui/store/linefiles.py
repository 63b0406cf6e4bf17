"""Reading one indexed line back from its file, through a small cache of open descriptors.

The viewer reads a screenful of rows at a time, often from the same few members: keeping their
descriptors open makes each row one ``pread``. Files are known by path *and* inode, so after a
rotation renames files around us the next read opens whatever the path names now.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from collections import OrderedDict

from tracetui.model.spans import Span
from tracetui.store.reader import BadLine, RawLine, parse_line

KEEP_OPEN = 16
"""Descriptors opened by path kept open (least recently used closed first)."""
KEEP_PINNED = 64
"""Pinned descriptors kept (oldest unpinned first: their rows are then read by path)."""


class LineFiles:
    """Open descriptors by ``(inode, path)``; safe to use from several threads."""

    def __init__(self) -> None:
        self._fds: OrderedDict[tuple[int, str], int] = OrderedDict()
        self._pinned: OrderedDict[int, int] = OrderedDict()
        """Member number → a descriptor of the very file its rows were read from."""
        self._lock = threading.RLock()

    def pin(self, mno: int, fd: int) -> None:
        """Read member ``mno`` through ``fd`` (taken over) rather than by path.

        The follower hands over a duplicate of the handle it read the member through: a rename
        rotation right after cannot redirect the member's rows into another file by its name.
        """
        with self._lock:
            self._close(self._pinned.pop(mno, None))
            self._pinned[mno] = fd
            while len(self._pinned) > KEEP_PINNED:
                self._close(self._pinned.popitem(last=False)[1])

    def unpin(self, mno: int) -> None:
        """Member ``mno``'s rows now live in another file: read them by path again."""
        with self._lock:
            self._close(self._pinned.pop(mno, None))

    def read(
        self, mno: int, path: str, readable: str, offset: int, length: int, line_no: int
    ) -> Span | BadLine:
        """The line at ``offset`` of member ``mno`` (its pinned file, else ``readable``),
        parsed; a BadLine naming ``path`` when it is no longer there (rotated away, truncated,
        deleted)."""
        try:
            # Under the lock: another thread must not close (or evict) the descriptor between
            # looking it up and reading through it, or the read could land in a reused one.
            with self._lock:
                fd = self._pinned.get(mno)
                data = os.pread(self._fd(readable) if fd is None else fd, length, offset)
        except OSError as exc:
            why = f"cannot read: {exc.strerror} (rotated away?)"
            return BadLine(path, line_no, offset, why)
        if len(data) != length:
            why = "line no longer in the file (rotated or truncated?)"
            return BadLine(path, line_no, offset, why)
        return parse_line(RawLine(line_no, offset, length, data), path)

    def _fd(self, readable: str) -> int:
        """A descriptor for ``readable`` (the caller holds the lock)."""
        if not readable:
            raise FileNotFoundError(2, "No such file (the member is gone)")
        key = (os.stat(readable).st_ino, readable)
        fd = self._fds.get(key)
        if fd is not None:
            self._fds.move_to_end(key)
            return fd
        # Without blocking, then checked: a FIFO swapped in under a member's name must not
        # freeze the viewer (a pread on it fails; on a device it is refused here).
        fd = os.open(readable, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            os.close(fd)
            raise OSError(errno.EINVAL, "not a regular file any more")
        key = (st.st_ino, readable)  # what was opened, should the path have changed
        old = self._fds.pop(key, None)
        if old is not None:
            os.close(old)
        self._fds[key] = fd
        while len(self._fds) > KEEP_OPEN:
            os.close(self._fds.popitem(last=False)[1])
        return fd

    @staticmethod
    def _close(fd: int | None) -> None:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def close(self) -> None:
        with self._lock:
            fds = [*self._fds.values(), *self._pinned.values()]
            self._fds, self._pinned = OrderedDict(), OrderedDict()
        for fd in fds:
            self._close(fd)
