"""Crash reports: a bug ends as one line on stderr naming a file that holds its traceback.

A crash must never look like success, and its traceback does not belong on the user's terminal
(it is noise there, and it may quote trace text). The report goes to the user's state folder,
``$XDG_STATE_HOME/tracetui/`` (``~/.local/state/tracetui/`` by default), or to the temp folder
when that folder cannot be made or is not privately the user's.

The file is always a new one: ``O_CREAT|O_EXCL|O_NOFOLLOW``, mode 0600, opened relative to the
folder's own descriptor (itself opened with ``O_NOFOLLOW``), so a planted link, at the folder or
at the file's name, is never written through. The name holds only the time and the process id
(plus a random suffix when taken): nothing from a trace chooses where a report goes. Locals are
left out of the traceback on purpose; they may hold secrets from a trace.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import json
import os
import secrets
import sys
import tempfile
import traceback
from collections.abc import Sequence

from tracetui import __version__
from tracetui.model.text import neutralize

DEPENDENCIES = ("textual", "rich", "orjson")
"""The libraries whose versions a report names (a crash inside Textual depends on them)."""

_NAME_ATTEMPTS = 8
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def state_dir() -> str:
    """The folder crash reports go to first (it may not exist yet)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):  # the XDG spec: a relative value is to be ignored
        base = os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "tracetui")


def _version(name: str) -> str:
    from importlib import metadata  # only when a report is written: it costs every start 20 ms

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def report_text(error: BaseException, argv: Sequence[str], when: datetime.datetime) -> str:
    """The report: what ran, on what, and the traceback (with its causes); secrets redacted."""
    import platform

    from tracetui.record.redact import Redactor  # only when a report is written: imports stay cheap

    redactor = Redactor()
    try:
        trace = "".join(traceback.format_exception(error))
    except Exception as exc:  # a hostile __str__ must not cost the whole report
        trace = f"{type(error).__name__} (its traceback could not be formatted: {exc!r})\n"
    head = [
        "tracetui crash report: a bug. Please attach this file when you report it.",
        "",
        f"time: {when.isoformat(timespec='seconds')}",
        f"tracetui: {__version__}",
        f"python: {platform.python_implementation()} {platform.python_version()} ({sys.executable})",
        *(f"{name}: {_version(name)}" for name in DEPENDENCIES),
        f"platform: {platform.platform()}",
        f"argv: {json.dumps(redactor.redact_argv(list(argv))[0])}",  # `run --note`, `-- … --password x`
    ]
    # Exception messages may quote a trace: no escape sequence survives into the file either, and
    # no secret the recorder would have redacted.
    return redactor.redact_text(neutralize("\n".join(head) + "\n\n" + trace))


def write_report(error: BaseException, argv: Sequence[str]) -> str:
    """Write a crash report for ``error``; return its path. OSError when no folder takes it."""
    now = datetime.datetime.now().astimezone()
    data = report_text(error, argv, now).encode("utf-8", "backslashreplace")
    stem = f"{now.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    problem: OSError | None = None
    for opener, prefix in ((_open_state_dir, "crash"), (_open_temp_dir, "tracetui-crash")):
        try:
            folder, fd = opener()
        except OSError as exc:
            problem = exc
            continue
        try:
            return os.path.join(folder, _create(fd, f"{prefix}-{stem}", data))
        except OSError as exc:
            problem = exc
        finally:
            os.close(fd)
    assert problem is not None
    raise problem


def _open_state_dir() -> tuple[str, int]:
    """The state folder, made if need be, opened without following a link at its last step."""
    path = state_dir()
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    fd = os.open(path, _FOLDER | os.O_NOFOLLOW)
    st = os.fstat(fd)
    # Someone else's folder, or one others may write in, is not a private place for a report.
    if st.st_uid != os.geteuid() or st.st_mode & 0o022:
        os.close(fd)
        raise PermissionError(errno.EPERM, "not a private folder of this user", path)
    return path, fd


def _open_temp_dir() -> tuple[str, int]:
    path = tempfile.gettempdir()
    return path, os.open(path, _FOLDER)


def _create(folder_fd: int, stem: str, data: bytes) -> str:
    """Create a new file in the folder and write ``data``; its name. Never opens an old file."""
    for attempt in range(_NAME_ATTEMPTS):
        # A taken name (the same second, or a file planted in the temp folder) gets a random
        # suffix rather than a counter: a planter cannot guess it in advance.
        name = f"{stem}.txt" if attempt == 0 else f"{stem}-{secrets.token_hex(4)}.txt"
        try:
            fd = os.open(name, _NEW_FILE, 0o600, dir_fd=folder_fd)
        except FileExistsError:
            continue
        try:
            os.fchmod(fd, 0o600)  # whatever the umask left
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except OSError:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=folder_fd)  # no half-written report left behind
            raise
        os.close(fd)
        return name
    raise FileExistsError(errno.EEXIST, "no free name for a crash report", stem)
