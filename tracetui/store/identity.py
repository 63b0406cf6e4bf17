"""A member's identity: what tells its file apart from any other, and from itself after a change.

Device, inode, size, ``mtime_ns`` and a hash of the first and last KiB: the persistent index
(:mod:`tracetui.store.cache`) keys each member's rows by it, and a build notes each member's
identity before reading it (``RunIndex.built_from``), so a reader of the finished index can tell
whether the bytes indexed are still there (:func:`changed_since_built`: lint trusts its row marks
only then).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tracetui.store.index import RunIndex

SPAN = 1024
"""Bytes hashed at each end of a member."""


@dataclass(frozen=True, slots=True)
class Identity:
    """What tells a member's file apart from any other, and from itself after a change."""

    dev: int
    ino: int
    size: int
    mtime_ns: int
    head: str
    """Hash of the first ``min(SPAN, size)`` bytes."""
    tail: str
    """Hash of the last ``min(SPAN, size)`` bytes."""
    ends_line: bool
    """The file is empty or ends with a newline (an append then starts a new line)."""

    def as_list(self) -> list[Any]:
        return [self.dev, self.ino, self.size, self.mtime_ns, self.head, self.tail, self.ends_line]


def hash_range(fd: int, start: int, stop: int) -> str:
    """The hash of bytes ``[start, stop)`` of ``fd`` (an identity's head and tail)."""
    return hashlib.blake2b(os.pread(fd, stop - start, start), digest_size=16).hexdigest()


def identity_of(fd: int) -> Identity:
    """The identity of the open file ``fd``."""
    st = os.fstat(fd)
    size = st.st_size
    last = os.pread(fd, 1, size - 1) if size else b"\n"
    return Identity(
        st.st_dev,
        st.st_ino,
        size,
        st.st_mtime_ns,
        hash_range(fd, 0, min(SPAN, size)),
        hash_range(fd, max(0, size - SPAN), size),
        last == b"\n",
    )


def open_member(path: str) -> int | None:
    """A read descriptor of a regular file at ``path`` (links followed, as runs are), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError:
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def identify(path: str) -> Identity | None:
    """The identity of the regular file at ``path``; None when there is none to read."""
    fd = open_member(path)
    if fd is None:
        return None
    try:
        return identity_of(fd)
    except OSError:
        return None
    finally:
        os.close(fd)


def unchanged_since(path: str, before: Identity | None) -> bool:
    """Whether the file at ``path`` still holds the bytes ``before`` identified: the same file
    as it was, or longer with its old ends unchanged (an append, an unfinished last line
    finished included: the bytes indexed of it are still there). False when either is unknown."""
    if before is None:
        return False
    fd = open_member(path)
    if fd is None:
        return False
    try:
        now = identity_of(fd)
        return now == before or _longer_with_old_ends(fd, now, before)
    except OSError:
        return False
    finally:
        os.close(fd)


def changed_since_built(index: RunIndex) -> bool:
    """Whether some member of ``index`` is no longer the file its rows were read from, as it
    was or appended to (rewritten, replaced, truncated since): its bytes now may not be the ones
    indexed. False when the build noted no identities (an imported trace, a follower's index)."""
    built, members = index.built_from, index.run.members
    if built is None:
        return False
    return len(built) != len(members) or not all(
        isinstance(b, Identity) and unchanged_since(m.path, b)
        for m, b in zip(members, built, strict=True)
    )


def grew_from(fd: int, now: Identity, old: Identity) -> bool:
    """``now`` is ``old`` with lines appended: same file, longer, its old ends unchanged, its
    old end a line's (an append then starts a new line: the old rows are whole)."""
    return old.ends_line and _longer_with_old_ends(fd, now, old)


def _longer_with_old_ends(fd: int, now: Identity, old: Identity) -> bool:
    """``now`` (the file open as ``fd``) is ``old``'s file, longer, its first and last KiB at
    their old offsets unchanged."""
    return (
        (now.dev, now.ino) == (old.dev, old.ino)
        and now.size > old.size
        and hash_range(fd, 0, min(SPAN, old.size)) == old.head
        and hash_range(fd, max(0, old.size - SPAN), old.size) == old.tail
    )
