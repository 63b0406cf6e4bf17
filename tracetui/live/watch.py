"""Waking a follower when files change, cheaply: file-system events, or polling as a fallback.

A :class:`Waiter` blocks a follower loop until something in the watched folders may have
changed. On Linux :class:`InotifyWaiter` sleeps on inotify in the follower's own thread (no
wake-ups while nothing changes); elsewhere :class:`EventWaiter` runs ``watchfiles.watch``
(FSEvents, …) in a thread with a small debounce; :class:`PollWaiter` just sleeps, starting at 50 ms and backing off while idle so
an idle follower costs next to nothing. ``TRACETUI_POLL=1`` forces polling (network file systems,
containers where events do not arrive); a watcher that fails to start falls back to it too.

:class:`DirWatch` notices new run files appearing in a folder (the UI offers them).
:class:`FileState` and :func:`list_members` are how the follower recognises a member file: by
``(st_dev, st_ino)`` and by its first bytes (inode numbers are reused; copies keep content).
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import os
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from tracetui.live.inotify import Inotify
from tracetui.store.gz import gunzip_to
from tracetui.store.reader import open_regular
from tracetui.store.runset import RUN_SUFFIXES, SIDECAR_SUFFIX, split_member_name
from tracetui.store.temp_files import make_temp

POLL_MIN = 0.05
"""Seconds between polls while the run is active."""
POLL_MAX = 0.25
"""Longest sleep when idle: the worst-case delay before an idle run's next record shows."""
EVENT_SAFETY = 1.0
"""Even with file-system events, poll this often: events can be lost (overflow, odd mounts)."""
BATCH_WINDOW = 0.008
"""With inotify, while rows keep arriving: the pause before the next read, so lines come in
batches (a poll per line of a fast writer would cost more than the lines)."""


OUT_OF_HANDLES = (errno.EMFILE, errno.ENFILE)
"""``open`` failed for want of a file descriptor: nothing is known of the file itself."""

HEAD = 1024
"""Bytes of a file's start remembered to recognise its copies (copy-truncate, gzip)."""


@dataclass(slots=True, eq=False)
class FileState:
    """A member file the follower knows: how to recognise it and how far it was read."""

    path: str
    number: int
    gz: bool
    ident: tuple[int, int] | None
    """``(st_dev, st_ino)`` of the file itself (of the ``.gz`` for compressed members)."""
    head: bytes = b""
    """Its first bytes (decompressed), up to HEAD: of the live base never past what was
    consumed; of a finished file read when it is opened (the follower's catch-up)."""
    mno: int | None = None
    """Member number in the index; None until the file yields its first row."""
    size: int = 0
    """Bytes consumed (a partial last line is not consumed)."""
    lines: int = 0
    fh: IO[bytes] | None = None
    """Open handle while the file is read; kept across polls for the live base."""
    spooled: bool = False
    mtime: int = -1
    """Modification time at the last truncation check (live base only)."""
    """For gzip members: ``fh`` is our decompressed copy, not the .gz itself."""
    gone: bool = False

    def was_truncated(self, st: os.stat_result) -> bool:
        """Whether this live file (``st``: its fstat now) no longer holds what was read."""
        changed = st.st_mtime_ns != self.mtime
        self.mtime = st.st_mtime_ns
        if self.size == 0:
            return False
        if st.st_size < self.size:
            return True
        if not changed and st.st_size == self.size:
            return False
        # Written to: but is it the same content? A truncate followed by fast writes can leave
        # the file as long as (or longer than) what we consumed; its first bytes tell.
        assert self.fh is not None
        try:
            now = os.pread(self.fh.fileno(), len(self.head), 0)
        except OSError:
            return False
        return now != self.head

    def close(self) -> None:
        if self.fh is not None:
            with contextlib.suppress(OSError):
                self.fh.close()
            self.fh = None


def ident_of(st: os.stat_result) -> tuple[int, int]:
    return (st.st_dev, st.st_ino)


def same_start(a: bytes, b: bytes) -> bool:
    """One is a non-empty prefix of the other: the same content, one perhaps seen further."""
    n = min(len(a), len(b))
    return n > 0 and a[:n] == b[:n]


@dataclass(slots=True, eq=False)
class OnDisk:
    """A rotated file as listed during a scan, with the handle it was identified through."""

    path: str
    number: int
    gz: bool
    ident: tuple[int, int]
    head: bytes | None
    fh: IO[bytes] | None


