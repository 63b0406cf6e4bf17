"""Leaving a batch command's process without the interpreter's teardown.

When ``summary`` or ``lint`` has printed its answer, its process still frees every object it
made before it ends: the index's hundreds of thousands of ids, links and columns, one by one
(~15 ms of a cold 200k-span summary, about a twentieth of it). A command that has closed what
it made (its indexes: their temp copies removed) says so with :func:`allow`; the program's entry
(:func:`tracetui.cli.run`) then ends the process at once with :func:`leave`: after what an exit
must still do, and only when nothing else is left to finish. Anything unusual (a thread still
running, a stream that cannot be flushed, a profiler or tracer watching) takes the interpreter's
own exit instead, which then says what it always said.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

_allowed = False


def allow() -> None:
    """The command closed what it made: nothing is lost if the process ends without freeing it."""
    global _allowed
    _allowed = True


def leave(code: int) -> NoReturn:
    """End the process with ``code``: at once when :func:`allow` was called and no other thread
    is running (the exit functions run first, as at any exit, and both streams are flushed);
    otherwise through the interpreter's exit."""
    run_exit_functions = getattr(atexit, "_run_exitfuncs", None)
    others = [
        t
        for t in threading.enumerate()
        if t is not threading.main_thread() and t.is_alive() and not t.daemon
    ]
    # A profiler or tracer (python -m cProfile, trace, a debugger) writes what it gathered
    # after the program returns: it must get there.
    watched = sys.getprofile() is not None or sys.gettrace() is not None
    if not _allowed or others or watched or run_exit_functions is None or not _flushed():
        raise SystemExit(code)
    run_exit_functions()  # logging's, weakref.finalize's... as the interpreter runs them
    if not _flushed():  # an exit function wrote what cannot be written
        raise SystemExit(code)
    os._exit(code)


def _flushed() -> bool:
    for stream in (sys.stdout, sys.stderr):
        if stream is None:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            return False
    return True
