"""Search like less and lnav: ``/`` text Enter, then ``n``/``N`` walk the matches until Esc.

A search is active from Enter until Esc clears it. Enter jumps to the first match after the
cursor on a thread worker (a million-row run never blocks a key), and a second worker counts
every match of the list; the list's border subtitle says ``/query · match 3/17`` (``3/…`` while
the count runs). Once counted, ``n``/``N`` step through the positions at once; before that
(or after the list changed: a filter, new rows of a live run) each step is another worker
search. Stepping past either end wraps and says so, as less does.

The flow sees the app only as a Textual ``App``: it never imports the app module.
"""

from __future__ import annotations

from array import array
from typing import Any

from rich.text import Text
from textual.app import App
from textual.worker import get_current_worker

from tracetui.analysis.rows import RowView
from tracetui.analysis.search import count_matches, ordinal, row_matcher, step_match
from tracetui.model.text import neutralize_line
from tracetui.ui.widgets.detail import DetailPane
from tracetui.ui.widgets.span_list import SpanList

WRAPPED = {1: "search wrapped to the top", -1: "search wrapped to the bottom"}


class SearchFlow:
    """The active search of one viewer: its query, the counted matches, the walk between them."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.query = ""
        """The active query; empty when no search is active."""
        self.seq = 0
        """Bumped by every search and step: a worker's late answer for an older one is dropped."""
        self.count_seq = 0
        self.found: array[int] = array("q")
        self.known = 0
        """How many entries of ``found`` the UI thread may read (the count is still adding)."""
        self.done = False
        self.view: RowView | None = None
        """The list the count is for, and its length then: a change makes the count stale."""
        self.length = 0

    @property
    def active(self) -> bool:
        return bool(self.query)

    @property
    def spans(self) -> SpanList:
        return self.app.query_one(SpanList)

    # ------------------------------------------------------------------ entry points
    def start(self, query: str) -> None:
        """Enter in the search bar: make ``query`` the active search and find its first match."""
        view = self.spans.view
        if not query or view is None:
            return
        self.query = query
        self.app.refresh_bindings()  # the footer shows "n Next match" while a search is active
        self._highlight(query)
        self._recount(view)
        self._find(view, 1, announce_wrap=False)

    def step(self, step: int) -> None:
        """``n`` (1) or ``N`` (-1): the next or previous match."""
        view = self.spans.view
        if view is None or not self.query:
            return
        if view is not self.view or len(view) != self.length:
            self._recount(view)  # the list changed under the count
        if not self.done:
            self._find(view, step, announce_wrap=True)
            return
        hit = step_match(self.found, self.spans.cursor, step)
        if hit is None:
            self._no_match()
            return
        self.seq += 1
        self._land(self.seq, hit[0], step if hit[1] else 0)

    def clear(self) -> None:
        """Esc: no search is active any more; the highlight and the count go."""
        self.query = ""
        self.seq += 1
        self.count_seq += 1
        self.app.workers.cancel_group(self.app, "search")
        self.app.workers.cancel_group(self.app, "search-count")
        self.view, self.done, self.known = None, False, 0
        self._highlight("")
        self.show_count()
        self.app.refresh_bindings()  # no search: the footer's "n Next match" goes

    # ------------------------------------------------------------------ workers
    def _find(self, view: RowView, step: int, *, announce_wrap: bool) -> None:
        self.seq += 1
        seq, query, start = self.seq, self.query, self.spans.cursor
        app = self.app

        def run() -> None:
            worker = get_current_worker()
            match = row_matcher(view.index, query)
            pos = view.search(start, match, step, cancelled=lambda: worker.is_cancelled)
            if worker.is_cancelled:
                return
            wrapped = pos is not None and (pos <= start if step > 0 else pos >= start)
            app.call_from_thread(self._land, seq, pos, step if wrapped and announce_wrap else 0)

        app.run_worker(run, group="search", exclusive=True, thread=True, exit_on_error=False)

    def _recount(self, view: RowView) -> None:
        self.count_seq += 1
        seq, query, app = self.count_seq, self.query, self.app
        self.view, self.length = view, len(view)
        found: array[int] = array("q")
        self.found, self.known, self.done = found, 0, False
        self.show_count()

        def run() -> None:
            worker = get_current_worker()
            match = row_matcher(view.index, query)
            n = self.length

            def progress(_scanned: int) -> None:
                app.call_from_thread(self._counted, seq, len(found), False)

            finished = count_matches(
                n,
                view.row_at,
                match,
                found,
                progress=progress,
                cancelled=lambda: worker.is_cancelled,
            )
            if finished and not worker.is_cancelled:
                app.call_from_thread(self._counted, seq, len(found), True)

        app.run_worker(run, group="search-count", exclusive=True, thread=True, exit_on_error=False)

    # ------------------------------------------------------------------ answers (UI thread)
    def _land(self, seq: int, pos: int | None, wrapped: int) -> None:
        if seq != self.seq or not self.query:
            return  # a newer search or step, or Esc, came first
        if pos is None:
            self._no_match()
            return
        if wrapped:
            self.app.notify(WRAPPED[wrapped], timeout=3)
        self.spans.move_to(pos, center=True)
        self.show_count()

    def _counted(self, seq: int, known: int, done: bool) -> None:
        if seq != self.count_seq:
            return
        self.known, self.done = known, done
        self.show_count()

    def _no_match(self) -> None:
        self.app.notify(f"no match for {self.query!r}", timeout=3, markup=False)

    # ------------------------------------------------------------------ display
    def count_text(self) -> str:
        """``match 3/17`` on a match, ``17 matches`` elsewhere; ``…`` for what is not counted yet."""
        total = f"{self.known:,}" if self.done else "…"
        pos = self.spans.cursor
        number = ordinal(self.found, self.known, pos)
        if number is not None:
            return f"match {number:,}/{total}"
        return f"{total} matches" if self.done else "…/…"

    def show_count(self) -> None:
        """The list pane's subtitle: the active search and where the cursor is among its matches."""
        pane = self.app.query_one("#list-pane")
        if not self.query:
            pane.border_subtitle = ""
            return
        text = f"/{neutralize_line(self.query)} · {self.count_text()}"
        pane.border_subtitle = Text(text)  # never markup

    def _highlight(self, query: str) -> None:
        self.spans.set_highlight(query)
        for detail in self.app.query(DetailPane):
            detail.set_highlight(query)
