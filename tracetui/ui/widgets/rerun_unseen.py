"""The re-run pane's never-seen part of one stream: an excerpt, or a page of it.

The pane opens each stream on the first failure line the agent never saw (the core decides which:
:mod:`tracetui.rerun.landmark`), headed by :data:`FIRST_FAILURE`; with none, on the excerpt (its
start and its end). ``>`` / ``<`` page through all of it (:data:`PAGE` bytes a page).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from rich.text import Text

from tracetui.model.text import neutralize
from tracetui.rerun import diff
from tracetui.rerun.runner import RerunResult
from tracetui.ui.widgets.rerun_text import newline

PAGE = 8 << 10
"""Bytes of the never-seen part per page (``>`` / ``<``); the first view is an excerpt."""
FIRST_FAILURE = "▼ the first failure line the agent never saw (< the excerpt · > on)"
"""Heads the page the pane opens on when the never-seen part holds a failure line."""


def draw_unseen(
    t: Text,
    st: Callable[[str], Style],
    result: RerunResult,
    name: str,
    c: diff.Comparison,
    offset: int | None,
    failure: int | None,
) -> None:
    """Append what the agent never saw of stream ``name``: the excerpt (``offset`` None) or the
    page at ``offset``, headed by :data:`FIRST_FAILURE` when it starts at the ``failure`` line."""
    total = c.windows.unseen_bytes
    if not total:
        t.append("── never seen by the agent: nothing ──\n", st("heading"))
        t.append("the window the agent saw covers the whole new output\n", st("dim"))
        return
    t.append(
        f"── never seen by the agent: {total:,} B from byte {c.windows.unseen_start:,} ──\n",
        st("heading"),
    )
    start = c.windows.unseen_start
    # The cut rarely falls on a line start: say so rather than show half a line as a line.
    mid_line = start > 0 and result.captured.stream(name).read(start - 1, 1) != b"\n"
    if offset is None:
        ex = result.unseen_excerpt(name)
        if ex.end or ex.skipped:
            t.append("excerpt: its start and its end · > pages through all of it\n", st("dim"))
        if total > 2048:  # the last lines are usually the verdict (a summary, the error)
            t.append("End jumps to its last lines\n", st("dim"))
        if mid_line:
            t.append("…", st("dim"))
        t.append(neutralize(ex.start))
        if ex.end or ex.skipped:
            newline(t)
            t.append(f"[… {ex.skipped:,} B not shown here: > pages through them …]\n", st("warn"))
            t.append(neutralize(ex.end))
        return
    data = result.unseen(name, offset, PAGE)
    end = offset + len(data)
    if offset == failure:
        t.append(FIRST_FAILURE + "\n", st("warn"))
    t.append(f"bytes {offset:,}–{end:,} of {total:,}", st("dim"))
    t.append("   > next · < back\n" if end < total else "   (the end) · < back\n", st("dim"))
    # "…" when the page starts inside a line (a page at a failure line starts at its start).
    if (
        mid_line
        if offset == 0
        else result.captured.stream(name).read(start + offset - 1, 1) != b"\n"
    ):
        t.append("…", st("dim"))
    t.append(neutralize(diff.decode(data, result.binary)))
