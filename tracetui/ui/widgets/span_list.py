"""The span list: a virtualised view of every row of a run (or of a filter).

Only the visible rows are drawn: ``render_line(y)`` asks the index for the row at that position
(parsed on demand, LRU cached in the index) and keeps a small LRU cache of rendered strips keyed
on row, width, cursor, index generation and theme. A million rows cost nothing until seen.

While a run is followed the index's generation moves with every batch, and a batch scrolls the
list, so every visible line is drawn again: a second cache keyed on what a line shows (its
cells, width, cursor and badge) hands back the strip of a row whose cells did not change, so
a batch costs the drawing of its new rows only. The cells are worked out again (a row's id or
marks can change as rows arrive), which is a tenth of what drawing them costs.
Keys live on the app (so they work from any pane); this widget moves its cursor when told.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from tracetui.analysis.rows import Cell, RowView, row_cells
from tracetui.store.live_import import RunningCall
from tracetui.ui.recent_rows import RecentRows
from tracetui.ui.widgets.row_strip import RIGHT_ALIGNED as RIGHT_ALIGNED  # (the column header)
from tracetui.ui.widgets.row_strip import final_style, narrow_strip, text_strip
from tracetui.ui.widgets.running import running_cells
from tracetui.ui.widgets.styles import component_style

CACHE_SIZE = 256


class SpanList(ScrollView, can_focus=True, inherit_bindings=False):
    """Rows of the run; a cursor; posts :class:`SpanList.Selected` when the cursor lands."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "spanlist--cursor",
        "spanlist--failed",
        "spanlist--null",
        "spanlist--trunc",
        "spanlist--dim",
        "spanlist--bad",
        "spanlist--ok",
        "spanlist--badge",
        "spanlist--match",
        "spanlist--running",
        "spanlist--new",
    }
    DEFAULT_CSS = """
    SpanList > .spanlist--match { text-style: reverse bold; }
    SpanList > .spanlist--running { color: $tt-accent; text-style: italic; }
    SpanList > .spanlist--new { text-style: bold underline; }
    """

    @dataclass
    class Selected(Message):
        """The cursor is on ``row`` (an index row; None when the view is empty)."""

        row: int | None
        live: bool = False
        """The cursor followed new rows of a live run (not a key press)."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, SpanList.Selected)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view: RowView | None = None
        self.cursor = 0
        """Position of the cursor in the view (not an index row)."""
        self.latest_failure: int | None = None
        """The row that carries the latest-failure badge."""
        self.highlight = ""
        """The active search's query: its matches in the ARGV cell are highlighted."""
        self._strips: OrderedDict[tuple[int, int, bool, int, bool], Strip] = OrderedDict()
        self._drawn: OrderedDict[tuple[int, bool, bool, tuple[Cell, ...]], Strip] = OrderedDict()
        """Strips by what they show (width, cursor, badge, cells): see the module's docstring."""
        self._style_epoch = 0
        self._styles: dict[str, Style] = {}
        """Component styles by name; looking them up in the CSS per cell was most of a row's cost."""
        self._finals: dict[str, Style] = {}
        """A character's whole style by cursor and cell style (row_strip.final_style)."""
        self.running: tuple[RunningCall, ...] = ()
        """Calls of a followed foreign session not yet rows, drawn after the rows (unfiltered)."""
        self.fresh: frozenset[int] = frozenset()
        """Rows a re-read of a whole-document trace added: their ID is marked."""
        self.fresh_of: object = None
        """The index whose rows :attr:`fresh` names: a rebuilt document's marks wait for its
        index to be shown, and the old index's are not drawn on it."""
        self._ticker: Timer | None = None
        """Redraws the running calls each second; only while some are shown."""
        self.recent: RecentRows | None = None
        """The rows a follower just read, as parsed (ui/recent_rows.py): not read again."""

    def _tick(self) -> None:
        if self.shown_running:
            self.refresh()
        elif self._ticker is not None:
            self._ticker.stop()  # nothing moves any more: an idle viewer wakes for nothing
            self._ticker = None

    def _start_ticking(self) -> None:
        """A running call's elapsed time moves: redraw its rows each second while any is shown."""
        if self._ticker is None and self.shown_running and self.is_mounted:
            self._ticker = self.set_interval(1.0, self._tick)

    @property
    def shown_running(self) -> tuple[RunningCall, ...]:
        """The running calls drawn after the rows: none under a filter (they match none yet)."""
        view = self.view
        return self.running if view is not None and view.mask == 0 else ()

    def _total(self) -> int:
        """Positions the cursor can take: the view's rows, then the running calls."""
        return (len(self.view) if self.view is not None else 0) + len(self.shown_running)

    def running_call(self) -> RunningCall | None:
        """The running call under the cursor; None when the cursor is on a row."""
        n = len(self.view) if self.view is not None else 0
        calls = self.shown_running
        return calls[self.cursor - n] if n <= self.cursor < n + len(calls) else None

    def set_running(
        self,
        calls: tuple[RunningCall, ...],
        fresh: frozenset[int] | None = None,
        fresh_of: object = None,
    ) -> None:
        """The running calls to draw (a snapshot from the follower), and rows to mark new (rows
        of the index ``fresh_of``)."""
        if fresh is not None and (fresh != self.fresh or fresh_of is not self.fresh_of):
            self.fresh, self.fresh_of = fresh, fresh_of
            self._strips.clear()  # (the cells say which rows are fresh: _drawn stays right)
        if calls == self.running and fresh is None:
            return
        on_running = self.running_call() is not None
        self.running = calls
        self._start_ticking()
        self._update_size()
        self.refresh()
        if on_running or self.cursor >= self._total():
            # What is under the cursor changed (the call completed in place, or is gone).
            self.move_to(self.cursor, force=True)

    # ------------------------------------------------------------------ state
    def set_view(self, view: RowView, row: int | None = None) -> None:
        """Show ``view``; put the cursor on ``row`` (or the nearest shown row)."""
        self.view = view
        if self.recent is not None and self.recent.index is not view.index:
            self.recent = None  # another run's (or a re-read's): let its index go
        self._start_ticking()  # running calls shown again once a filter is cleared
        self.latest_failure = view.index.latest_failure
        self._strips.clear()
        self._update_size()
        pos = 0 if row is None else view.nearest_pos(row)
        self.move_to(pos, force=True, center=True)

    def sync(self, *, follow_tail: bool = False) -> int:
        """Take in rows appended to the index (live follow); returns how many were added.

        With ``follow_tail``, a cursor on the last row moves to the new last row; anywhere else
        it keeps its place.
        """
        if self.view is None:
            return 0
        on_running = self.running_call() is not None
        at_end = len(self.view) == 0 or self.cursor == len(self.view) - 1
        added = self.view.sync()
        if added:
            self.latest_failure = self.view.index.latest_failure
            self._update_size()
            self.refresh()
            if on_running:
                # Calls become rows in place: the position keeps its call, which may be a row now.
                self.move_to(self.cursor, force=True, live=True)
            elif follow_tail and at_end:
                # From an empty view the cursor is already at 0: force the first row's Selected,
                # or the detail said "No row selected" beside a LATEST FAILURE badge.
                self.move_to(len(self.view) - 1, live=True, force=added == len(self.view))
        return added

    def set_highlight(self, query: str) -> None:
        """Highlight ``query`` (smart case, as the search matches) in ARGV; empty: none."""
        if query != self.highlight:
            self.highlight = query
            self._forget_strips()
            self.refresh()

    def _update_size(self) -> None:
        size = Size(self.scrollable_content_region.width, self._total())
        if (
            size.width == self.virtual_size.width
            and self.show_vertical_scrollbar
            and size.height >= self.virtual_size.height
        ):
            # Rows appended under a scrollbar already shown: only the scrollbar changes. Setting
            # virtual_size lays out the whole screen, which was most of a live batch's cost.
            self.set_reactive(SpanList.virtual_size, size)
            self._scroll_update(size)
            return
        self.virtual_size = size

    @property
    def selected_row(self) -> int | None:
        if self.view is None or not 0 <= self.cursor < len(self.view):
            return None  # an empty view, or the cursor on a running call
        return self.view.row_at(self.cursor)

    @property
    def page(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def move_to(
        self, pos: int, *, force: bool = False, center: bool = False, live: bool = False
    ) -> None:
        """Put the cursor at view position ``pos`` (clamped), scroll it into sight, announce it."""
        n = self._total()
        pos = max(0, min(pos, n - 1)) if n else 0
        if pos == self.cursor and not force:
            return
        self.cursor = pos
        self._scroll_to_cursor(center)
        # Before the first layout the height is unknown: scroll again once it is.
        self.call_after_refresh(self._scroll_to_cursor, center)
        self.refresh()
        self.post_message(self.Selected(self.selected_row, live))

    def _scroll_to_cursor(self, center: bool = False) -> None:
        pos = self.cursor
        height = max(1, self.scrollable_content_region.height)
        top = int(self.scroll_y)
        if center and not (top <= pos < top + height):
            self.scroll_to(y=max(0, pos - height // 2), animate=False, immediate=True)
        elif pos < top:
            self.scroll_to(y=pos, animate=False, immediate=True)
        elif pos >= top + height:
            self.scroll_to(y=pos - height + 1, animate=False, immediate=True)

    def move_by(self, delta: int) -> None:
        self.move_to(self.cursor + delta)

    # --------------------------------------------------------------- drawing
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._style_epoch += 1  # a theme change: every cached strip has old colours
        self._forget_strips()
        self._styles.clear()
        self._finals.clear()

    def _forget_strips(self) -> None:
        """Drop every drawn strip: how a line is drawn changed (theme, highlight, size)."""
        self._strips.clear()
        self._drawn.clear()

    def on_resize(self, event: events.Resize) -> None:
        self._forget_strips()
        self._update_size()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        pos = int(self.scroll_y) + y
        view = self.view
        if view is None or width <= 0:
            return Strip.blank(width, self.rich_style)
        if pos >= len(view):
            calls = self.shown_running
            if pos - len(view) < len(calls):  # elapsed time moves: never cached
                call = calls[pos - len(view)]
                cells = running_cells(view.index, call)
                return self._strip(cells, width, pos == self.cursor, badge=False)
            return Strip.blank(width, self.rich_style)
        row = view.row_at(pos)
        key = (row, width, pos == self.cursor, view.index.generation, row == self.latest_failure)
        strip = self._strips.get(key)
        if strip is not None:
            self._strips.move_to_end(key)
            return strip
        strip = self._render_row(row, width, pos == self.cursor)
        self._strips[key] = strip
        if len(self._strips) > CACHE_SIZE:
            self._strips.popitem(last=False)
        return strip

    def _render_row(self, row: int, width: int, cursor: bool) -> Strip:
        assert self.view is not None
        index = self.view.index
        recent = self.recent
        item = recent.get(row) if recent is not None and recent.index is index else index.get(row)
        cells = row_cells(index, row, item)
        if row in self.fresh and index is self.fresh_of:  # new since the last re-read
            cells[1] = Cell(cells[1].text, "new")
        badge = row == self.latest_failure
        key = (width, cursor, badge, tuple(cells))
        strip = self._drawn.get(key)
        if strip is not None:
            self._drawn.move_to_end(key)
            return strip  # drawn before, in another batch, with the same cells
        strip = self._strip(cells, width, cursor, badge=badge)
        self._drawn[key] = strip
        if len(self._drawn) > CACHE_SIZE:
            self._drawn.popitem(last=False)
        return strip

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            if name == "":
                style = Style()
            elif name == "base":
                style = self.rich_style
            else:
                got = component_style(self, f"spanlist--{name}")
                if got is None:
                    return Style()  # not styled yet: kept only once it is
                style = got
            self._styles[name] = style
        return style

    def _strip(self, cells: list[Cell], width: int, cursor: bool, *, badge: bool) -> Strip:
        """The drawn line (ui/widgets/row_strip.py): directly when every character is one
        column wide and no match is highlighted, else through a Rich Text; the same strip."""
        if not self.highlight:
            strip = narrow_strip(cells, width, cursor, badge, self._style, self._final_style)
            if strip is not None:
                return strip
        return text_strip(
            cells, width, cursor, badge, self.highlight, self._style, self.app.console
        )

    def _final_style(self, cursor: bool, name: str) -> Style:
        key = f"{'cursor+' if cursor else ''}{name}"
        style = self._finals.get(key)
        if style is None:
            style = self._finals[key] = final_style(self._style, cursor, name)
        return style

    # ----------------------------------------------------------------- mouse
    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None:
            self.move_to(int(self.scroll_y) + offset.y)
