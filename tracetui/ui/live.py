"""Live following in the viewer (SPEC §5 "Live"; docs/live.md, "In the viewer").

A :class:`LiveFollow` owns the :class:`~tracetui.live.follow.Follower` of the open run. The
follower's catch-up reads what the run holds, on a worker thread: a big run through
``build_index`` with the persistent index (:mod:`tracetui.live.seed`, which leaves an unfinished
last line to the follower), a small one from its start by the follower itself. When it has read
what is there, the app shows the index as usual (the latest failure selected) and the
follower's own thread takes over, woken by file-system events.

The follower's callbacks run on its thread: they only ``post_message`` a :class:`LiveUpdate`
(thread-safe, never blocking, so stopping the follower from the UI thread cannot deadlock).
The app hands each one back to :meth:`LiveFollow.handle` on its own thread.

Back-pressure: the follower stops reading while rows it appended wait to be taken into the
list (``backlog``). A pause by the user (``f``) makes the backlog look full, and the thread
then sleeps on :class:`PausableWaiter` until resumed, so a paused view costs no wake-ups.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message

from tracetui.live.follow import Follower
from tracetui.live.foreign import ForeignFollower
from tracetui.live.watch import Waiter, make_waiter
from tracetui.model.spans import Span
from tracetui.model.text import neutralize_line
from tracetui.store.ids import table_for
from tracetui.store.index import RunIndex
from tracetui.store.live_import import empty_run, first_line_format
from tracetui.store.reader import BadLine
from tracetui.store.runset import Run, RunSetError, open_path
from tracetui.ui.host import ViewerHost
from tracetui.ui.messages import (
    IndexFailed,
    IndexProgress,
    IndexReady,
    post_ready,
    progress_poster,
    run_bytes,
)
from tracetui.ui.recent_rows import RecentRows
from tracetui.ui.screens.run_picker import RunPicker
from tracetui.ui.widgets.detail import DetailPane
from tracetui.ui.widgets.redraw import show_text
from tracetui.ui.widgets.running import running_text

MAX_BACKLOG = 20_000
"""Rows appended but not yet taken into the list before the follower waits for the UI."""
PAUSED_BACKLOG = 1 << 62
"""What ``backlog`` reports while the user paused: always over ``MAX_BACKLOG``."""


@dataclass
class LiveUpdate(Message):
    """From the follower thread: rows were appended, a run file appeared, or a note."""

    rows: int = 0
    new_run: str | None = None
    note: str | None = None
    select: int | None = None
    """After a re-open: the index row to put the cursor back on."""
    generation: int = 0
    """Which follower sent it: messages from a stopped one are dropped."""
    running: bool = False
    """A foreign session's running calls changed (``ForeignFollower.pending``)."""
    reset: RunIndex | None = None
    """A foreign trace was converted again from its start, into this index."""
    named: str | None = None
    """A file empty when opened turned out, at its first line, to be this agent's format."""

    def can_replace(self, message: Message) -> bool:
        """Rows only, and the next update of the same follower has rows too: that one does it.

        ``handle`` takes in every row the index holds, not a count: at thousands of rows a
        second, one sync per frame instead of one per follower batch kept the list on time.
        """
        return (
            isinstance(message, LiveUpdate)
            and message.generation == self.generation
            and message.rows > 0
            and self.rows > 0
            and self.new_run is None
            and self.note is None
            and self.select is None
            and not self.running
            and self.reset is None
            and self.named is None
        )


class PausableWaiter(Waiter):
    """Wraps the follower's waiter: while the user paused, sleep until resumed."""

    def __init__(self, inner: Waiter) -> None:
        self.inner = inner
        self.user_paused = False
        self._resume = threading.Event()

    def wait(self, *, busy: bool = False, paused: bool = False) -> None:
        if self.user_paused:
            self._resume.wait()
            self._resume.clear()
            return
        self.inner.wait(busy=busy, paused=paused)

    def set_paused(self, paused: bool) -> None:
        self.user_paused = paused
        if not paused:
            self._resume.set()

    def close(self) -> None:
        self.user_paused = False
        self._resume.set()
        self.inner.close()