def head_of(fh: IO[bytes], gz: bool) -> bytes | None:
    """First HEAD bytes (decompressed) read through an open handle; None when unreadable yet."""
    try:
        if gz:
            with gzip.GzipFile(fileobj=fh, mode="rb") as z:
                return z.read(HEAD)
        return fh.read(HEAD)
    except (OSError, EOFError, zlib.error):  # a gzip stream damaged in its first bytes
        return None


def read_head(path: str, gz: bool) -> bytes | None:
    """First HEAD bytes of a file (decompressed); None when it cannot be read (yet)."""
    try:
        with open_regular(path) as fh:
            if gz:
                with gzip.GzipFile(fileobj=fh, mode="rb") as z:
                    return z.read(HEAD)
            return fh.read(HEAD)
    except (OSError, EOFError, zlib.error):  # a gzip stream damaged in its first bytes
        return None


def spool(
    fh: IO[bytes],
    adopt: Callable[[str], None],
    note: Callable[[str], None] | None = None,
    name: str = "gzip member",
) -> IO[bytes]:
    """Decompress a gzip member to a temp file; ``adopt`` takes ownership of its path (the
    index's ``adopt_temp``: it is removed when the index closes). Decompression is bounded and
    keeps what precedes damage; ``note`` hears what was wrong, if anything."""
    fd, tmp = make_temp("gunzip", ".jsonl")
    adopt(tmp)
    with os.fdopen(fd, "wb") as out:
        done = gunzip_to(fh, out, name)
    if done.note and note is not None:
        note(done.note)
    return open(tmp, "rb", buffering=0)


LIST_TRIES = 8
"""Listings taken at most, one after another, until one was not overlapped by a rotation."""


def list_members(folder: str, base_name: str) -> tuple[list[OnDisk], bool]:
    """The rotated files of a run now, oldest first, each opened: its inode and first bytes come
    from the same open file. Also whether the listing is *stable*: nothing was renamed while it
    was taken (it is taken again, up to LIST_TRIES times, until so).

    Files are opened one name at a time: a rotation shifting ``B.1`` → ``B.2`` → ``B.3`` between
    two of those opens shows one file under two names (it would be read twice) and hides
    another (it would be read out of order). A listing counts only if every name it opened
    still names that file and the folder still holds the same names once it is done.
    """
    found, stable = _list_once(folder, base_name)
    tries = 1
    while not stable and tries < LIST_TRIES:
        for e in found:
            if e.fh is not None:
                e.fh.close()
        found, stable = _list_once(folder, base_name)
        tries += 1
    return sorted(found, key=lambda e: -e.number), stable


def _member_names(folder: str, base_name: str) -> list[tuple[str, int, bool]] | None:
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    out = []
    for name in names:
        # A member's name starts with its base: the other runs of a folder of thousands are
        # passed over with one string compare each, not a regular-expression parse.
        if not name.startswith(base_name):
            continue
        base, number, gz = split_member_name(name)
        if base == base_name and number > 0:
            out.append((os.path.join(folder, name) if folder != os.curdir else name, number, gz))
    return out


def _list_once(folder: str, base_name: str) -> tuple[list[OnDisk], bool]:
    names = _member_names(folder, base_name)
    if names is None:
        return [], True
    found = []
    stable = True
    for path, number, gz in names:
        try:
            fh = open_regular(path)  # the caller closes it after matching
        except FileNotFoundError:
            stable = False  # renamed away since the folder was read
            continue
        except OSError as exc:
            if exc.errno in OUT_OF_HANDLES:
                stable = False  # not a verdict on the file: it may be there all the same
            continue
        found.append(OnDisk(path, number, gz, ident_of(os.fstat(fh.fileno())), head_of(fh, gz), fh))
    if not stable:
        return found, False
    for e in found:
        try:
            if ident_of(os.stat(e.path)) != e.ident:
                return found, False
        except OSError:
            return found, False
    again = _member_names(folder, base_name)
    return found, again is not None and sorted(again) == sorted(names)


class Waiter:
    """Blocks until the watched folders may have changed (or a timeout passes)."""

    def wait(self, *, busy: bool = False, paused: bool = False) -> None:
        raise NotImplementedError

    def close(self) -> None:
        """Release threads and handles; a later ``wait`` returns at once."""


class PollWaiter(Waiter):
    """Sleep-based: 50 ms while records arrive, backing off to POLL_MAX when idle."""

    def __init__(self) -> None:
        self.delay = POLL_MIN
        self._closed = threading.Event()

    def wait(self, *, busy: bool = False, paused: bool = False) -> None:
        if busy or paused:
            self.delay = POLL_MIN
        else:
            self.delay = min(POLL_MAX, self.delay * 1.5)
        self._closed.wait(self.delay)

    def close(self) -> None:
        self._closed.set()


