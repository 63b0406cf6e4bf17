"""The files of the persistent index (:mod:`tracetui.store.cache`): where they live, how they
are read and written, and the bound on their total size.

The folder is ``$XDG_CACHE_HOME/tracetui/index`` (``~/.cache/tracetui/index`` when the variable
is unset or not absolute, as the XDG spec says). tracetui makes ``tracetui/`` and ``index/``
itself, mode 0700, and uses them only when each is a real directory (not a link) owned by this
user and writable by no one else; otherwise the cache is off for the process.

Every file is opened with ``O_NOFOLLOW`` and checked on its descriptor (a regular file of this
user, no bigger than the cap), read in one bounded read, and written as a new temp file
(``O_CREAT | O_EXCL | O_NOFOLLOW``, mode 0600) renamed over the old name: a link planted at a
cache path is never followed, and a reader sees a whole old file or a whole new one. This
module imports nothing from tracetui.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import stat
import time

log = logging.getLogger("tracetui.cache")

DEFAULT_CAP_MB = 512
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP_AGE = 600
"""Seconds after which a temp file left by a killed writer is removed by the next sweep."""

_folders: dict[str, str | None] = {}
"""XDG_CACHE_HOME → the index folder checked in it (None: unusable), once per process."""
_totals: dict[str, int] = {}
"""Folder → bytes it holds, as last swept plus what this process wrote since."""


def size_cap() -> int:
    """The most the cache may hold, in bytes (``TRACETUI_CACHE_MAX_MB``, default 512)."""
    raw = os.environ.get("TRACETUI_CACHE_MAX_MB", "")
    try:
        mb = int(raw) if raw else DEFAULT_CAP_MB
    except ValueError:
        mb = DEFAULT_CAP_MB
    return max(0, mb) << 20


def cache_folder() -> str | None:
    """The index folder, made if needed; None when it is missing, unsafe or cannot be made.
    Checked once per process and folder (a folder of thousands of runs asks for each run)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    if base not in _folders:
        _folders[base] = _make_folder(base)
    return _folders[base]


def _make_folder(base: str) -> str | None:
    root = os.path.join(base, "tracetui")
    folder = os.path.join(root, "index")
    try:
        os.makedirs(base, exist_ok=True)
        for path in (root, folder):
            with contextlib.suppress(FileExistsError):
                os.mkdir(path, 0o700)
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid() or st.st_mode & 0o022:
                log.debug("cache off: %s is not a private directory of this user", path)
                return None
    except OSError as exc:
        log.debug("cache off: %s", exc)
        return None
    return folder


def read_bounded(path: str, cap: int) -> bytes | None:
    """The whole file at ``path`` if it is a regular file of this user of at most ``cap``
    bytes, reached without a link; else None (absent, a link, too big, unreadable)."""
    try:
        fd = os.open(path, _READ)
    except OSError as exc:
        if not isinstance(exc, FileNotFoundError):
            log.debug("cache file %s not read: %s", path, exc)
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid() or st.st_size > cap:
            log.debug("cache file %s ignored: not a regular file of this user under the cap", path)
            return None
        data = os.read(fd, st.st_size + 1)
        while len(data) <= st.st_size:  # os.read may return less than asked for
            more = os.read(fd, st.st_size + 1 - len(data))
            if not more:
                break
            data += more
        if len(data) != st.st_size:
            log.debug("cache file %s ignored: changed while read", path)
            return None
        return data
    except OSError as exc:
        log.debug("cache file %s not read: %s", path, exc)
        return None
    finally:
        os.close(fd)


def touch(path: str) -> None:
    """Mark an entry as just used (the sweep removes the least recently used first)."""
    with contextlib.suppress(OSError):
        os.utime(path, follow_symlinks=False)


def atomic_write(path: str, chunks: list[bytes | memoryview]) -> bool:
    """Write ``chunks`` as the file ``path`` (temp file + rename); False when not written."""
    total = sum(len(c) for c in chunks)
    cap = size_cap()
    if total > cap // 2:
        log.debug("cache entry %s not written: %d bytes, over half the cap", path, total)
        return False
    folder = os.path.dirname(path)
    temp = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(temp, _WRITE, 0o600)
    except OSError as exc:
        log.debug("cache entry %s not written: %s", path, exc)
        return False
    try:
        with os.fdopen(fd, "wb") as out:
            for chunk in chunks:
                out.write(chunk)
        os.replace(temp, path)  # replaces a link planted at ``path``, never writes through it
    except OSError as exc:
        log.debug("cache entry %s not written: %s", path, exc)
        with contextlib.suppress(OSError):
            os.unlink(temp)
        return False
    _account(folder, total, cap)
    return True


def _account(folder: str, written: int, cap: int) -> None:
    """Add a write to the folder's total; sweep when the total may be over the cap (and once
    per process, to learn the total): no listing of the folder per write."""
    total = _totals.get(folder)
    if total is not None and total + written <= cap:
        _totals[folder] = total + written
        return
    _totals[folder] = sweep(folder, cap)


def sweep(folder: str, cap: int) -> int:
    """Remove the least recently used entries until the folder holds at most ``cap`` bytes
    (and stale temp files); returns the bytes left."""
    entries: list[tuple[int, int, str]] = []
    now = time.time()
    try:
        with os.scandir(folder) as it:
            for e in it:
                with contextlib.suppress(OSError):
                    st = e.stat(follow_symlinks=False)
                    if e.name.endswith(".tmp"):
                        if now - st.st_mtime > _TEMP_AGE:
                            os.unlink(e.path)
                        continue
                    entries.append((st.st_mtime_ns, st.st_size, e.path))
    except OSError as exc:
        log.debug("cache folder %s not swept: %s", folder, exc)
        return 0
    total = sum(size for _t, size, _p in entries)
    for _mtime, size, path in sorted(entries):
        if total <= cap:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            total -= size
            log.debug("cache entry %s removed (least recently used)", path)
    return total
