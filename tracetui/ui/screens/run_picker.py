"""The run picker: a folder may hold several runs (a Claude Code project folder: one per session).

Newest first, each with its spans, failed and truncated counts, its dialect or format and when it
changed; the run already open is marked ``●`` and the cursor starts on it. Typing filters (by name and format); ↑/↓, PgUp/PgDn
move; Enter opens; Esc clears the filter, then leaves.

It opens at once whatever the number of runs: times come from ``lstat``, the rows are drawn by one
virtual list (:class:`RunRows`, only the visible lines are rendered, no widget per run), and the
counts are made on a worker thread (:func:`tracetui.analysis.run_counts.count_run`, bounded per
run), newest first and the rows in sight before the rest, filling the rows in as they come.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, work
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.geometry import Size
from textual.message import Message
from textual.screen import ModalScreen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from tracetui.analysis.run_counts import RunCounts, count_run, run_times
from tracetui.model.text import neutralize_line
from tracetui.model.times import ago
from tracetui.store.runset import Run
from tracetui.ui.widgets.styles import style_or_plain

LIST_ROWS = 20
"""Rows of the list in sight at most (the box grows to this, then scrolls)."""
BATCH = 25
"""Counts handed to the UI at once: thousands of runs are a few hundred messages, not thousands."""
# (title, width) after the marker and the name; the name takes the width left.
COLUMNS = (("MODIFIED", 12), ("SPANS", 7), ("FAILED", 7), ("TRUNC", 7), ("FORMAT", 14))


def cells(counts: RunCounts | None) -> tuple[str, str, str, str]:
    """The spans, failed, truncated and format cells of a run (``…`` while counting)."""
    if counts is None:
        return ("…", "…", "…", "")
    fmt = counts.dialect or ""
    if counts.spans is None:
        return ("—", "—", "—", fmt or (counts.note or ""))
    pre = "≥" if counts.partial else ""
    return (
        f"{pre}{counts.spans:,}",
        f"{pre}{counts.failed or 0:,}",
        f"{pre}{counts.truncated or 0:,}",
        fmt,
    )


class FilterInput(Input):
    """The picker's filter: Esc empties it first; an empty one lets Esc through to the screen."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear", "Clear", show=False, id="picker.clear_filter")
    ]

    def on_mount(self) -> None:
        self.cursor_blink = False  # a steady cursor: the picker's look does not depend on when

    def action_clear(self) -> None:
        if not self.value:
            raise SkipAction
        self.value = ""