class EventWaiter(Waiter):
    """``watchfiles.watch`` in a daemon thread sets an event on every batch of changes."""

    def __init__(self, folders: list[str], *, debounce_ms: int = 15, step_ms: int = 10) -> None:
        import watchfiles  # imported here: polling users never pay for it

        self._changed = threading.Event()
        self._ready = threading.Event()
        self._stop = threading.Event()
        self.failed: BaseException | None = None
        self._fallback = PollWaiter()
        folders = sorted({os.path.abspath(f) for f in folders})

        def run() -> None:
            try:
                for _changes in watchfiles.watch(
                    *folders,
                    watch_filter=None,
                    debounce=debounce_ms,
                    step=step_ms,
                    stop_event=self._stop,
                    rust_timeout=500,
                    yield_on_timeout=True,
                    recursive=False,
                    raise_interrupt=False,
                ):
                    self._ready.set()
                    if _changes:
                        self._changed.set()
            except BaseException as exc:
                self.failed = exc
            finally:
                self._ready.set()
                self._changed.set()

        self._thread = threading.Thread(target=run, name="tracetui-watch", daemon=True)
        self._thread.start()

    def wait(self, *, busy: bool = False, paused: bool = False) -> None:
        if self.failed is not None or self._stop.is_set():
            self._fallback.wait(busy=busy, paused=paused)
            return
        if paused:
            timeout = POLL_MIN  # the consumer is catching up: look again soon
        elif not self._ready.is_set():
            timeout = POLL_MIN  # changes before the watcher was up would be missed
        else:
            timeout = EVENT_SAFETY
        self._changed.wait(timeout)
        self._changed.clear()

    def close(self) -> None:
        self._stop.set()
        self._changed.set()
        self._fallback.close()


class InotifyWaiter(Waiter):
    """Linux: the follower's thread itself sleeps on inotify; no watcher thread, no debounce.

    While rows keep arriving (``busy``) it waits BATCH_WINDOW before looking, so a writer
    appending thousands of lines a second is read in batches, not a line per wake-up.
    """

    def __init__(self, folders: list[str]) -> None:
        self._watch = Inotify(sorted({os.path.abspath(f) for f in folders}))
        self._fallback = PollWaiter()
        self._closing = threading.Event()

    def wait(self, *, busy: bool = False, paused: bool = False) -> None:
        if self._watch.closed:
            self._fallback.wait(busy=busy, paused=paused)
            return
        if busy:
            self._closing.wait(BATCH_WINDOW)
        self._watch.wait(POLL_MIN if paused else EVENT_SAFETY)

    def close(self) -> None:
        self._closing.set()
        self._watch.close()
        self._fallback.close()


def make_waiter(folders: list[str]) -> Waiter:
    """Events when available (inotify on Linux, else ``watchfiles``), polling when
    ``TRACETUI_POLL=1`` or no watcher can start."""
    if os.environ.get("TRACETUI_POLL", "") not in ("", "0"):
        return PollWaiter()
    with contextlib.suppress(OSError):
        return InotifyWaiter(folders)
    try:
        return EventWaiter(folders)
    except Exception:
        return PollWaiter()


def run_bases(folder: str) -> set[str]:
    """Paths of the run base files in ``folder`` (the same rule as opening a directory)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return set()
    bases = set()
    for name in names:
        base = split_member_name(name)[0]
        if base.endswith(RUN_SUFFIXES) and not base.endswith(SIDECAR_SUFFIX):
            bases.add(os.path.join(folder, base) if folder != os.curdir else base)
    return bases


class DirWatch:
    """Reports run files that appear in ``folder`` after it started (once each)."""

    def __init__(
        self, folder: str, on_new_run: Callable[[str], None], known: set[str] | None = None
    ) -> None:
        self.folder = folder
        self.on_new_run = on_new_run
        self.known = run_bases(folder) if known is None else set(known)
        """Bases not to report: those present at the start, or the ``known`` given."""
        self._mtime = self._stat()
        self._last = time.monotonic()

    def _stat(self) -> int:
        try:
            return os.stat(self.folder).st_mtime_ns
        except OSError:
            return -1

    def poll(self) -> list[str]:
        """New run bases since the last call (also passed to ``on_new_run``)."""
        mtime = self._stat()
        now = time.monotonic()
        # Folder mtimes are coarse (a few ms): an unchanged one is re-checked now and then.
        if mtime == self._mtime and now - self._last < 2.0:
            return []
        self._mtime, self._last = mtime, now
        new = sorted(run_bases(self.folder) - self.known)
        for path in new:
            self.known.add(path)
            self.on_new_run(path)
        return new
