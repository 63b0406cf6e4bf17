"""Waking a follower when files change, cheaply: file-system events, or polling as a fallback.

A :class:`Waiter` blocks a follower loop until something in the watched folders may have
changed. :class:`EventWaiter` runs ``watchfiles.watch`` (inotify, FSEvents, …) in a thread with a
small debounce; :class:`PollWaiter` just sleeps, starting at 50 ms and backing off while idle so
an idle follower costs next to nothing. ``TRACETUI_POLL=1`` forces polling (network file systems,
containers where events do not arrive); a watcher that fails to start falls back to it too.

:class:`DirWatch` notices new run files appearing in a folder (the UI offers them).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from tracetui.core.runset import RUN_SUFFIXES, SIDECAR_SUFFIX, split_member_name

POLL_MIN = 0.05
"""Seconds between polls while the run is active."""
POLL_MAX = 0.25
"""Longest sleep when idle: the worst-case delay before an idle run's next record shows."""
EVENT_SAFETY = 1.0
"""Even with file-system events, poll this often: events can be lost (overflow, odd mounts)."""


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
            except BaseException as exc:  # noqa: BLE001 - any failure means: poll instead
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


def make_waiter(folders: list[str]) -> Waiter:
    """Events when available, polling when ``TRACETUI_POLL=1`` or the watcher cannot start."""
    if os.environ.get("TRACETUI_POLL", "") not in ("", "0"):
        return PollWaiter()
    try:
        return EventWaiter(folders)
    except Exception:  # noqa: BLE001 - no watcher for this platform or folder: poll
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

    def __init__(self, folder: str, on_new_run: Callable[[str], None],
                 known: set[str] | None = None) -> None:
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
