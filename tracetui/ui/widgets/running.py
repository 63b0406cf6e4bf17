"""How a call that is not a row yet is drawn: its list row and its detail text.

A followed foreign session (live/foreign.py) publishes the calls still waiting for their result
as :class:`~tracetui.store.live_import.RunningCall` snapshots; the span list draws them after its
rows, with a *running* status and the time they have been running (never in the error colour:
nothing failed), and the detail pane says since when.
"""

from __future__ import annotations

from datetime import datetime, timezone

from rich.style import Style
from rich.text import Text

from tracetui.analysis.rows import Cell, fmt_duration, fmt_time
from tracetui.model.text import neutralize_line, quote_argv
from tracetui.store.ids import pending_cell_id
from tracetui.store.index import RunIndex
from tracetui.store.live_import import RunningCall

RUNNING = "run"
"""The EXIT cell of a running call (the column is four wide)."""
WAITING = "done"
"""The EXIT cell of a finished call that waits for a running one before it (calls go in order)."""


def running_cells(index: RunIndex, call: RunningCall, now: float | None = None) -> list[Cell]:
    """The cells of a running call's row, in the list's columns (then ARGV)."""
    span = call.span
    argv = " ".join(span.argv) if span.argv else (span.tool_name or "?")
    status = RUNNING if call.running else WAITING
    return [
        Cell(fmt_time(span.started_at), "dim"),
        # The form its id will have as a row: not the whole id now and a short one once it ends.
        Cell(pending_cell_id(index, span.command_id), "dim"),
        Cell(status, "running"),
        Cell(fmt_duration(call.elapsed(now) * 1000.0) if call.running else "", "running"),
        Cell("", ""),
        Cell("", ""),
        Cell("", ""),
        Cell(neutralize_line(argv), "running"),
    ]


def _clock(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def running_text(call: RunningCall, label: Style, dim: Style) -> Text:
    """The detail pane's text for a call that is not a row yet, its labels and asides in the
    pane's own readable styles (``DetailBody.st("label")``, ``st("dim")``)."""
    span = call.span
    t = Text()
    if call.running:
        since = _clock(call.since())
        seen = "" if call.started is not None else " (first seen; the trace records no start)"
        t.append("RUNNING", style=label)
        t.append(f"  since {since}{seen}, {fmt_duration(call.elapsed() * 1000.0)} so far\n")
        t.append(
            "The result has not arrived yet: exit, output and truncation show when it does.\n\n",
            style=dim,
        )
    else:
        t.append("FINISHED", style=label)
        t.append(
            "  waiting for a call before it to finish (calls become rows in order)\n\n", style=dim
        )
    fields = [
        ("tool", span.tool_name or ""),
        ("argv", quote_argv(span.argv) if span.argv else ""),
        ("note", span.agent_note or ""),
        ("cwd", span.cwd or ""),
        ("id", span.command_id or ""),
        ("started", span.started_at or ""),
    ]
    for name, value in fields:
        if value:
            t.append(f"{name:<8}", style=label)
            t.append(neutralize_line(value) + "\n")
    return t
