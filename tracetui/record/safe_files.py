"""Opening the files tracetui writes: the ones beside a trace, and the ones a user names.

A trace folder is untrusted input: anyone who could hand the user a trace could also have put a
symbolic link, a FIFO or a device where tracetui keeps its own files. So every file tracetui
creates or appends to next to a trace (the run's base file and its ``.lock``, the re-run
sidecar ``B.reruns.jsonl`` and its lock, rotated members) goes through :func:`open_append` or
:func:`open_lock`:

* the last step of the path is never followed (``O_NOFOLLOW``), and a new file is made with
  ``O_CREAT | O_EXCL``, so neither a link nor a race swaps another file in;
* the file must be a regular file owned by this user, checked with ``fstat`` on the descriptor
  we will write through (an existing name is also checked with ``lstat`` first, so a device is
  refused without ever being opened);
* the open never blocks (``O_NONBLOCK``): a planted FIFO is refused at once instead of hanging;
* a file with more than one hard link is refused too, since writing it changes another name.

Anything else raises :class:`UnsafeFile`, an ``OSError`` whose message names the file.

Outputs the user names on the command line (``export --otlp-json X``, ``report -o X``) are
different: the user chose them, so :func:`output_file` treats them the way a shell's ``>`` does.
``-`` is stdout, a device or FIFO is written through, a symbolic link is followed; a regular
file (or a new name) gets a temp file in the same folder renamed over it, keeping the old file's
mode, so nobody ever reads half a document. :func:`create_new` makes a file under a name that
must not exist yet (the viewer's report export).

This module imports nothing from tracetui, so any layer may use it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import stat
from collections.abc import Iterator
from typing import BinaryIO

_OPEN_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_FILE_MODE = 0o644
_ATTEMPTS = 20
"""Tries when the name keeps appearing and vanishing under us (other writers, a rotation)."""

_KINDS = (
    (stat.S_ISLNK, "a symbolic link (tracetui never follows a link beside a trace)"),
    (stat.S_ISFIFO, "a FIFO, not a regular file"),
    (stat.S_ISCHR, "a character device, not a regular file"),
    (stat.S_ISBLK, "a block device, not a regular file"),
    (stat.S_ISSOCK, "a socket, not a regular file"),
    (stat.S_ISDIR, "a directory, not a regular file"),
)


class UnsafeFile(OSError):
    """A file tracetui refuses to write: not a regular file of this user, or reached by a link.

    ``str()`` is one plain line, ``PATH: refused, it is …``; ``filename`` is the path and
    ``strerror`` the part after it, so the entry point reports it like any OSError (exit 2).
    """

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(errno.EPERM, f"refused, it is {problem}", path)

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def problem_with(st: os.stat_result, *, single_link: bool = True) -> str | None:
    """Why a file with this ``lstat``/``fstat`` result must not be written; None when it may."""
    for test, what in _KINDS:
        if test(st.st_mode):
            return what
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_uid != os.geteuid():
        return f"owned by uid {st.st_uid}, not by this user (uid {os.geteuid()})"
    if single_link and st.st_nlink > 1:
        return f"a file with {st.st_nlink} hard links (writing it would change another name too)"
    return None


def check_existing(path: str | os.PathLike[str], *, single_link: bool = True) -> None:
    """Raise :class:`UnsafeFile` when ``path`` exists and must not be written; never opens it.

    For a check before the real work (``tracetui run`` refuses before running the command); the
    open itself is checked again, so a name swapped in between is still refused.
    """
    name = os.fspath(path)
    try:
        st = os.lstat(name)
    except FileNotFoundError:
        return
    problem = problem_with(st, single_link=single_link)
    if problem is not None:
        raise UnsafeFile(name, problem)


def _open_checked(path: str, access: int, *, single_link: bool) -> int:
    """Open or create ``path`` for ``access`` without following a link; checked as above."""
    for _ in range(_ATTEMPTS):
        # Looked at before opening: opening a device can have effects of its own.
        try:
            st: os.stat_result | None = os.lstat(path)
        except FileNotFoundError:
            st = None
        if st is not None:
            problem = problem_with(st, single_link=single_link)
            if problem is not None:
                raise UnsafeFile(path, problem)
        try:
            if st is None:
                fd = os.open(path, access | _OPEN_FLAGS | os.O_CREAT | os.O_EXCL, _FILE_MODE)
            else:
                fd = os.open(path, access | _OPEN_FLAGS)
        except (FileExistsError, FileNotFoundError):
            continue  # made or removed meanwhile (another writer, a rotation): look again
        except OSError as exc:
            # O_NOFOLLOW met a link, or a FIFO with no reader: something was swapped in.
            swapped = _swapped_in(path, single_link) if exc.errno in _SWAP_ERRNOS else None
            if swapped is not None:
                raise UnsafeFile(path, swapped) from None
            raise
        try:
            problem = problem_with(os.fstat(fd), single_link=single_link)
            if problem is not None:
                raise UnsafeFile(path, problem)
            # Regular files ignore O_NONBLOCK; cleared all the same so writes behave as usual.
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        except BaseException:
            os.close(fd)
            raise
        return fd
    raise OSError(errno.EAGAIN, "the file kept changing while it was being opened", path)


_SWAP_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK, errno.ENXIO})


def _swapped_in(path: str, single_link: bool) -> str | None:
    try:
        return problem_with(os.lstat(path), single_link=single_link)
    except OSError:
        return None


def open_append(path: str | os.PathLike[str]) -> int:
    """A descriptor to append to ``path`` (created when missing), readable for :func:`ends_mid_line`.

    Raises :class:`UnsafeFile` for a link, a FIFO, a device, someone else's file or a file with
    several hard links; other ``OSError`` as ``os.open`` would.
    """
    return _open_checked(os.fspath(path), os.O_RDWR | os.O_APPEND, single_link=True)


def open_lock(path: str | os.PathLike[str]) -> int:
    """A descriptor of the lock file ``path`` (created when missing) to ``flock``.

    Nothing is ever written to a lock, so a hard link is harmless; the other refusals hold.
    """
    return _open_checked(os.fspath(path), os.O_RDWR, single_link=False)


def ends_mid_line(fd: int) -> bool:
    """True when the file is not empty and its last byte is not a newline (a writer was killed)."""
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


def write_all(fd: int, data: bytes) -> int:
    """Write all of ``data`` (a short write on a regular file is rare: disk full); its length."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    return len(data)


