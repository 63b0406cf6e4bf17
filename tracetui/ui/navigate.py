"""The viewer's moving keys, as a mixin of the app: rows, pages, jumps, matches, goto, zoom.

They move the span list's cursor (or zoom a pane) and nothing else, so they live apart from the
app's state handling. The mixin never imports the app: its methods are typed against
:class:`NavHost`, the part of the app they use, and mypy checks the app has it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

from textual.screen import Screen, ScreenResultCallbackType
from textual.widget import Widget

from tracetui.analysis.suspicions import next_suspicious
from tracetui.model.flags import FAILED, TRUNCATED
from tracetui.model.text import neutralize_line
from tracetui.store import id_search
from tracetui.store.ids import IdError, resolve, shown_id
from tracetui.store.index import RunIndex
from tracetui.ui.find import SearchFlow
from tracetui.ui.screens.ask import AskScreen
from tracetui.ui.widgets.span_list import SpanList

RESOLVE_ASIDE = 50_000
"""Runs of this many rows or more look for ``g``'s id on a thread, not on the UI thread."""
ZOOMABLE = ("list-pane", "detail", "chain", "rerun")
"""The panes ``z`` can show full screen: the one holding the focus."""


class NavHost(Protocol):
    """What the moving keys use of the app."""

    index: RunIndex | None
    search: SearchFlow
    selected_row: int | None

    @property
    def spans(self) -> SpanList: ...

    @property
    def screen(self) -> Screen[object]: ...

    def select_row(self, row: int) -> None: ...

    def notify(self, message: str, *, timeout: float | None = ..., markup: bool = ...) -> None: ...

    def push_screen(
        self, screen: Screen[str | None], callback: ScreenResultCallbackType[str | None] | None
    ) -> object: ...

    def exit(self, result: int) -> None: ...

    def run_worker(
        self,
        work: Callable[[], Any],
        *,
        group: str = ...,
        thread: bool = ...,
        exit_on_error: bool = ...,
    ) -> object: ...

    def call_from_thread(self, callback: Callable[..., Any], *args: Any) -> Any: ...