class RunRows(ScrollView, can_focus=False):
    """The runs as one virtual list: ``render_line`` draws only the lines in sight."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "runrows--cursor",
        "runrows--failed",
        "runrows--dim",
        "runrows--current",
    }
    DEFAULT_CSS = """
    RunRows { height: auto; max-height: 20; }
    RunRows > .runrows--cursor { background: $primary-muted; text-style: bold; }
    RunRows > .runrows--failed { color: $tt-error; }
    RunRows > .runrows--dim { color: $tt-faint; }
    RunRows > .runrows--current { color: $tt-success; text-style: bold; }
    """

    def __init__(
        self,
        labels: list[str],
        times: list[float | None],
        columns: Static | None = None,
        **kwargs: object,
    ) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.columns = columns
        """The titles over the rows, laid out at this list's width (a scrollbar takes some)."""
        self.labels = labels
        """Name of each run, in display order (neutralised)."""
        self.times = times
        self.counts: dict[int, RunCounts] = {}
        self.current: int | None = None
        """Display position of the run already open, marked."""
        self.shown: list[int] = list(range(len(labels)))
        """Display positions passing the filter."""
        self.cursor = 0
        self.now = time.time()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, min(len(self.shown), LIST_ROWS))

    def set_shown(self, shown: list[int]) -> None:
        self.shown = shown
        self.cursor = 0
        self.virtual_size = Size(self.scrollable_content_region.width, len(shown))
        self.scroll_to(y=0, animate=False, immediate=True)
        self.refresh(layout=True)

    @property
    def chosen(self) -> int | None:
        """The display position under the cursor, None when the filter hides every run."""
        return self.shown[self.cursor] if self.shown else None

    def move_by(self, delta: int) -> None:
        if not self.shown:
            return
        self.cursor = max(0, min(self.cursor + delta, len(self.shown) - 1))
        height = max(1, self.scrollable_content_region.height)
        top = int(self.scroll_y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False, immediate=True)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False, immediate=True)
        self.refresh()

    def in_sight(self) -> list[int]:
        """Display positions of the rows on screen now (counted before the others)."""
        top = int(self.scroll_y)
        return self.shown[top : top + max(LIST_ROWS, self.scrollable_content_region.height)]

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        self.virtual_size = Size(width, len(self.shown))
        if self.columns is not None:
            self.columns.update(header_text(width))

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        pos = int(self.scroll_y) + y
        if pos >= len(self.shown) or width <= 0:
            if not self.shown and y == 0:
                return self._strip(Text("no run matches the filter"), width, "dim")
            return Strip.blank(width, self.rich_style)
        return self._row(self.shown[pos], width, pos == self.cursor)

    def _style(self, name: str) -> Style:
        return style_or_plain(self, f"runrows--{name}")

    def _row(self, at: int, width: int, cursor: bool) -> Strip:
        counts = self.counts.get(at)
        spans, failed, trunc, fmt = cells(counts)
        mtime = self.times[at]
        when = ago(self.now - mtime) if mtime is not None else "gone"
        fixed = sum(w + 1 for _t, w in COLUMNS) + 2
        name_width = max(8, width - fixed)
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        current = at == self.current
        text.append("● " if current else "  ", self._style("current") if current else Style())
        name = self.labels[at]
        if len(name) > name_width:
            name = name[: name_width - 1] + "…"
        text.append(name.ljust(name_width) + " ", self._style("current") if current else Style())
        text.append(when.rjust(12) + " ", self._style("dim"))
        text.append(spans.rjust(7) + " ")
        failed_style = self._style("failed") if counts and counts.failed else self._style("dim")
        text.append(failed.rjust(7) + " ", failed_style)
        text.append(trunc.rjust(7) + " ")
        text.append(fmt[:14], self._style("dim"))
        return self._strip(text, width, "cursor" if cursor else None)

    def _strip(self, text: Text, width: int, over: str | None) -> Strip:
        text.truncate(width, overflow="ellipsis", pad=True)
        if over == "cursor":
            text.stylize_before(self._style("cursor"))
        elif over is not None:
            text.stylize(self._style(over))
        segments = list(text.render(self.app.console, end=""))
        return Strip(Segment.apply_style(segments, self.rich_style), width).crop(0, width)


