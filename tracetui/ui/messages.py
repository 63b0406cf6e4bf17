"""Messages the app's workers send back to the UI thread (``post_message`` is thread-safe),
and the indexing threads' last step (:func:`post_ready`).

Progress is a latest-value message, so a newer one may replace an older one still queued;
results are never replaced.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from textual.message import Message

from tracetui.analysis.chains import ChainIndex
from tracetui.store.ids import attach_registry, keep_owed, table_for
from tracetui.store.index import RunIndex
from tracetui.store.runset import Run


@dataclass
class IndexProgress(Message):
    """Bytes indexed so far, out of the run's total size."""

    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexProgress)


@dataclass
class IndexReady(Message):
    """The run is indexed and can be shown."""

    index: RunIndex
    chains: ChainIndex | None = None
    """The index's chains, linked on the indexing thread (None: see ``linking``)."""
    linking: bool = False
    """True when the chains come after, in a :class:`ChainsReady` (:func:`post_ready`);
    False with no ``chains``: the app links them itself."""
    drawn: threading.Event = field(default_factory=threading.Event, compare=False)
    """Set by the app once the screen showing the index is drawn (:func:`post_ready` waits)."""


@dataclass
class ChainsReady(Message):
    """The chains of an index shown by an :class:`IndexReady` with ``linking``, linked."""

    index: RunIndex
    chains: ChainIndex


DRAWN_WAIT = 2.0
"""Seconds :func:`post_ready` waits for the app to draw the index before it goes on anyway."""


def _never() -> bool:
    return False


def post_ready(
    index: RunIndex,
    post: Callable[[Message], object],
    cancelled: Callable[[], bool] = _never,
    shown: Callable[[], object] | None = None,
) -> None:
    """An indexing thread's last step: show ``index`` (:class:`IndexReady`), then settle its id
    registry and link its retry chains (:class:`ChainsReady`), then keep a big run's id table
    made afresh for the next open (``ids.keep_owed``), all on this thread.

    What the first screen needs is made before the index is posted: its id table (a big warm
    run's is taken back from the cache with a set of its ids, not the registry's dict:
    ``ids.table_for(settle=False)``). The rest comes after, so a million-row run's list shows
    ~0.5 s sooner: the registry, built aside (``RunIndex.settling_ids_aside``: outside the
    index's lock and in steps, so the UI thread drawing rows waits for neither the lock nor the
    interpreter; a reader meanwhile finds one id by a search of the id column, or waits for
    the registry), then the chains (the chain pane says they are being linked until then).
    ``cancelled`` is asked between the steps (a quitting app's worker stops). ``shown`` is
    called right after the ``IndexReady`` is posted, before the rest (a live catch-up can start
    its follower there: rows it appends meanwhile are registered once the registry is made).
    The rest waits until the app has drawn the index (``IndexReady.drawn``, at most
    :data:`DRAWN_WAIT` seconds).
    """
    if cancelled():
        return
    table_for(index, settle=False)
    if cancelled():
        return
    with index.settling_ids_aside():
        ready = IndexReady(index, linking=True)
        post(ready)
        if shown is not None:
            shown()
        # The rest waits for the screen: sharing the interpreter with it, the first paint of
        # a million-row list took 0.7 s instead of 0.1 s. Not when a reader waits for the
        # registry (the UI thread, maybe: then it cannot draw).
        deadline = time.monotonic() + DRAWN_WAIT
        while not ready.drawn.wait(0.05) and time.monotonic() < deadline:
            if cancelled() or index.ids_awaited:
                break
    attach_registry(index)  # the table's kept rows (or its set of ids) go
    if cancelled():
        return
    post(ChainsReady(index, ChainIndex(index).prepare()))
    if not cancelled():
        keep_owed(index)  # a table made afresh (or grown much): kept for the next open


@dataclass
class IndexFailed(Message):
    """Indexing stopped with an error a person should read."""

    reason: str


def run_bytes(run: Run) -> int:
    """The bytes of the run's members now (a member that vanished counts for nothing): what an
    indexing thread's progress counts towards."""
    total = 0
    for m in run.members:
        with contextlib.suppress(OSError):
            total += os.path.getsize(m.path)
    return total


def progress_poster(post: Callable[[Message], object], total: int) -> Callable[[int], None]:
    """A progress callback for an indexing thread that posts at most ten
    :class:`IndexProgress` updates a second."""
    last = [0.0]

    def report(done: int) -> None:
        now = time.monotonic()
        if now - last[0] >= 0.1:
            last[0] = now
            post(IndexProgress(done, total))

    return report
