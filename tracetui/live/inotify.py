"""Linux inotify through the C library: a wait that costs nothing while nothing changes.

``watchfiles`` (used elsewhere) wakes its thread every few milliseconds to look for a stop
request and takes the interpreter lock to do so: that was most of an idle viewer's CPU. Here
the follower's own thread blocks in ``select`` on the inotify descriptor (and on a pipe that
:meth:`Inotify.close` writes to), so it sleeps until a watched folder changes or the timeout
passes. Only the standard library is used (``ctypes``); where inotify is missing the caller
falls back to ``watchfiles`` or to polling.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import select
import sys
import threading

IN_MODIFY = 0x002
IN_ATTRIB = 0x004
IN_CLOSE_WRITE = 0x008
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_MOVE_SELF = 0x800
IN_NONBLOCK = 0o4000
IN_CLOEXEC = 0o2000000

MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
)
"""Everything a follower must see in a run's folder: appends, truncation, renames, new files.
A queue overflow (IN_Q_OVERFLOW) is always reported and wakes the wait like any change."""


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    except (OSError, AttributeError):
        return None
    return libc


class Inotify:
    """Watches folders (not their subfolders); :meth:`wait` blocks until one changes."""

    def __init__(self, folders: list[str]) -> None:
        libc = _libc()
        if libc is None:
            raise OSError("inotify is not available here")
        fd = libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1 failed")
        self._fd = fd
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        self._closed = threading.Event()
        try:
            for folder in folders:
                if libc.inotify_add_watch(fd, os.fsencode(folder), MASK) < 0:
                    err = ctypes.get_errno()
                    raise OSError(err, f"cannot watch {folder}: {os.strerror(err)}")
        except OSError:
            self.close()
            raise

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def wait(self, timeout: float) -> bool:
        """Block until a change (True) or ``timeout`` seconds (False); at once once closed.

        Every event queued is consumed: changes arriving while the caller reads are met by
        the next wait, which then returns at once.
        """
        if self._closed.is_set():
            return False
        try:
            ready, _, _ = select.select([self._fd, self._wake_r], [], [], timeout)
        except (OSError, ValueError):
            return False  # closed from another thread meanwhile
        if self._closed.is_set() or not ready:
            return False
        changed = False
        with contextlib.suppress(OSError):  # BlockingIOError once drained
            while os.read(self._fd, 1 << 16):
                changed = True
        return changed

    def close(self) -> None:
        """Wake a waiting thread and release the descriptors (idempotent)."""
        if self._closed.is_set():
            return
        self._closed.set()
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        for fd in (self._fd, self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
