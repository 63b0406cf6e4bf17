"""The errors the command line tells apart (tracetui/cli.py).

Kept in a module of their own, with no imports, so that the commands, the viewer and the entry
point can all raise and catch them without importing one another.
"""

from __future__ import annotations


class UsageError(Exception):
    """Bad input the user can fix: one line on stderr, no traceback, exit 2."""


class ViewerCrashed(Exception):
    """The viewer stopped on an exception it did not handle (in a handler, a worker…).

    Textual catches such an exception inside the app; tracetui/ui/launch.py raises this, with the
    original as ``error`` and as the cause, once the terminal is restored. Whatever the original's
    type, it is a bug: the entry point writes a crash report and exits 3.
    """

    def __init__(self, error: BaseException) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error
