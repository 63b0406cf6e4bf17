"""Which cache state an index's rows are, and the cache entry still being written for it.

An index whose rows are exactly those of the files a cache entry holds has a *state*
(:func:`tracetui.store.cache.state_key`): the key under which a command keeps results of it
(:mod:`tracetui.store.cache_results`). After a cold build, the state is known once the entry
is written.

A batch command may have that entry written on a thread of its own while it goes on with the
index (``build_index(..., save_behind=True)``; ``summary`` does): most of the write is the
body's checksum and the file's writes, both done with the GIL released, so on the second core
it costs the command almost nothing of its wall time (at 1M spans ~0.15 s of a cold summary's
~1.6 s). Asking for the state waits for the write; a recall may choose not to wait, and then
finds nothing kept (the work is redone, to the same result). The thread is not a daemon: the
process does not exit before the entry is whole on disk or abandoned (the temp file and rename
of :func:`tracetui.store.cache_files.atomic_write` leave no half-written entry either way).
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tracetui.store.index import RunIndex

log = logging.getLogger("tracetui.cache")

_states: weakref.WeakKeyDictionary[RunIndex, str] = weakref.WeakKeyDictionary()
"""Index → the key of the files it was built from, when its rows are exactly the cache's."""
_writing: weakref.WeakKeyDictionary[RunIndex, _Writing] = weakref.WeakKeyDictionary()
"""Index → its entry's write, while it has not been waited for."""


class _Writing:
    """One entry written on a thread: ``write`` returns the state to note (None: none)."""

    def __init__(self, index: RunIndex, write: Callable[[], str | None]) -> None:
        self.error: BaseException | None = None
        self._index = weakref.ref(index)
        self.thread = threading.Thread(target=self._run, args=(write,), name="tracetui-cache-write")

    def _run(self, write: Callable[[], str | None]) -> None:
        try:
            state = write()
        except (OSError, ValueError, TypeError) as exc:  # the cache is a courtesy (build.py)
            log.debug("index not cached: %s", exc)
            return
        except BaseException as exc:  # a bug: raised where the state is asked for
            self.error = exc
            return
        index = self._index()
        if index is not None:
            note(index, state)


def note(index: RunIndex, state: str | None) -> None:
    """``index``'s rows are the cache's for the files ``state`` names (None: they are not)."""
    if state is not None:
        _states[index] = state


def write_behind(index: RunIndex, write: Callable[[], str | None]) -> None:
    """Run ``write`` (the entry's write; it returns the state to note) on a thread of its own;
    :func:`state_of` waits for it. One write at a time: an earlier one still going is waited
    for first (the parts of every run of a folder are not held at once)."""
    for earlier in list(_writing.values()):
        earlier.thread.join()
    writing = _Writing(index, write)
    _writing[index] = writing
    writing.thread.start()


def state_of(index: RunIndex, *, wait: bool = True) -> str | None:
    """The key of the exact files ``index`` was built from, when its rows are the cache's
    (:func:`tracetui.store.cache.state_key`); None otherwise (not cached, changed while read,
    racy). Waits for an entry still being written, unless ``wait`` is False: then None while
    it is (nothing can be recalled for it yet). A bug in that write is raised here."""
    writing = _writing.get(index)
    if writing is not None:
        if not wait and writing.thread.is_alive():
            return None
        writing.thread.join()
        _writing.pop(index, None)
        if writing.error is not None:
            raise writing.error
    return _states.get(index)
