"""Locked append and rotation of a run's base file (SPEC §3).

Every writer takes an exclusive ``flock`` on ``B.lock`` (next to the base ``B``), rotates if the
next line would push ``B`` past ``max_bytes``, then appends the whole line with one ``os.write`` in
``O_APPEND`` mode. Holding the lock across the size check, the renames and the write is what lets
many processes share one run without losing or duplicating a record. The lock file is separate
from ``B`` because ``B`` itself is renamed away by rotation.

The run's folder may hold whatever a trace's author put there, so ``B`` and ``B.lock`` are opened
through :mod:`tracetui.record.safe_files` (no link followed, regular files of this user only, no
hang on a FIFO), and rotation refuses to shift a member that is not such a file. A ``B`` whose
last line was cut short (its writer was killed mid-write) gets a newline before the next record,
so the cut line stays one bad line instead of swallowing the record after it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from tracetui.record.safe_files import (
    check_existing,
    ends_mid_line,
    open_append,
    open_lock,
    write_all,
)

LOCK_SUFFIX = ".lock"


def lock_path(base: str) -> str:
    """The lock file every writer of ``base`` shares."""
    return base + LOCK_SUFFIX


def encode_line(record: Mapping[str, Any]) -> bytes:
    """One JSON Lines line (UTF-8, no spaces, trailing newline)."""
    return orjson.dumps(record) + b"\n"


OnDrop = Callable[[list[str], list[str]], None]
"""Told, before a rotation removes anything, ``(members dropped, members kept)`` as paths that
may not exist (the kept-output store forgets what only the dropped spans referred to)."""


def rotate(base: str, keep: int, on_drop: OnDrop | None = None) -> None:
    """Shift the set by one: drop ``B.{keep}``, ``B.{i}`` → ``B.{i+1}``, ``B`` → ``B.1``.

    Call with the lock held. gzip'd members (``B.{i}.gz``) shift along with the plain ones.
    With ``keep`` 0 there is no history: ``B`` is simply removed. Every member to be renamed is
    checked first (:class:`~tracetui.record.safe_files.UnsafeFile` for a link, a device, someone
    else's file…), so a refusal leaves the set as it was. ``on_drop`` is called after the checks.
    """
    moved = [base] if keep else []
    for suffix in ("", ".gz"):
        moved += [f"{base}.{i}{suffix}" for i in range(1, keep)]
    for path in moved:
        check_existing(path)
    if on_drop is not None:
        dropped = [f"{base}.{keep}", f"{base}.{keep}.gz"] if keep else [base]
        on_drop(dropped, moved)
    for suffix in ("", ".gz"):
        _remove(f"{base}.{keep}{suffix}" if keep else base)
        for i in range(keep - 1, 0, -1):
            _rename(f"{base}.{i}{suffix}", f"{base}.{i + 1}{suffix}")
    if keep:
        _rename(base, f"{base}.1")


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # a link is removed, never followed


def _rename(src: str, dst: str) -> None:
    with contextlib.suppress(FileNotFoundError):  # a gap in the set (a member deleted by hand)
        os.replace(src, dst)


def append_record(
    base: str | os.PathLike[str],
    record: Mapping[str, Any],
    max_bytes: int,
    keep: int,
    *,
    locked: Callable[[], None] | None = None,
    on_drop: OnDrop | None = None,
) -> int:
    """Append ``record`` as one line to ``base``, rotating first when it would not fit.

    A line bigger than ``max_bytes`` on its own still gets written, alone in a fresh ``B``.
    Returns the number of bytes written. Raises ``OSError`` when the file cannot be written,
    :class:`~tracetui.record.safe_files.UnsafeFile` when ``B`` or its lock must not be.
    ``locked`` is called with the lock held, before ``record`` is encoded (the recorder fills in
    its kept-output fields there, see :mod:`tracetui.record.kept`); ``on_drop`` goes to
    :func:`rotate`.
    """

    def line() -> bytes:
        if locked is not None:
            locked()
        return encode_line(record)

    return _append(os.fspath(base), line, max_bytes, keep, on_drop)


def append_line(base: str | os.PathLike[str], line: bytes, max_bytes: int, keep: int) -> int:
    """:func:`append_record` for an already encoded line (must end with a newline).

    The count returned includes the newline put first when ``B`` ended mid-line.
    """
    return _append(os.fspath(base), lambda: line, max_bytes, keep, None)


def _append(
    path: str, make_line: Callable[[], bytes], max_bytes: int, keep: int, on_drop: OnDrop | None
) -> int:
    if max_bytes <= 0 or keep < 0:
        raise ValueError("max_bytes must be > 0 and keep >= 0")
    lock_fd = open_lock(lock_path(path))
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        fd = open_append(path)
        try:
            line = make_line()
            size = os.fstat(fd).st_size
            first = b"\n" if size and ends_mid_line(fd) else b""
            if size and size + len(first) + len(line) > max_bytes:
                os.close(fd)
                fd = -1
                rotate(path, keep, on_drop)
                first = b""  # the cut line ends the rotated member as it is
                fd = open_append(path)
            return write_all(fd, first + line)
        finally:
            if fd >= 0:
                os.close(fd)
    finally:
        os.close(lock_fd)  # closing the descriptor releases the flock
