"""Following another agent's trace while it is written (docs/live.md, "Other agents' sessions").

A :class:`ForeignFollower` keeps a :class:`~tracetui.store.index.RunIndex` growing with a
Claude Code session, a Codex rollout or ``codex exec --json`` stream, or any other format
tracetui imports. It has the :class:`~tracetui.live.follow.Follower`'s shape (``poll_once``,
``more``, ``start``/``stop``, ``on_rows``), so ``tail`` and the viewer drive either one.

Three ways, chosen per file by its shape (:func:`~tracetui.store.live_import.follow_shape`;
the importer tells a line-fed file from a document, so an OpenHands ``events.json`` array is
read whole while its event lines are fed):

- **Line by line** (files whose importer has a feeder): each complete line, as it is written,
  goes to the feeder (:class:`~tracetui.store.live_import.LineImport`); a partial last line waits
  for its newline; lines are bounded as the store's reader bounds them. The calls still waiting
  for a result are a :class:`~tracetui.store.live_import.Pending` snapshot (:attr:`pending`),
  shown as *running* rows after the committed ones; when a result arrives the call becomes the
  next row. A file that shrinks, is replaced or no longer starts with what was read is
  converted again from its start, into a new index (``on_reset``), with a note saying so.
- **File by file** (a folder of event files, OpenHands V1's ``events/``): new files are fed in
  the importer's order through its folder feeder; one that does not parse yet is waited for
  (skipped, with a note, once later files exist and it stayed unchanged ``settle`` seconds).
- **Read again whole** (files without a feeder, or shaped as one document — one JSON value,
  a zip — and any gzip'd file): converted again once it changed and then stayed the same for
  :data:`SETTLE` seconds. New records after the rows already there are appended, and
  :attr:`fresh` names them; a re-read whose records no longer start with those rows starts a
  new index (``on_reset``), with a note. The calls at the end still without a result are
  pending, not rows, so their result arriving changes no row.

Nothing here imports Textual; callbacks run on the thread that polls.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO

from tracetui.live.rowitems import Item, RowItems
from tracetui.live.watch import HEAD, POLL_MIN, Waiter, ident_of, make_waiter
from tracetui.store.index import RunIndex
from tracetui.store.live_import import (
    DOCUMENT,
    FOLDER,
    LINES,
    DocumentImport,
    ImportSink,
    LineImport,
    Pending,
    RunningCall,
    follow_shape,
)
from tracetui.store.reader import iter_lines, loads, open_regular
from tracetui.store.runset import Run

RowsCallback = Callable[[int, Sequence[Item]], None]
SETTLE = 0.2
"""Seconds a whole-document trace must stay unchanged (size, mtime) before it is read again."""
BATCH = 5_000
"""Lines read at most per poll (the rest on the next, at once: :attr:`ForeignFollower.more`)."""


class ForeignFollower:
    """Keeps an index growing with another agent's trace as it is written."""

    def __init__(
        self,
        run: Run,
        *,
        on_rows: RowsCallback | None = None,
        on_note: Callable[[str], None] | None = None,
        on_reset: Callable[[RunIndex], None] | None = None,
        on_pending: Callable[[], None] | None = None,
        backlog: Callable[[], int] | None = None,
        max_backlog: int = 10_000,
        batch: int = BATCH,
        settle: float = SETTLE,
    ) -> None:
        if run.source_format is None:
            raise ValueError("a ForeignFollower follows another agent's trace")
        self.run = run
        self.fmt = run.source_format
        self.path = run.base
        self.folder = run.folder
        """The folder to watch for changes (the trace's own, for a folder of event files)."""
        self.on_rows = on_rows
        self.on_note = on_note
        self.on_reset = on_reset
        self.on_pending = on_pending
        self.backlog = backlog
        self.max_backlog = max_backlog
        self.batch = batch
        self.settle = settle
        self.notes: list[str] = []
        self.more = False
        """True when the last poll stopped at ``batch`` lines with more to read."""
        self.paused = False
        """True while the consumer's backlog is over ``max_backlog``."""
        self.unsettled = False
        """A document changed and waits to settle: poll again soon (not only on an event)."""
        self.fresh: frozenset[int] = frozenset()
        """Rows a document's last re-read added (or, after a rebuild, that are not as before)."""
        self.restarts = 0
        """How many times the trace was converted again from its start."""
        self.changed = False
        """The last poll added rows or changed the running calls (a busy trace: look soon)."""
        self.shape = follow_shape(run)
        """LINES, FOLDER or DOCUMENT (:mod:`tracetui.importers.protocol`); None until told."""
        self.by_line = self.shape in (LINES, FOLDER)
        """Fed incrementally (line by line, or file by file for a folder of events)."""
        if self.shape == FOLDER:
            self.folder = os.path.abspath(run.base)  # its new files are what changes
        self._retired: list[ImportSink] = []
        self._reset_due = False
        self._before: dict[bytes, int] = {}
        """Digests of the rows of conversions before a restart, with how many of each."""
        self._sink = ImportSink(run)
        self._lines: LineImport | None = None
        self._doc = DocumentImport(self.fmt)
        self._pending_key: object = ()
        self._fh: IO[bytes] | None = None
        self._ident: tuple[int, int] | None = None
        self._head = b""
        self._size = 0
        self._line_no = 0
        self._read_sig: tuple[object, ...] | None = None
        self._seen_sig: tuple[object, ...] | None = None
        self._changed_at = 0.0
        self._waiting_told = False
        self._problem: str | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._waiter: Waiter | None = None
        self._fed: list[str] = []
        """The event files of a folder trace fed so far (or skipped), in order."""
        self._stuck: tuple[str, tuple[object, ...] | None, float] | None = None
        """A folder's next event file that does not parse yet: name, signature, since when."""
        self._undecided: tuple[tuple[object, ...] | None, float] | None = None
        if self.by_line:
            self._lines = self._new_lines()

    # ------------------------------------------------------------------ state
    @property
    def index(self) -> RunIndex:
        """The index of the current conversion (a restart replaces it: ``on_reset``)."""
        return self._sink.index

    @property
    def pending(self) -> Pending:
        """The calls not yet rows (a snapshot; thread-safe to read)."""
        return self._lines.pending if self._lines is not None else self._doc.pending

    def running(self, rows: int | None = None) -> tuple[RunningCall, ...]:
        """The calls to show after the first ``rows`` rows (default: every committed row)."""
        return self.pending.after(len(self.index) if rows is None else rows)

    def seen_before(self, row: int) -> bool:
        """Whether row ``row`` repeats a row of a conversion before a restart (each old row
        matches once): ``tail`` prints a call once even when the trace is converted again."""
        digests = self._sink.digests
        if not self._before or not 0 <= row < len(digests):
            return False
        left = self._before.get(digests[row], 0)
        if left:
            self._before[digests[row]] = left - 1
        return left > 0

    # ------------------------------------------------------------------ polling
    def poll_once(self) -> int:
        """Read what is new; returns the number of rows added to the index."""
        if self.backlog is not None and self.backlog() >= self.max_backlog:
            self.paused, self.more = True, False
            return 0
        self.paused = False
        if self.shape is None and not self._decide():
            return self._flush([])
        if self.shape == FOLDER:
            rows = self._poll_folder()
        else:
            rows = self._poll_lines() if self.by_line else self._poll_document()
        return self._flush(rows)

    def _new_lines(self) -> LineImport:
        return LineImport(self._sink, self.fmt, self._note, folder=self.shape == FOLDER)

    def _decide(self) -> bool:
        """Whether the trace's shape is known now: a first line still being written tells
        nothing yet; when it stays unfinished for ``settle`` seconds, the file is one document."""
        self.shape = follow_shape(self.run)
        if self.shape is None:
            sig, now = _signature(self.path), time.monotonic()
            if self._undecided is None or self._undecided[0] != sig:
                self._undecided = (sig, now)
            if now - self._undecided[1] < self.settle:
                self.more, self.unsettled = False, True
                return False
            self.shape = DOCUMENT
        self.unsettled = False
        self.by_line = self.shape in (LINES, FOLDER)
        if self.by_line:
            self._lines = self._new_lines()
        return True

    def finish(self) -> int:
        """The trace is read as it is now, for good (``tail --once``): the calls still held end
        as a whole-file conversion ends them (no result recorded). Rows added."""
        if self.shape == FOLDER:
            rows = self._poll_folder(final=True)
            assert self._lines is not None
            return self._flush(rows + self._lines.finish())
        if self._lines is None:
            if self._doc.unreadable:  # it will not be completed now: say what is wrong with it
                self._note(f"{self.fmt} import: {self._doc.unreadable}")
            return self._flush(self._sink.add(self._doc.take_held()))
        return self._flush(self._lines.finish())

    def _flush(self, rows: list[int]) -> int:
        if self._reset_due:
            # After the rows are in: a consumer can find its call again (by id) in the new index.
            self._reset_due = False
            if self.on_reset is not None:
                self.on_reset(self.index)
        if rows and self.on_rows is not None:
            self.on_rows(rows[0], RowItems(self.index, rows[0], len(rows)))
        pending = self.pending
        key = (pending.first_row, tuple((c.span.command_id, c.running) for c in pending.calls))
        self.changed = bool(rows) or key != self._pending_key
        if key != self._pending_key:
            self._pending_key = key
            if self.on_pending is not None:
                self.on_pending()
        return len(rows)

    def _note(self, text: str) -> None:
        self.notes.append(text)
        if self.on_note is not None:
            self.on_note(text)

    def _restart(self, why: str) -> None:
        """Convert the trace again from its start, into a new index (the old one is retired)."""
        self.restarts += 1
        for d in self._sink.digests:
            self._before[d] = self._before.get(d, 0) + 1
        self._note(f"{os.path.basename(self.path)} {why}: converting it again from its start")
        self._sink.close()
        self._retired.append(self._sink)
        self._sink = ImportSink(self.run)
        if self.by_line:
            self._lines = self._new_lines()
        self._close_file()
        self._head, self._size, self._line_no = b"", 0, 0
        self._fed, self._stuck = [], None
        self._reset_due = True  # told once the new index has this poll's rows

    # ------------------------------------------------------------------ line by line
    def _poll_lines(self) -> list[int]:
        assert self._lines is not None
        self.more = False
        try:
            st = os.stat(self.path)
        except OSError:
            return []  # gone (or not yet there): the rows read stay; look again later
        if self._fh is not None:
            why = self._changed_under_us(st)
            if why:
                self._restart(why)
        if self._fh is None and not self._open():
            return []
        fh = self._fh
        assert fh is not None
        rows: list[int] = []
        lines = 0
        try:
            fh.seek(self._size)
            for raw in iter_lines(fh, start_offset=self._size, start_line=self._line_no + 1):
                if not raw.complete:
                    break  # may still grow: wait for its newline
                if lines >= self.batch:
                    self.more = True
                    break
                if len(self._head) < HEAD and raw.offset == len(self._head) and raw.data:
                    self._head += (raw.data + b"\n")[: HEAD - len(self._head)]
                rows.extend(self._lines.feed(raw))
                lines += 1
                self._size = raw.offset + raw.length + 1
                self._line_no = raw.line_no
        except OSError as exc:
            self._note(f"{os.path.basename(self.path)}: read failed: {exc.strerror}")
        self._lines.settle()
        return rows

    def _open(self) -> bool:
        try:
            self._fh = open_regular(self.path)  # held while followed
        except OSError:
            return False
        self._ident = ident_of(os.fstat(self._fh.fileno()))
        return True

    def _changed_under_us(self, st: os.stat_result) -> str | None:
        """Why what was read no longer holds (replaced, truncated, rewritten), or None."""
        if ident_of(st) != self._ident:
            return "was replaced"
        if st.st_size < self._size:
            return "was truncated"
        assert self._fh is not None
        try:
            now = os.pread(self._fh.fileno(), len(self._head), 0) if self._head else b""
        except OSError:
            return None
        return "was rewritten" if now != self._head else None

    def _close_file(self) -> None:
        if self._fh is not None:
            with contextlib.suppress(OSError):
                self._fh.close()
            self._fh = None

    # ------------------------------------------------------------------ file by file
    def _poll_folder(self, *, final: bool = False) -> list[int]:
        """Feed the folder's new event files in order. One that does not parse yet (half
        written) is waited for; when later files exist and it stayed unchanged for ``settle``
        seconds, or the read is ``final``, it is skipped, as a whole read skips it."""
        assert self._lines is not None and self._lines.folder_feeder is not None
        self.more = self.unsettled = False
        try:
            names = os.listdir(self.path)
        except OSError:
            return []  # gone (or not yet there): the rows read stay; look again later
        entries = self._lines.folder_feeder.entries(names)
        if entries[: len(self._fed)] != self._fed:
            self._restart("lost or reordered event files already shown")
            assert self._lines is not None
        rows: list[int] = []
        for index in range(len(self._fed), len(entries)):
            if index - len(self._fed) >= self.batch:
                self.more = True
                break
            name = entries[index]
            full = os.path.join(self.path, name)
            try:
                with open_regular(full) as fh:
                    data = fh.read()
                value, _note = loads(data)
            except OSError as exc:
                self._lines.problems.add(f"{name}: {exc.strerror or exc}, skipped")
            except ValueError as exc:
                if not final and not self._give_up(name, full, index + 1 < len(entries)):
                    self.unsettled = True  # look again soon: the writer is finishing it
                    break
                why = str(exc).split(":", 1)[0]  # as a whole read words it
                self._lines.problems.add(f"{name}: not valid JSON: {why}, skipped")
            else:
                rows.extend(self._lines.feed_file(index, full, value))
            self._fed.append(name)
            self._stuck = None
        self._lines.settle()
        return rows

    def _give_up(self, name: str, full: str, later: bool) -> bool:
        """Whether an event file that does not parse is taken as broken, not half written."""
        sig, now = _signature(full), time.monotonic()
        if self._stuck is None or self._stuck[:2] != (name, sig):
            self._stuck = (name, sig, now)
        return later and now - self._stuck[2] >= self.settle

    # ------------------------------------------------------------------ whole document
    def _poll_document(self) -> list[int]:
        self.more = False
        sig = _signature(self.path)
        if sig is None or sig == self._read_sig:
            self.unsettled = False
            return []
        now = time.monotonic()
        if self._read_sig is not None:  # the first read does not wait: the file is there
            if sig != self._seen_sig:
                self._seen_sig, self._changed_at = sig, now
                self.unsettled = True
                return []
            if now - self._changed_at < self.settle:
                self.unsettled = True
                return []
        got = self._doc.read(self.path)
        if _signature(self.path) != sig:  # written to while we read: settle again
            self._seen_sig, self._changed_at = None, now
            self.unsettled = True
            return []
        self.unsettled = False
        self._read_sig = self._seen_sig = sig
        if got is None:
            if not self._waiting_told:
                self._waiting_told = True
                self._note(
                    f"{os.path.basename(self.path)}: not a complete {self.fmt} document yet; "
                    "read again when it changes"
                )
            return []
        self._waiting_told = False
        if got.problem and got.problem != self._problem:
            self._note(f"{self.fmt} import: {got.problem}")
        self._problem = got.problem
        old = self._sink.digests
        if DocumentImport.extends(old, got.digests):
            rows = self._sink.add(got.records[len(old) :])
            self.fresh = frozenset(rows)
        else:
            before = set(old)
            self._restart("changed calls already shown")
            rows = self._sink.add(got.records)
            self.fresh = frozenset(
                r for r, d in zip(rows, got.digests, strict=False) if d not in before
            )
        self._doc.hold(got.held, len(self.index))
        return rows

    # ------------------------------------------------------------------ driving
    def start(self, waiter: Waiter | None = None) -> None:
        """Follow in a background thread until :meth:`stop`; callbacks run on that thread."""
        if self._thread is not None:
            return
        self._waiter = waiter or make_waiter([self.folder])
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._loop, args=(self._waiter,), name="tracetui-follow-foreign", daemon=True
        )
        self._thread.start()

    def _loop(self, waiter: Waiter) -> None:
        while not self._stop.is_set():
            try:
                added = self.poll_once()
            except Exception as exc:
                self._note(f"follow error: {type(exc).__name__}: {exc}")
                added = 0
            if self.more:
                continue
            if self.unsettled and not self.paused:
                self._stop.wait(POLL_MIN)  # a document settling: look again soon
            else:
                waiter.wait(busy=added > 0 or self.changed, paused=self.paused)

    def stop(self) -> None:
        """Stop the thread (if any) and close files; the current index stays usable."""
        self._stop.set()
        if self._waiter is not None:
            self._waiter.close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._close_file()
        self._sink.close()
        for sink in self._retired:
            sink.index.close()
        self._retired.clear()


def _signature(path: str) -> tuple[object, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (ident_of(st), st.st_size, st.st_mtime_ns)