class Navigation:
    """Actions of the moving keys (mixed into the app; see ``ui/keys.py`` for the keys)."""

    def action_cursor_down(self: NavHost) -> None:
        self.spans.move_by(1)

    def action_cursor_up(self: NavHost) -> None:
        self.spans.move_by(-1)

    def action_page_down(self: NavHost) -> None:
        self.spans.move_by(self.spans.page)

    def action_page_up(self: NavHost) -> None:
        self.spans.move_by(-self.spans.page)

    def action_half_page_down(self: NavHost) -> None:
        self.spans.move_by(max(1, self.spans.page // 2))

    def action_half_page_up(self: NavHost) -> None:
        self.spans.move_by(-max(1, self.spans.page // 2))

    def action_first(self: NavHost) -> None:
        self.spans.move_to(0)

    def action_last(self: NavHost) -> None:
        self.spans.move_to(len(self.spans.view or ()) - 1)

    # ------------------------------------------------------------------ jumps
    def _jump(self: NavHost, mask: int, step: int, what: str) -> None:
        view = self.spans.view
        if view is None:
            return
        # On a running call (drawn after the rows) the search starts just past the last row:
        # from the second call on, the cursor's position is further still, and the index
        # looked back from rows it does not hold yet (and found nothing).
        pos = view.find(min(self.spans.cursor, len(view)), mask, step)
        if pos is None:
            self.notify(f"no {what} {'below' if step > 0 else 'above'}", timeout=3)
            return
        self.spans.move_to(pos, center=True)

    def action_next_failure(self: NavHost) -> None:
        Navigation._jump(self, FAILED, 1, "failure")

    def action_prev_failure(self: NavHost) -> None:
        Navigation._jump(self, FAILED, -1, "failure")

    def action_next_truncated(self: NavHost) -> None:
        Navigation._jump(self, TRUNCATED, 1, "truncated span")

    def action_prev_truncated(self: NavHost) -> None:
        Navigation._jump(self, TRUNCATED, -1, "truncated span")

    def _jump_suspicion(self: NavHost, step: int) -> None:
        """Walk rows an incident rule fires on (lnav's w/W walk warnings); the columns rule out
        most rows without reading them."""
        index, row = self.index, self.selected_row
        if index is None:
            return
        start = row if row is not None else (-1 if step > 0 else len(index))
        found = next_suspicious(index, start, step)
        if found is None:
            where = "below" if step > 0 else "above"
            self.notify(f"no suspicion (TT019-TT025) {where}", timeout=3)
            return
        self.select_row(found)

    def action_next_suspicion(self: NavHost) -> None:
        Navigation._jump_suspicion(self, 1)

    def action_prev_suspicion(self: NavHost) -> None:
        Navigation._jump_suspicion(self, -1)

    def action_latest_failure(self: NavHost) -> None:
        if self.index is None or self.index.latest_failure is None:
            self.notify("no failure in this run", timeout=3)
            return
        self.select_row(self.index.latest_failure)

    def action_next_match(self: NavHost) -> None:
        """``n``: the next match of the active search (less, lnav); with none, the next failure."""
        if self.search.active:
            self.search.step(1)
        else:
            Navigation._jump(self, FAILED, 1, "failure")

    def action_prev_match(self: NavHost) -> None:
        if self.search.active:
            self.search.step(-1)
        else:
            Navigation._jump(self, FAILED, -1, "failure")

    # ------------------------------------------------------------------ goto
    def action_goto(self: NavHost) -> None:
        index = self.index
        if index is None:
            return
        if len(index) >= RESOLVE_ASIDE:  # the id column joined while the answer is typed
            self.run_worker(
                partial(id_search.column_of, index, index.ids, len(index)),
                group="goto-column",
                thread=True,
                exit_on_error=False,
            )
        ask = AskScreen(
            "Go to a row number or a span id:",
            "",
            "an id (whole, as shown, or a unique part of it) or a row number (#12 is always "
            "row 12) · Enter: go · Esc: cancel",
        )
        self.push_screen(ask, lambda answer: Navigation.goto(self, answer))

    def goto(self: NavHost, answer: str | None) -> None:
        """Go to the span whose id ``answer`` names, or to row ``answer`` (1-based).

        Digits are a row number, unless the list shows an id as exactly those digits; ``#12``
        is always row 12. In a run of :data:`RESOLVE_ASIDE` rows or more the id is looked for
        on a thread (a part of every id of a million is seconds of work) and the cursor moves
        when it is found, unless another run was opened meanwhile.
        """
        index = self.index
        if answer is None or index is None:
            return
        if len(index) < RESOLVE_ASIDE:
            Navigation._went(self, index, answer, _resolved(index, answer))
            return

        def aside() -> None:
            found = _resolved(index, answer)
            self.call_from_thread(Navigation._went, self, index, answer, found)

        self.run_worker(aside, group="goto", thread=True, exit_on_error=False)

    def _went(self: NavHost, index: RunIndex, answer: str, found: tuple[int | None, str]) -> None:
        """The end of :meth:`goto`, with what ``resolve`` found: ``(row, "")`` or ``(None,
        its error)``."""
        if self.index is not index:
            return  # another run opened meanwhile: the answer was about the one before
        number = answer[1:] if answer.startswith("#") else answer
        row: int | None = None
        hit, error = found
        error = error or f"no row or span {answer!r}"
        if hit is not None:
            # Digits name an id only when the list shows that id as those digits (``0006``).
            shown = shown_id(index, index.ids[hit]).strip("…")
            if not number.isdigit() or (shown == answer and not answer.startswith("#")):
                row = hit
        if row is None and number.isdigit() and 1 <= int(number) <= len(index):
            row = int(number) - 1
        if row is None:
            self.notify(error, timeout=5, markup=False)
            return
        self.select_row(row)

    # ------------------------------------------------------------------ panes
    def action_zoom(self: NavHost) -> None:
        """``z``: the focused pane full screen, or back."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
            return
        pane = _focused_pane(screen.focused)
        if pane is None:
            self.notify("no pane to zoom: Tab to one", timeout=3)
            return
        screen.maximized = pane

    def action_quit_app(self: NavHost) -> None:
        """``q``: close what is open over the list (a zoom, the re-run pane), else quit."""
        screen = self.screen
        if screen.maximized is not None:
            screen.minimize()
            return
        # Imported here: the pane's module (the re-run machinery) is ~40 ms of a viewer's start.
        from tracetui.ui.widgets.rerun_pane import current_pane

        pane = current_pane(self.screen)
        if pane is not None:
            pane.action_close()
            return
        self.exit(0)


def _resolved(index: RunIndex, answer: str) -> tuple[int | None, str]:
    """``(row, "")`` of the span ``answer`` names in ``index``, or ``(None, why not)``."""
    try:
        _ix, row = resolve([index], answer)
    except IdError as exc:
        return None, neutralize_line(str(exc))
    return row, ""


def _focused_pane(focused: Widget | None) -> Widget | None:
    node = focused
    while isinstance(node, Widget):
        if node.id in ZOOMABLE:
            return node
        node = node.parent if isinstance(node.parent, Widget) else None
    return None
