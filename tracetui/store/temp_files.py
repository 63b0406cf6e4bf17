"""tracetui's named temp files: in a private folder, named for the process that made them, swept.

A foreign trace is converted to a temporary JSONL before it is indexed (:mod:`tracetui.store.build`).
The index removes it when it closes, but a ``kill -9`` (or a power cut) removes nothing, and a
plain ``tracetui-import-XXXX.jsonl`` in the shared temp folder says neither whose it is nor
whether its maker still runs. So these files are made by :func:`make_temp` in a folder of this
user's own, ``$TMPDIR/tracetui-<uid>/`` (mode 700, owned by this user, not a link), named
``<kind>-<pid namespace>-<pid>-<random><suffix>``. :func:`sweep_stale` (run once per process,
before the first such file is made, and at the start of the commands that index) removes the
ones whose maker is gone.

Safety of the sweep: it only looks inside that private folder (opened without following a link
and checked again once open), only at names of the shape above made in this pid namespace (a pid
means nothing in another one), skips a pid that is alive (or may be: a pid the kernel will not
let us signal), and removes only a regular file of this user; it never follows a link (the entry
is examined with ``lstat`` and removed by name inside the opened folder). A folder that is not
ours makes :func:`make_temp` fall back to the shared temp folder as before, with no sweep.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile

PREFIX = "tracetui-"
"""How the private folder's name starts (then the user id)."""
_NAME = re.compile(r"(?P<kind>[a-z]+)-(?P<ns>\d+)-(?P<pid>\d+)-[a-z0-9_]+\.[a-z]+")
_swept = False


def folder_path() -> str:
    """Where this user's private temp folder is (it may not exist yet)."""
    return os.path.join(tempfile.gettempdir(), f"{PREFIX}{os.getuid()}")


def _pid_namespace() -> int:
    """An id of this process's pid namespace (the inode of its ``/proc`` entry), 0 if unknown."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def _ours(st: os.stat_result) -> bool:
    """A folder of this user's that no one else may write or read."""
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def private_folder(create: bool = True) -> str | None:
    """The private temp folder, made (mode 700) when ``create`` and absent; None when the path
    is anything but a folder of this user's closed to others (a link, someone else's, open)."""
    path = folder_path()
    if create:
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass  # checked below like any folder found there
        except OSError:
            return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return path if _ours(st) else None


def make_temp(kind: str, suffix: str) -> tuple[int, str]:
    """``(fd, path)`` of a new temp file (mode 600) named for this process; the caller removes it.

    ``kind`` is a lowercase word (``import``). Stale files of dead processes are swept first,
    once per process.
    """
    if not _swept:
        sweep_stale()
    folder = private_folder()
    if folder is None:  # the private folder is refused: the shared temp folder, unswept
        return tempfile.mkstemp(prefix=f"{PREFIX}{kind}-", suffix=suffix)
    prefix = f"{kind}-{_pid_namespace()}-{os.getpid()}-"
    return tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # e.g. EPERM: a process is there, someone else's
    return True


def sweep_stale() -> list[str]:
    """Remove the temp files whose making process is gone; the names removed (never raises)."""
    global _swept
    _swept = True
    removed: list[str] = []
    folder = private_folder(create=False)
    if folder is None:
        return removed
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return removed
    try:
        if not _ours(os.fstat(dfd)):  # swapped between the check and the open
            return removed
        ns, me = _pid_namespace(), os.getpid()
        with os.scandir(dfd) as entries:
            names = [e.name for e in entries]
        for name in names:
            m = _NAME.fullmatch(name)
            if m is None or int(m["ns"]) != ns:
                continue
            pid = int(m["pid"])
            if pid == me or _alive(pid):
                continue
            try:
                st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
                if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid():
                    os.unlink(name, dir_fd=dfd)
                    removed.append(name)
            except OSError:
                continue  # gone meanwhile, or not ours to remove
    except OSError:
        pass
    finally:
        os.close(dfd)
    return removed
