"""The viewer: ``tracetui view PATH…`` (SPEC §5).

Data flows one way: run → index (built on a thread worker, so the first frame paints at once)
→ the app's state (the selected row, the raw toggle, the filter) → the widgets. Keys are app
bindings with ids (remappable through the user's keymap.toml, ui/keymap.py) and tooltips,
so they work whichever pane has focus; the same actions are in the command palette. The moving
keys are in ui/navigate.py, the search in ui/find.py. The live follower (another module) grows
the index and calls :meth:`TraceApp.rows_appended`.

The parts the app hands itself to (the follower, the re-run flow) see it as a
:class:`~tracetui.ui.host.ViewerHost` and never import this module; widgets post messages.
The app alone changes the run's state: a re-run's new row comes in through
:meth:`TraceApp.on_rerun_pane_recorded`. The keys are in ``ui/keys.py``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Input
from textual.worker import get_current_worker

from tracetui.analysis.chains import ChainIndex
from tracetui.analysis.rows import RowView
from tracetui.model.flags import TRUNCATED
from tracetui.model.text import neutralize_line
from tracetui.store.build import build_index, peek_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import Run
from tracetui.ui import heap
from tracetui.ui.commands import TraceCommands
from tracetui.ui.find import SearchFlow
from tracetui.ui.keymap import keymap_path, load_keymap
from tracetui.ui.keys import VIEW_BINDINGS
from tracetui.ui.live import LiveFollow, LiveUpdate
from tracetui.ui.messages import (
    ChainsReady,
    IndexFailed,
    IndexProgress,
    IndexReady,
    post_ready,
    progress_poster,
    run_bytes,
)
from tracetui.ui.navigate import Navigation
from tracetui.ui.palette import UNMEASURED_THEMES, readable_variables
from tracetui.ui.screens.help import HelpScreen
from tracetui.ui.screens.run_picker import RunPicker
from tracetui.ui.view_actions import FILTERS, ViewActions
from tracetui.ui.widgets.chain import ChainPane
from tracetui.ui.widgets.column_header import ColumnHeader
from tracetui.ui.widgets.detail import DetailPane
from tracetui.ui.widgets.footer import ViewerFooter
from tracetui.ui.widgets.run_header import RunHeader
from tracetui.ui.widgets.span_list import SpanList

if TYPE_CHECKING:
    from tracetui.ui.widgets.rerun_pane import RerunPane

PEEK_ABOVE = 32 << 20
"""Runs bigger than this (bytes) open on a peek at their newest rows while they are indexed."""


class TraceApp(Navigation, ViewActions, App[int]):
    """Review one run: span list, detail, retry chain."""

    CSS_PATH = str(Path(__file__).with_name("tracetui.tcss"))  # absolute: subclasses elsewhere work
    TITLE = "tracetui"
    COMMANDS = App.COMMANDS | {TraceCommands}
    # Textual types it as an instance variable, so it cannot be annotated a ClassVar here.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]  # noqa: RUF012

    BINDINGS: ClassVar[list[BindingType]] = list(VIEW_BINDINGS)  # ui/keys.py

    # repaint=False: a reactive of the app repaints the whole screen when set (a full-screen
    # update, 20-80 ms, on every cursor move); the panes its watchers redraw repaint themselves.
    selected_row: reactive[int | None] = reactive(None, always_update=True, repaint=False)
    """The index row under the cursor; None before the run is indexed or when the view is empty."""
    raw_mode: reactive[bool] = reactive(False, repaint=False)
    """Whether the detail pane shows the raw JSON record."""

    def __init__(self, runs: list[Run], *, follow: bool = True) -> None:
        super().__init__()
        self.runs = runs
        self.follow = follow
        """False with ``--no-follow``: the live follower leaves the run frozen."""
        self.run_: Run | None = None
        self.index: RunIndex | None = None
        self.chains: ChainIndex | None = None
        self.mask = 0
        self.search = SearchFlow(self)
        """The active search (``/``, then ``n`` / ``N``): ui/find.py."""
        self.keymap: dict[str, str] = {}
        """The user's keymap as loaded at start (binding id → keys)."""
        self.live = LiveFollow(self)
        """The live follower of the open run (ui/live.py)."""
        self.peek: RunIndex | None = None
        """The newest rows of a big run, shown until its full index is ready."""
        self._pane_timer: Timer | None = None
        self.peek_start: int | None = None
        self._earlier_shown = False
        """An earlier run's index was still shown when this one was opened (see open_run)."""
        for name in UNMEASURED_THEMES:  # the terminal's colours: contrast unknown (ui/palette.py)
            self.unregister_theme(name)

    def get_css_variables(self) -> dict[str, str]:
        """The theme's variables plus our ``tt-*`` text colours, readable in it (ui/palette.py)."""
        variables = super().get_css_variables()
        self.theme_variables = {**variables, **readable_variables(variables)}
        return self.theme_variables

    def _handle_exception(self, error: Exception) -> None:
        # A crash is tracetui's to report once the terminal is back (ui/launch.py, crash.py):
        # one line naming a file. Textual would print its traceback, locals and all, instead.
        super()._handle_exception(error)
        self._exit_renderables.clear()

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield RunHeader(id="header")
        with Horizontal(id="main"):
            with Vertical(id="list-pane"):
                yield ColumnHeader(id="columns")
                yield SpanList(id="spans")
            with Vertical(id="side"):
                yield DetailPane(id="detail")
                yield ChainPane(id="chain")
        yield Input(
            placeholder="search argv, notes, previews — Enter: first match, then n / N; Esc: close",
            id="search",
        )
        yield ViewerFooter()

    @property
    def closing(self) -> bool:
        """The app is shutting down (its screens are gone): a message that arrives now from a
        worker, the follower or the list has nothing left to update."""
        return not self.screen_stack

    @property
    def spans(self) -> SpanList:
        # The list lives on the main screen, under any screen pushed over it (help, trends…):
        # self.query_one would search the screen on top.
        main = self.screen_stack[0] if self.screen_stack else self.screen
        return main.query_one(SpanList)

    def on_mount(self) -> None:
        self.query_one("#list-pane").border_title = "spans"
        self.query_one(DetailPane).border_title = "detail"
        self.query_one(ChainPane).border_title = "retry chain"
        self.spans.focus()
        ids = [b.id for b in VIEW_BINDINGS if b.id]
        self.keymap, warnings = load_keymap(keymap_path(), ids)  # ui/keymap.py
        self.set_keymap(self.keymap)
        for warning in warnings:  # a path and the user's text: never markup
            self.notify(warning, title="keymap", severity="warning", timeout=10, markup=False)
        if len(self.runs) > 1:
            self.push_screen(RunPicker(self.runs), self.open_run)
        elif self.runs:
            self.open_run(0)

    def open_run(self, number: int | None) -> None:
        if number is None:
            return
        run = self.runs[number]
        earlier = self.run_ is not None
        self.run_ = run
        self.query_one(RunHeader).set_facts(name=run.name, progress="indexing…")
        self._show_peek(run)
        # The collector's full pass now, before the new run's index exists (then it walks a
        # million rows: 0.05-0.2 s): what an earlier run left is let go here, unless it is still
        # shown (no peek replaced it), and then after the new index is drawn.
        heap.settle()
        self._earlier_shown = earlier and self.peek is None
        if not self.live.open(run):
            self._index_worker(run)

    def _show_peek(self, run: Run) -> None:
        """A big run: show its newest rows at once, while the whole set is indexed behind them."""
        self.peek = None
        try:
            size = sum(os.path.getsize(m.path) for m in run.members)
        except OSError:
            return
        if size < PEEK_ABOVE:
            return  # small enough to index before anyone notices
        peek = peek_index(run)
        if peek is None or len(peek) == 0:
            return
        self.peek = peek
        self.index, self.chains, self.mask = peek, ChainIndex(peek), 0
        note = f"indexing… showing the newest {len(peek):,} spans"
        self.query_one(RunHeader).set_facts(index=peek, progress=note)
        start = peek.latest_failure if peek.latest_failure is not None else len(peek) - 1
        self.spans.set_view(RowView(peek), max(start, 0))
        self.peek_start = max(start, 0)  # the cursor lands here (its Selected message comes later)

    def _row_after_peek(self, index: RunIndex) -> int | None:
        """Where the cursor goes when the full index replaces the peek: kept if the user moved it."""
        peek, self.peek = self.peek, None
        if peek is None or self.selected_row is None or self.selected_row == self.peek_start:
            return None
        path, _line = peek.location(self.selected_row)
        return index.row_at(path, peek.offset[self.selected_row])

    # ---------------------------------------------------------------- indexing
    @work(thread=True, exclusive=True, exit_on_error=False, group="index")
    def _index_worker(self, run: Run) -> None:
        total = run_bytes(run)
        worker = get_current_worker()  # quitting cancels it: the build stops between pieces
        try:
            index = build_index(
                run,
                progress=progress_poster(self.post_message, total),
                cancelled=lambda: worker.is_cancelled,
            )
        except Exception as exc:
            self.post_message(IndexFailed(f"{type(exc).__name__}: {exc}"))
            return
        # The id table, the id registry and the chains: never on the UI thread. A failure
        # there (a bug) is said, not left to die with the worker (exit_on_error is off).
        try:
            post_ready(index, self.post_message, lambda: worker.is_cancelled)
        except Exception as exc:
            self.post_message(IndexFailed(f"{type(exc).__name__}: {exc}"))

    def on_index_progress(self, msg: IndexProgress) -> None:
        if self.closing:
            return
        self.query_one(RunHeader).set_facts(progress=f"indexing… {msg.done >> 20:,} MB")

    def on_index_failed(self, msg: IndexFailed) -> None:
        if self.closing:
            return
        self.query_one(RunHeader).set_facts(progress="")
        self.notify(
            f"cannot read this run: {neutralize_line(msg.reason)}",
            severity="error",
            timeout=30,
            markup=False,  # the reason may name a file or quote the trace
        )

    def on_index_ready(self, msg: IndexReady) -> None:
        if self.closing:
            msg.drawn.set()  # nothing will be drawn: the indexing thread need not wait for it
            return
        index = msg.index
        # Frozen now, so drawing the list starts no full pass over a million-row index (0.05-0.3
        # s each); the pass that frees what an earlier run left comes after it is drawn.
        heap.freeze()
        # Twice: the first refresh after this message may be one queued before it.
        self.call_after_refresh(self.call_after_refresh, self._index_drawn, msg)
        kept = self._row_after_peek(index)
        self.index = index
        # Linking: the chains come in a ChainsReady; the chain pane says so until then.
        self.chains = msg.chains if msg.chains is not None or msg.linking else ChainIndex(index)
        self.mask = 0
        self.query_one(RunHeader).set_facts(index=index, progress="")
        start = index.latest_failure if index.latest_failure is not None else len(index) - 1
        if index.latest_failure is None:
            start = _first_lying_row(index, start)
        if kept is not None:
            start = kept
        self.spans.set_view(RowView(index), max(start, 0))
        self._update_list_title()
        if self.run_ is not None:
            for note in self.run_.notes:
                # A note names files and may quote the trace: never markup, never raw.
                self.notify(
                    neutralize_line(note),
                    title="note",
                    severity="warning",
                    timeout=10,
                    markup=False,
                )
        if len(index) == 0 and not self.live.active:
            # (Followed live, spans are on their way: the detail says "No spans yet." until then.)
            self.notify("this run has no spans yet", timeout=5)

    def _index_drawn(self, msg: IndexReady) -> None:
        if self._earlier_shown:  # an earlier run's objects were frozen again with it shown
            self._earlier_shown = False
            heap.settle()
        else:
            heap.freeze_young()
        msg.drawn.set()  # the indexing thread goes on (ui/messages.post_ready)

    def on_chains_ready(self, msg: ChainsReady) -> None:
        if self.closing:
            return
        if msg.index is not self.index or self.chains is not None:
            return  # another run was opened meanwhile (or the app linked them itself)
        self.chains = msg.chains
        heap.freeze()  # what linking made lives as long as the view (ui/heap.py)
        if self.screen_stack:
            for chain in self.screen_stack[0].query(ChainPane):
                chain.show(self.index, self.chains, self.selected_row)

    def rows_appended(self) -> int:
        """Called by the live follower after it appended rows to ``self.index``."""
        spans = self.spans
        added = spans.sync(follow_tail=self.follow)
        if added and self.index is not None:
            spans.screen.query_one(RunHeader).refresh_facts()
            # Redraw the detail and chain panes only when the new rows touch the chain shown:
            # redrawing them on every batch was most of the live view's latency.
            if self._chain_touched(len(self.index) - added):
                self.selected_row = self.selected_row
        return added

    def _chain_touched(self, first_new: int) -> bool:
        row, index, chains = self.selected_row, self.index, self.chains
        if row is None or index is None or chains is None or row >= first_new:
            return row is not None
        chain = chains.chain(row)
        shown = set(chain.rows())
        for new in range(first_new, len(index)):
            pid = index.parent_ids.get(new)
            if pid is not None and index.id_rows.get(pid) in shown:
                return True
            if chain.missing_parent is not None and index.ids[new] == chain.missing_parent:
                return True
        return False

    # --------------------------------------------------------------- selection
    def on_span_list_selected(self, msg: SpanList.Selected) -> None:
        if self.closing:
            return
        if msg.live:
            # Following a busy run moves the cursor on every batch: redraw the detail and chain
            # panes at most ten times a second, so the list keeps up with the writer.
            self.set_reactive(TraceApp.selected_row, msg.row)
            if self._pane_timer is None:
                self._pane_timer = self.set_timer(0.1, self._panes_after_follow)
        else:
            self.selected_row = msg.row
        self.live.cursor_moved()
        if self.search.active:
            self.search.show_count()

    def _panes_after_follow(self) -> None:
        self._pane_timer = None
        self.selected_row = self.selected_row

    def on_live_update(self, msg: LiveUpdate) -> None:
        if self.closing:
            return
        self.live.handle(msg)

    def on_unmount(self) -> None:
        self.live.stop()  # the follower thread ends with the app, its files closed
        if self._pane_timer is not None:
            self._pane_timer.stop()

    def watch_selected_row(self, row: int | None) -> None:
        # The panes live on the main screen, whatever screen is on top; during shutdown there
        # may be none left to redraw.
        if not self.screen_stack:
            return
        main = self.screen_stack[0]
        for detail in main.query(DetailPane):
            detail.show(self.index, row, self.raw_mode)
        for chain in main.query(ChainPane):
            chain.show(self.index, self.chains, row)

    def watch_raw_mode(self, raw: bool) -> None:
        self.query_one(DetailPane).show(self.index, self.selected_row, raw)
        self.query_one(DetailPane).border_title = "raw record" if raw else "detail"

    def select_row(self, row: int) -> None:
        """Put the cursor on index row ``row``, clearing a filter that hides it."""
        view = self.spans.view
        if view is None:
            return
        pos = view.pos_of(row)
        if pos is None:
            self.notify(f"the {FILTERS.get(self.mask, 'filter')} filter hid that row: cleared")
            self._set_filter(0, row)
            return
        self.spans.move_to(pos, center=True)

    def on_rerun_pane_recorded(self, msg: RerunPane.Recorded) -> None:
        """A re-run was written to the run's re-runs file: show its row in the list and chain."""
        if self.closing:
            return
        path, run, index = msg.sidecar_path, self.run_, self.index
        if not self.is_running or not self.screen_stack or run is None or index is None:
            # Closing (a quit, or the end of a Pilot test right after a re-run): the app closes
            # its screens while it still takes messages, so this may come with the list half
            # removed or none left. Nobody will see the row: drop it. (A screen pushed over the
            # main one is no reason: the row goes to the list under it.)
            return
        run.sidecar = path
        if self.live.active:
            return  # the follower notices a new re-runs file by itself and reads it
        try:
            index.take_in_sidecar(path)  # a few rows, read from where indexing stopped
        except OSError as exc:
            why = exc.strerror or exc
            self.notify(f"cannot read {neutralize_line(path)}: {why}", timeout=8, markup=False)
            return
        self.rows_appended()

    # ----------------------------------------------------------------- actions
    # (The others are in ui/view_actions.py; these open screens.) Each screen's module is
    # imported on its first use: with the re-run machinery, the report writer and the kept
    # output's reader they are ~80 ms of a viewer's start, before any row shows.
    def action_export_report(self) -> None:
        from tracetui.ui.report_export import export_report

        export_report(self, self.index, self.selected_row)

    def action_rerun(self) -> None:
        from tracetui.ui.screens.confirm_rerun import start_rerun

        start_rerun(self, self.selected_row)

    def action_stats(self) -> None:
        from tracetui.ui.screens.stats import show_stats

        show_stats(self, self.index)

    def action_unseen(self) -> None:
        from tracetui.ui.screens.unseen import show_unseen

        show_unseen(self, self.selected_row)

    def action_help(self) -> None:
        self.push_screen(HelpScreen(list(self.BINDINGS), self.keymap))  # type: ignore[arg-type]

    def palette_bindings(self) -> list[Binding]:
        """The actions offered in the command palette."""
        return [b for b in self.BINDINGS if isinstance(b, Binding) and b.action != "clear"]


_LIE_CHECKS = 64
"""How many truncated rows the start-row search reads at most: a bounded look, never a scan."""


def _first_lying_row(index: RunIndex, default: int) -> int:
    """With no failure, the first truncated span whose record still says ``ok_preview: true``
    (the lie lint flags, docs/viewer.md); ``default`` when none is found among the first few."""
    checked = 0
    for row, flags in enumerate(index.flags):
        if not flags & TRUNCATED:
            continue
        span = index.span(row)
        if span is not None and span.ok_preview is True:
            return row
        checked += 1
        if checked >= _LIE_CHECKS:
            break
    return default
