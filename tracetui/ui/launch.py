"""Running the viewer from a command, so that a crash inside it is an exception again.

Textual catches an exception raised in a message handler, a timer or a worker (``exit_on_error``),
stops the app, restores the terminal and returns from ``run()`` as if all went well: by itself it
prints a traceback and the process exits 0. TraceApp drops that print (its ``_handle_exception``);
:func:`run_app` raises the exception again, as :class:`~tracetui.errors.ViewerCrashed`, once
``run()`` has returned, and the entry point turns it into a crash report and exit 3.
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.worker import WorkerFailed

from tracetui.errors import ViewerCrashed


def run_app(app: App[Any]) -> int:
    """Run ``app`` in the terminal; its exit status. ViewerCrashed when it stopped on a bug."""
    app.run()
    # Textual keeps the first unhandled exception (it re-raises it in tests, under run_test).
    error: BaseException | None = app._exception
    if error is not None:
        if isinstance(error, WorkerFailed):
            error = error.error  # the worker's own exception, with the worker's traceback
        raise ViewerCrashed(error) from error
    return int(app.return_code or 0)