class RunPicker(ModalScreen[int]):
    """Returns the position of the chosen run in the list it was given."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "quit_app", "Quit", id="picker.quit", tooltip="Leave tracetui"),
        Binding("down,ctrl+n", "move(1)", "Down", show=False, id="picker.down"),
        Binding("up,ctrl+p", "move(-1)", "Up", show=False, id="picker.up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="picker.page_down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="picker.page_up"),
    ]

    clock: ClassVar[Callable[[], float]] = time.time
    """Where "modified 2 min ago" is measured from (tests fix it)."""

    class Counted(Message):
        """Counts made on the worker: (display position, counts) pairs."""

        def __init__(self, done: list[tuple[int, RunCounts]]) -> None:
            super().__init__()
            self.done = done

    def __init__(self, runs: list[Run]) -> None:
        super().__init__()
        self.runs = runs
        times = [run_times(r)[0] for r in runs]
        # Newest first; a run whose files are gone sinks to the end. Ties: by name.
        self.order = sorted(
            range(len(runs)), key=lambda i: (-(times[i] or float("-inf")), runs[i].base)
        )
        self.times = [times[i] for i in self.order]
        folders = {os.path.dirname(os.path.abspath(r.base)) for r in runs}
        self.labels = [_label(runs[i], whole=len(folders) > 1) for i in self.order]
        self.keys = [
            f"{self.labels[p]} {runs[i].source_format or ''}".lower()
            for p, i in enumerate(self.order)
        ]
        self.wanted: list[int] = []
        """Display positions to count next (the rows in sight), set by the UI thread."""

    def compose(self) -> ComposeResult:
        n = len(self.runs)
        with Vertical(id="picker-box"):
            yield Static(
                f"{n:,} runs here, newest first: type to filter, Enter opens", id="picker-title"
            )
            yield FilterInput(placeholder="filter by name or format", id="picker-filter")
            columns = Static(id="picker-columns")
            yield columns
            yield RunRows(self.labels, self.times, columns, id="picker-list")

    @property
    def rows(self) -> RunRows:
        return self.query_one(RunRows)

    def on_mount(self) -> None:
        rows = self.rows
        rows.now = type(self).clock()
        current = getattr(self.app, "run_", None)
        for pos, i in enumerate(self.order):
            if self.runs[i] is current:
                rows.current = pos
        rows.set_shown(list(range(len(self.order))))
        if rows.current is not None:
            # Opened from a run (`o`): start on it, so Enter keeps it and ↑/↓ reach its
            # neighbours. Scrolled once laid out: the list's height is not known before.
            rows.cursor = rows.current
            self.call_after_refresh(self._cursor_in_sight)
        self.query_one(FilterInput).focus()
        self.wanted = rows.in_sight()
        self._count()

    def _cursor_in_sight(self) -> None:
        self.rows.move_by(0)
        self.wanted = self.rows.in_sight()

    def on_input_changed(self, event: Input.Changed) -> None:
        words = event.value.lower().split()
        shown = [p for p, key in enumerate(self.keys) if all(w in key for w in words)]
        self.rows.set_shown(shown)
        self.wanted = self.rows.in_sight()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        chosen = self.rows.chosen
        if chosen is not None:
            self.dismiss(self.order[chosen])

    def action_move(self, delta: int) -> None:
        self.rows.move_by(delta)
        self.wanted = self.rows.in_sight()

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.rows.scrollable_content_region.height - 1))

    def action_quit_app(self) -> None:
        self.app.exit(0)

    def on_run_picker_counted(self, event: RunPicker.Counted) -> None:
        self.rows.counts.update(event.done)
        self.rows.refresh()

    @work(thread=True, exclusive=True, exit_on_error=False, group="picker-counts")
    def _count(self) -> None:
        worker = get_current_worker()
        done: set[int] = set()
        batch: list[tuple[int, RunCounts]] = []
        queue = iter(range(len(self.order)))

        def stop() -> bool:
            return worker.is_cancelled

        while not worker.is_cancelled:
            pos = next((p for p in self.wanted if p not in done), None)
            if pos is None:
                pos = next((p for p in queue if p not in done), None)
            if pos is None:
                break
            done.add(pos)
            began = time.perf_counter()
            counts = count_run(self.runs[self.order[pos]], cancelled=stop)
            if counts is None:
                return
            # Counting is Python work holding the GIL: without a pause as long as the work, the
            # UI thread waits on it and typing into the filter lags by seconds on a big folder.
            time.sleep(min(0.05, max(0.001, time.perf_counter() - began)))
            batch.append((pos, counts))
            if len(batch) >= BATCH or pos in self.wanted:
                self.post_message(self.Counted(batch))
                batch = []
        if batch and not worker.is_cancelled:
            self.post_message(self.Counted(batch))


def _label(run: Run, *, whole: bool) -> str:
    """The run's name: its file (``folder/file`` when the runs come from several folders)."""
    name = run.name if whole else os.path.basename(run.base)
    n = len(run.members)
    more = f"  ({n} files)" if n > 1 else ""
    return neutralize_line(name) + more


def header_text(width: int) -> Text:
    """Column titles laid out as :meth:`RunRows._row` lays out the cells at ``width``."""
    fixed = sum(w + 1 for _t, w in COLUMNS) + 2
    name_width = max(8, width - fixed)
    titles = " ".join(t.rjust(w) if t != "FORMAT" else t.ljust(w) for t, w in COLUMNS)
    text = Text(f"  {'RUN'.ljust(name_width)} {titles}", style="bold", no_wrap=True, end="")
    text.truncate(width, overflow="ellipsis")
    return text
