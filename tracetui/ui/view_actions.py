"""The viewer's actions that are not moves, as a mixin of the app: filters, the raw toggle, copy,
chain steps, the search bar, Esc, follow and the run picker.

Like the moving keys (ui/navigate.py), the mixin never imports the app: its methods are typed
against :class:`ActionHost`, the part of the app they use, and mypy checks the app has it. The
keys themselves are in ``ui/keys.py``; the actions that open screens stay on the app.
"""

from __future__ import annotations

from typing import Protocol

from textual.widgets import Input

from tracetui.analysis.rows import RowView
from tracetui.model.flags import FAILED, TRUNCATED
from tracetui.model.text import quote_argv
from tracetui.ui.find import SearchFlow
from tracetui.ui.host import ViewerHost
from tracetui.ui.live import LiveFollow
from tracetui.ui.widgets.chain import ChainPane

FILTERS = {FAILED: "failures only", TRUNCATED: "truncated only"}
"""The list's filters by flag mask, as the list pane's title names them."""


class ActionHost(ViewerHost, Protocol):
    """What the actions use of the app, besides what the live follower uses."""

    mask: int
    """The list's filter (a flag mask; 0: every row)."""
    raw_mode: bool
    search: SearchFlow
    live: LiveFollow

    def _set_filter(self, mask: int, keep_row: int | None) -> None: ...

    def _update_list_title(self) -> None: ...

    def _chain_step(self, step: int) -> None: ...

    def _close_bar(self) -> None: ...

    def copy_to_clipboard(self, text: str) -> None: ...


class ViewActions:
    """Actions of the viewer's keys other than moves (mixed into the app)."""

    # ------------------------------------------------------------------ filters
    def action_filter_failed(self: ActionHost) -> None:
        self._set_filter(0 if self.mask == FAILED else FAILED, self.selected_row)

    def action_filter_truncated(self: ActionHost) -> None:
        self._set_filter(0 if self.mask == TRUNCATED else TRUNCATED, self.selected_row)

    def _set_filter(self: ActionHost, mask: int, keep_row: int | None) -> None:
        if self.index is None:
            return
        self.mask = mask
        self.spans.set_view(RowView(self.index, mask), keep_row)
        self._update_list_title()

    def _update_list_title(self: ActionHost) -> None:
        pane = self.query_one("#list-pane")
        view = self.spans.view
        if self.mask and view is not None:
            pane.border_title = f"spans · {FILTERS[self.mask]} ({len(view):,})"
        else:
            pane.border_title = "spans"

    # ------------------------------------------------------------------ the row
    def action_toggle_raw(self: ActionHost) -> None:
        self.raw_mode = not self.raw_mode

    def action_copy_argv(self: ActionHost) -> None:
        span = (
            self.index.span(self.selected_row)
            if self.index and self.selected_row is not None
            else None
        )
        if span is None or not span.argv:
            self.notify("no argv on this row", timeout=3)
            return
        text = quote_argv(span.argv)  # neutralised: a pasted escape is still an escape
        self.copy_to_clipboard(text)
        self.notify(f"copied: {text}", timeout=3, markup=False)

    def _chain_step(self: ActionHost, step: int) -> None:
        pane = self.query_one(ChainPane)
        # Where the cursor is now: the app hears of a move by a message, which a key pressed
        # right after it comes before (]] quickly took one step, not two). A step stays in the
        # chain, so the pane's order is this row's even before the pane has followed it; a row
        # of another chain (moved to by another key just now) steps from the pane's row.
        row = self.spans.selected_row
        if row not in pane.order:
            row = self.selected_row
        if row is None or row not in pane.order or len(pane.order) < 2:
            self.notify("no other attempt in this chain", timeout=3)
            return
        i = pane.order.index(row) + step
        if not 0 <= i < len(pane.order):
            where = "first" if i < 0 else "last"  # the step ran off this end of the chain
            self.notify(f"{where} attempt of the chain", timeout=2)
            return
        self.select_row(pane.order[i])

    def action_chain_prev(self: ActionHost) -> None:
        self._chain_step(-1)

    def action_chain_next(self: ActionHost) -> None:
        self._chain_step(1)

    # ------------------------------------------------------------------ search bar, Esc
    def action_search(self: ActionHost) -> None:
        bar = self.query_one("#search")
        bar.add_class("-open")
        bar.focus()

    def _close_bar(self: ActionHost) -> None:
        self.query_one("#search").remove_class("-open")
        self.spans.focus()

    def action_clear(self: ActionHost) -> None:
        """Esc: close the search bar; else the re-run pane; else end the search; else the filter."""
        bar = self.query_one("#search")
        # Imported here: the pane's module (the re-run machinery) is ~40 ms of a viewer's start.
        from tracetui.ui.widgets.rerun_pane import current_pane

        pane = current_pane(self)
        if bar.has_class("-open"):
            self._close_bar()  # typing abandoned: a search already active stays active
        elif pane is not None:
            pane.action_escape()  # Esc reaches the re-run pane whichever pane has focus
        elif self.search.active:
            self.search.clear()
        elif self.mask:
            self._set_filter(0, self.selected_row)

    def on_input_submitted(self: ActionHost, event: Input.Submitted) -> None:
        """Enter: the query becomes the active search (n / N walk it); the bar closes."""
        query = event.value
        if event.input.id != "search":
            return
        if not query or self.spans.view is None or len(self.spans.view) == 0:
            return
        self._close_bar()
        self.search.start(query)  # ui/find.py

    # ------------------------------------------------------------------ following
    def action_toggle_follow(self: ActionHost) -> None:
        self.live.toggle()

    def action_open_run(self: ActionHost) -> None:
        self.live.pick_run()
