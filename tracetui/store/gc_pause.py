"""Pausing Python's cycle collector while a run's index is built (:mod:`tracetui.store.build`).

A build makes hundreds of thousands of small containers (the parent links, each batch's id list)
and keeps every one of them: there is nothing for the cycle collector to find. Yet each of its
runs walks what has been kept so far, the million-entry id column included; on a warm re-open
of a million rows that was ~0.13 s of ~0.55 s. So the collector is off while any build runs, and
back on (when it was on) once the last one ends. Nothing is lost: garbage made meanwhile is
collected at the next run after that. Builds on several threads share one pause.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    """The cycle collector off for the block (and for as long as any other block holds it)."""
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()
