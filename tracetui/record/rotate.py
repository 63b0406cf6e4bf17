"""Locked append and rotation of a run's base file (SPEC §3).

Every writer takes an exclusive ``flock`` on ``B.lock`` (next to the base ``B``), rotates if the
next line would push ``B`` past ``max_bytes``, then appends the whole line with one ``os.write`` in
``O_APPEND`` mode. Holding the lock across the size check, the renames and the write is what lets
many processes share one run without losing or duplicating a record. The lock file is separate
from ``B`` because ``B`` itself is renamed away by rotation.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Mapping
from typing import Any

import orjson

LOCK_SUFFIX = ".lock"


def lock_path(base: str) -> str:
    """The lock file every writer of ``base`` shares."""
    return base + LOCK_SUFFIX


def encode_line(record: Mapping[str, Any]) -> bytes:
    """One JSON Lines line (UTF-8, no spaces, trailing newline)."""
    return orjson.dumps(record) + b"\n"


def rotate(base: str, keep: int) -> None:
    """Shift the set by one: drop ``B.{keep}``, ``B.{i}`` → ``B.{i+1}``, ``B`` → ``B.1``.

    Call with the lock held. gzip'd members (``B.{i}.gz``) shift along with the plain ones.
    With ``keep`` 0 there is no history: ``B`` is simply removed.
    """
    for suffix in ("", ".gz"):
        _remove(f"{base}.{keep}{suffix}" if keep else base)
        for i in range(keep - 1, 0, -1):
            _rename(f"{base}.{i}{suffix}", f"{base}.{i + 1}{suffix}")
    if keep:
        _rename(base, f"{base}.1")


def _remove(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _rename(src: str, dst: str) -> None:
    with contextlib.suppress(FileNotFoundError):  # a gap in the set (a member deleted by hand)
        os.replace(src, dst)


def append_record(
    base: str | os.PathLike[str], record: Mapping[str, Any], max_bytes: int, keep: int
) -> int:
    """Append ``record`` as one line to ``base``, rotating first when it would not fit.

    A line bigger than ``max_bytes`` on its own still gets written, alone in a fresh ``B``.
    Returns the number of bytes written. Raises ``OSError`` when the file cannot be written.
    """
    return append_line(base, encode_line(record), max_bytes, keep)


def append_line(base: str | os.PathLike[str], line: bytes, max_bytes: int, keep: int) -> int:
    """:func:`append_record` for an already encoded line (must end with a newline)."""
    if max_bytes <= 0 or keep < 0:
        raise ValueError("max_bytes must be > 0 and keep >= 0")
    path = os.fspath(base)
    lock_fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        try:
            size = os.stat(path).st_size
        except FileNotFoundError:
            size = 0
        if size and size + len(line) > max_bytes:
            rotate(path, keep)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = os.write(fd, line)
            while written < len(line):  # a short write on a regular file is rare (disk full)
                written += os.write(fd, line[written:])
        finally:
            os.close(fd)
        return written
    finally:
        os.close(lock_fd)  # closing the descriptor releases the flock