# ------------------------------------------------------------------ outputs the user names
@contextlib.contextmanager
def output_file(path: str, stdout: BinaryIO | None = None) -> Iterator[BinaryIO]:
    """A binary file to write the output the user named ``path`` to, the way ``>`` would.

    * ``-``: ``stdout`` (flushed at the end, never closed);
    * an existing device, FIFO or other non-regular file: opened and written through, no temp
      and no rename (``/dev/null`` stays a device; a FIFO blocks until a reader comes, like ``>``);
    * a symbolic link: followed, as ``>`` follows it (the user named it);
    * a regular file or a new name: written to a temp file in the same folder, then renamed over
      it, so a reader sees the old file or the whole new one; the old file's mode is kept.

    On any error (and on Ctrl-C) the temp file is removed and the target left as it was.
    """
    if path == "-":
        if stdout is None:
            raise ValueError("'-' means stdout, but no stdout was given")
        yield stdout
        stdout.flush()
        return
    target = os.path.realpath(path)
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(target, "wb", buffering=1 << 16) as through:
            yield through
        return
    tmp = f"{target}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    try:
        if st is not None:
            os.fchmod(fd, stat.S_IMODE(st.st_mode))
        with os.fdopen(fd, "wb", buffering=1 << 16) as fh:
            fd = -1  # the file object owns it now
            yield fh
        os.replace(tmp, target)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def create_new(path: str, data: bytes, mode: int = _FILE_MODE) -> None:
    """Write ``data`` to a new file ``path``; ``FileExistsError`` if the name is taken (a link too).

    The name is claimed with ``O_CREAT | O_EXCL``, so nothing already there, not even a dangling
    link, is ever written; a failed write removes the half-written file.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    try:
        write_all(fd, data)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    os.close(fd)
