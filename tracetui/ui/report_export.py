"""The viewer's ``P`` key: the selected span's chain postmortem, written to a Markdown file.

The report is :func:`tracetui.export.report.render_report` (the same text as ``tracetui report``).
``P`` first asks where to write it, showing the default: ``tracetui-report-<id>.md`` in the
current directory, or the next free ``-2``, ``-3``… name when that exists. Enter accepts, Esc
writes nothing. The chosen name is claimed with ``O_EXCL``
(:func:`tracetui.record.safe_files.create_new`): an existing file is never replaced (the write is
refused and says so), two viewers exporting at once cannot write over each other, and a link
planted under that name is never followed.

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
from tracetui.ui.screens.ask import AskScreen

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


def default_path(stem: str) -> str:
    """Where ``P`` offers to write: ``stem.md`` in the cwd, or the first free ``stem-N.md``."""
    try:
        directory = os.getcwd()
    except OSError:  # the cwd was removed: offer the bare name (writing it will say why not)
        return f"{stem}.md"
    for n in range(1, MAX_SUFFIX + 1):
        path = os.path.join(directory, f"{stem}.md" if n == 1 else f"{stem}-{n}.md")
        if not os.path.lexists(path):
            return path
    return os.path.join(directory, f"{stem}.md")


def export_report(app: App[Any], index: RunIndex | None, row: int | None) -> None:
    """Check the selection, ask where to write, then render and write on a thread worker."""
    if index is None or row is None or not 0 <= row < len(index):
        app.notify("no span selected", timeout=3)
        return
    if index.flags[row] & BAD:
        app.notify("a bad line has no retry chain to report", timeout=3)
        return
    ask = AskScreen(
        "Write the postmortem of this retry chain to:",
        default_path(report_stem(index.ids[row], row)),
        "Enter: write (an existing file is never replaced) · Esc: cancel",
    )
    app.push_screen(ask, partial(_chosen, app, index, row))


def _chosen(app: App[Any], index: RunIndex, row: int, path: str | None) -> None:
    if path is None:
        app.notify("postmortem not written", timeout=3)
        return
    app.run_worker(
        partial(_export, app, index, row, os.path.expanduser(path)),
        name="export report",
        group="report",
        thread=True,
        exit_on_error=False,
    )


def _export(app: App[Any], index: RunIndex, row: int, path: str) -> None:
    try:
        text = render_report(index, row)
        create_new(path, text.encode("utf-8"))
        path = os.path.abspath(path)
    except FileExistsError:
        _tell(app, f"{path} already exists: nothing written (choose another name)", error=True)
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
