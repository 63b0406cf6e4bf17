"""The viewer's ``e`` key: the selected span's chain postmortem, written to a Markdown file.

The report is :func:`tracetui.export.report.render_report` (the same text as ``tracetui report``),
written to ``tracetui-report-<id>.md`` in the current directory. An existing file is never
replaced: the next free ``-2``, ``-3``… name is taken, and the name is claimed with
``O_EXCL`` (:func:`tracetui.record.safe_files.create_new`) so two viewers exporting at once cannot
write over each other either, and a link planted under that name is never followed.

Rendering reads the chain's rows (and a sidecar of re-runs) from disk, so it runs on a thread
worker; every error becomes a notification, never a traceback.
"""

from __future__ import annotations

import os
import re
from functools import partial
from typing import Any

from textual.app import App

from tracetui.export.report import render_report
from tracetui.model.flags import BAD
from tracetui.model.text import neutralize_line
from tracetui.record.safe_files import create_new
from tracetui.store.index import RunIndex

MAX_SUFFIX = 999
"""Give up after this many reports of one span in one directory (something else is wrong)."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def report_stem(command_id: str | None, row: int) -> str:
    """``tracetui-report-<id>``, the id reduced to filename-safe characters.

    A ``command_id`` comes from an untrusted trace: slashes, dots-only names, control characters
    and very long ids must not steer where the file lands or what it is called.
    """
    safe = _UNSAFE.sub("_", command_id or "")[:64].strip(".")
    return f"tracetui-report-{safe or f'row{row + 1}'}"


def write_new(directory: str, stem: str, text: str) -> str:
    """Write ``text`` to ``stem.md`` or the first free ``stem-N.md``; return the path written."""
    data = text.encode("utf-8")
    for n in range(1, MAX_SUFFIX + 1):
        path = os.path.join(directory, f"{stem}.md" if n == 1 else f"{stem}-{n}.md")
        try:
            # Claimed with O_EXCL: a file or a link already there is never written through,
            # and a half-written report is removed rather than passed off as a whole one.
            create_new(path, data)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(f"{MAX_SUFFIX} reports named {stem}*.md already exist in {directory}")


def export_report(app: App[Any], index: RunIndex | None, row: int | None) -> None:
    """Check the selection, then render and write the report on a thread worker."""
    if index is None or row is None or not 0 <= row < len(index):
        app.notify("no span selected", timeout=3)
        return
    if index.flags[row] & BAD:
        app.notify("a bad line has no retry chain to report", timeout=3)
        return
    app.run_worker(
        partial(_export, app, index, row),
        name="export report",
        group="report",
        thread=True,
        exit_on_error=False,
    )


def _export(app: App[Any], index: RunIndex, row: int) -> None:
    try:
        text = render_report(index, row)
        path = os.path.abspath(write_new(os.getcwd(), report_stem(index.ids[row], row), text))
    except OSError as exc:
        _tell(
            app,
            f"cannot write the report: {exc.strerror or exc}"
            + (f" ({exc.filename})" if exc.filename else ""),
            error=True,
        )
    except Exception as exc:
        _tell(app, f"cannot build the report: {type(exc).__name__}: {exc}", error=True)
    else:
        _tell(app, f"report written to {path}")


def _tell(app: App[Any], message: str, *, error: bool = False) -> None:
    # notify() is not thread-safe: hand it to the app's loop. An error may quote trace text.
    app.call_from_thread(
        app.notify,
        neutralize_line(message),
        title="report",
        markup=False,
        severity="error" if error else "information",
        timeout=15 if error else 8,
    )