class SwitchRunPicker(RunPicker):
    """The run picker opened from a live view: Esc closes it instead of leaving tracetui."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="picker.close", tooltip="Keep the current run")
    ]

    def action_close(self) -> None:
        self.dismiss(None)


class LiveFollow:
    """The follower of the open run and the live state the header shows."""

    def __init__(self, app: ViewerHost) -> None:
        self.app = app
        self.follower: Follower | ForeignFollower | None = None
        self.waiter: PausableWaiter | None = None
        self.paused = False
        """Set by the user (``f``): no rows are read or taken in."""
        self.taken = 0
        """Index rows the list had taken in at the last update (the backlog is the rest)."""
        self.catching_up: int | None = None
        """The generation whose catch-up is reading the run (on its worker): its rows wait for
        no list, so no backlog holds it back."""
        self.generation = 0
        self._mark = 0
        """List length when the cursor was last on the bottom row: rows after it are "new"."""
        self._view: object | None = None
        self.recent: RecentRows | None = None
        """The newest rows as the follower parsed them (filled on its thread)."""

    @property
    def active(self) -> bool:
        return self.follower is not None

    @property
    def new_rows(self) -> int:
        view = self.app.spans.view
        return max(0, len(view) - self._mark) if view is not None and view is self._view else 0

    # ------------------------------------------------------------------ open / stop
    def open(self, run: Run, *, keep_row: int | None = None) -> bool:
        """Follow ``run`` (catch-up on a worker, then the follower's thread); False if frozen."""
        self.stop()
        if not self.app.follow:
            # --no-follow: build_index as before.
            self.refresh_header()
            return False
        self.generation += 1
        self.paused = False
        gen = self.generation
        if run.source_format is not None:
            # Another agent's session: converted as it grows (live/foreign.py).
            self.follower = ForeignFollower(
                run,
                on_note=lambda text: self._post(LiveUpdate(note=text, generation=gen)),
                on_pending=lambda: self._post(LiveUpdate(running=True, generation=gen)),
                on_reset=lambda index: self._reset(index, gen),
                backlog=self._backlog,
                max_backlog=MAX_BACKLOG,
            )
        else:
            self.follower = Follower(
                run,
                on_new_run=lambda path: self._post(LiveUpdate(new_run=path, generation=gen)),
                on_note=lambda text: self._post(LiveUpdate(note=text, generation=gen)),
                backlog=self._backlog,
                max_backlog=MAX_BACKLOG,
                watch_dir=True,
                seed=True,  # a big run's first read: build_index, with the persistent index
                on_progress=progress_poster(self._post, run_bytes(run)),
            )
        self.taken = 0
        self.recent = None
        follower = self.follower
        self.app.run_worker(
            lambda: self._catch_up(follower, gen, keep_row),
            thread=True,
            exclusive=True,
            exit_on_error=False,
            group="index",
            name="live catch-up",
        )
        return True

    def _catch_up(
        self, follower: Follower | ForeignFollower, gen: int, keep_row: int | None
    ) -> None:
        """Worker thread: read what the run holds now, show it, then start following."""
        total = run_bytes(follower.run)
        # A file still empty cannot be told from a new run of ours: named at its first line.
        undecided = follower.run.source_format is None and empty_run(follower.run)
        # Read to the end before the index is shown: a backlog of rows the list has not taken
        # would stop the loop early (at MAX_BACKLOG rows) and stream the rest through the list,
        # 20,000 rows an update: a million-row open took 13.6 s instead of ~3 s.
        self.catching_up = gen
        try:
            while gen == self.generation and not undecided:
                follower.poll_once()
                done = sum(im.size for im in list(follower.index.members))
                self._post(IndexProgress(done, total))
                if not follower.more:
                    break
        except Exception as exc:
            self._post(IndexFailed(f"{type(exc).__name__}: {exc}"))
            return
        finally:
            if self.catching_up == gen:
                self.catching_up = None
        if gen != self.generation:
            return  # another run was opened meanwhile; open() stopped this follower
        # As a frozen view's indexing thread does (ui/messages.post_ready): the id column's
        # table is made here, the index shown, then the id registry settled and the chains
        # linked on this worker; the follower starts once the index is shown. The table is kept
        # up to date on the follower's thread: a million ids take seconds to sort, and new rows
        # are inserted one by one, neither of which belongs on the UI thread.
        self.taken = len(follower.index)
        try:
            post_ready(
                follower.index,
                self._post,
                lambda: gen != self.generation,
                shown=lambda: self._follow_on(follower, gen, keep_row, undecided=undecided),
            )
        except Exception as exc:  # a bug: said, not left to die with the worker
            self._post(IndexFailed(f"{type(exc).__name__}: {exc}"))

    def _follow_on(
        self,
        follower: Follower | ForeignFollower,
        gen: int,
        keep_row: int | None,
        *,
        undecided: bool,
    ) -> None:
        """Catch-up worker, right after the index is shown: start following (or wait for the
        first line of a file still empty)."""
        if gen != self.generation:
            return  # another run was opened meanwhile: open() stopped this follower
        if keep_row is not None:
            self._post(LiveUpdate(select=keep_row, generation=gen))

        def on_rows(first: int, items: Sequence[Span | BadLine]) -> None:
            table_for(follower.index)
            recent = self.recent
            if recent is None or recent.index is not follower.index:  # (a foreign re-read)
                recent = self.recent = RecentRows(follower.index)
            recent.add(first, items)  # the list draws them as parsed (ui/recent_rows.py)
            self._post(LiveUpdate(rows=len(items), generation=gen))

        # Rows read from here on are announced; IndexReady is queued before any of them.
        follower.on_rows = on_rows
        self.waiter = PausableWaiter(make_waiter([follower.folder]))
        # Paused (f) during the catch-up: the thread must start paused too, not read on.
        self.waiter.set_paused(self.paused)
        if undecided:
            # Not on this worker: the app waits for its workers (a test's settle, say).
            threading.Thread(
                target=self._first_line,
                args=(follower, self.waiter, gen),
                name="tracetui-first-line",
                daemon=True,
            ).start()
            self._post(LiveUpdate(running=True, generation=gen))  # LIVE, while it waits
            return
        waiter = self.waiter
        follower.start(waiter)
        if gen != self.generation:
            # stop() ran on the UI thread meanwhile (another run opened): start() cleared the
            # stop it had asked for, so this run's thread must be stopped here.
            follower.stop()
            waiter.close()
            return
        self._post(LiveUpdate(running=True, generation=gen))  # the header says LIVE; running calls

    def _first_line(self, follower: Follower | ForeignFollower, waiter: Waiter, gen: int) -> None:
        """Its own thread: wait for the first complete line of a file empty at the start, then
        follow it as a run of ours, or open it again as the agent's trace it turned out to be."""
        while gen == self.generation:
            ready, fmt = first_line_format(follower.run.base)
            if not ready:
                waiter.wait()
                continue
            if fmt is not None:
                self._post(LiveUpdate(named=fmt, generation=gen))
            elif gen == self.generation:
                follower.start(waiter)
                if gen != self.generation:  # stopped meanwhile, from the UI thread
                    follower.stop()
            return

    def _reset(self, index: RunIndex, gen: int) -> None:
        """Follower thread: a foreign trace is converted again into ``index`` (shown as new)."""
        table_for(index)
        self._post(LiveUpdate(reset=index, generation=gen))

    def stop(self) -> None:
        """Stop the follower thread and close its files (the index stays readable)."""
        follower, self.follower = self.follower, None
        self.generation += 1
        if follower is not None:
            follower.stop()
        if self.waiter is not None:
            self.waiter.close()  # wakes a catch-up waiting for a first line
        self.waiter = None

    def _post(self, message: Message) -> None:
        self.app.post_message(message)

    def _backlog(self) -> int:
        if self.paused:
            return PAUSED_BACKLOG
        if self.catching_up == self.generation:
            return 0
        follower = self.follower
        return len(follower.index) - self.taken if follower is not None else 0

    # ------------------------------------------------------------------ UI thread
    def handle(self, msg: LiveUpdate) -> None:
        """Apply one update from the follower (called by the app on its thread)."""
        if msg.generation != self.generation or self.follower is None:
            return
        app = self.app
        if msg.note:
            app.notify(
                neutralize_line(msg.note),
                title="follow",
                severity="warning",
                timeout=10,
                markup=False,
            )
        if msg.new_run:
            self._new_run(msg.new_run)
        if msg.reset is not None:
            self._show_reset(msg.reset)
        if msg.named is not None:
            run = self.follower.run
            run.source_format = msg.named
            self.open(run)
            return
        if msg.select is not None and app.index is not None and msg.select < len(app.index):
            app.select_row(msg.select)
        if msg.rows:
            app.spans.recent = self.recent
            index = self.follower.index
            seen = len(index)
            view = app.spans.view
            if view is not None and self._view is not view:
                self._view, self._mark = view, len(view)
            app.rows_appended()
            self.taken = seen
        if isinstance(self.follower, ForeignFollower) and (msg.rows or msg.running):
            follower = self.follower
            fresh = None if follower.by_line else follower.fresh
            view = app.spans.view
            shown = len(view) if view is not None and view.mask == 0 else len(follower.index)
            app.spans.set_running(follower.running(shown), fresh, follower.index)
        self.cursor_moved()

    def _show_reset(self, index: RunIndex) -> None:
        """A foreign trace converted again: show the new index, the cursor on the same call."""
        app = self.app
        old, row = app.index, app.selected_row
        cid = old.ids[row] if old is not None and row is not None and row < len(old) else None
        self.taken = len(index)
        self._view = None
        app.post_message(IndexReady(index))
        keep = index.id_rows.get(cid) if cid is not None else None
        if keep is not None:
            self._post(LiveUpdate(select=keep, generation=self.generation))

    def cursor_moved(self) -> None:
        """The cursor moved (or rows arrived): on the bottom row nothing is "new" any more."""
        view = self.app.spans.view
        if view is not None and (view is not self._view or self.app.spans.cursor >= len(view) - 1):
            self._view, self._mark = view, len(view)
        call = self.app.spans.running_call()
        if call is not None:
            # On a call still running: the detail pane says since when (it has no row yet).
            body = self.app.query_one(DetailPane).body
            show_text(body, running_text(call, body.st("label"), body.st("dim")))  # no layout
        self.refresh_header()

    def refresh_header(self) -> None:
        from tracetui.ui.widgets.run_header import RunHeader

        state = "" if self.follower is None else "PAUSED" if self.paused else "LIVE"
        running = len(self.app.spans.running) if self.follower is not None else 0
        self.app.query_one(RunHeader).set_facts(state=state, new=self.new_rows, running=running)

    def toggle(self) -> None:
        """``f``: pause or resume; in a frozen view, start following (the run is re-read)."""
        app = self.app
        if self.follower is None:
            run = app.run_
            if run is None:
                return
            app.follow = True
            keep = app.selected_row
            if self.open(run, keep_row=keep):
                app.notify("following: re-reading the run", timeout=3)
            return
        self.paused = not self.paused
        if self.waiter is not None:
            self.waiter.set_paused(self.paused)
        self.refresh_header()
        app.notify(
            "paused: new spans wait until f" if self.paused else "following new spans", timeout=3
        )

    def _new_run(self, path: str) -> None:
        """A run file appeared in the folder: offer it in the run picker (``o``)."""
        app = self.app
        known = {os.path.abspath(r.base) for r in app.runs}
        try:
            runs = [r for r in open_path(path) if os.path.abspath(r.base) not in known]
        except RunSetError:
            return
        if not runs:
            return
        app.runs.extend(runs)
        for run in runs:
            app.notify(
                f"new run: {neutralize_line(run.name)} — press o to open it",
                title="new run",
                timeout=10,
                markup=False,
            )

    def pick_run(self) -> None:
        """``o``: choose another run of the folder (new ones included)."""
        app = self.app
        if len(app.runs) < 2:
            app.notify("no other run here (new run files are offered when they appear)", timeout=4)
            return
        app.push_screen(SwitchRunPicker(app.runs), app.open_run)
