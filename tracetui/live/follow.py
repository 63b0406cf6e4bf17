"""Live following of a run being written and rotated (SPEC §3, §5 Live; docs/live.md).

A :class:`Follower` keeps a :class:`~tracetui.store.index.RunIndex` growing with a run while a
writer appends to its base file and rotates it. :meth:`Follower.poll_once` reads whatever is new
and returns; :meth:`Follower.start` does that in a thread woken by file-system events.

Files are known by inode and by their first bytes, never by name, so that:

* a partial last line waits for its newline (read as it is once its file is rotated away);
* a renamed base is finished through the handle already open, then the new base is followed;
* after copy-and-truncate the rows read point into the copy, its unread rest is read, and the
  base starts afresh: nothing is read twice (the first rows of a fresh base are kept only if
  no generation copied away meanwhile is still to read: see
  :meth:`tracetui.live.ingest.Ingest.wait_for_older`);
* generations rotated away between two polls are read, oldest first, before the new base;
* a member compressed to ``.gz`` is re-pointed to a decompressed copy; a deleted one is gone.

``seed=True`` has a big run's first read done by ``build_index`` with the persistent index
(:mod:`tracetui.live.seed`); the follower then reads on from where it stopped. Its
:attr:`Follower.index` is then the built index, not the one it was created with.
"""

from __future__ import annotations

import gzip
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import IO

from tracetui.live.ingest import Ingest
from tracetui.live.rotation import RotationTracker
from tracetui.live.rowitems import Item, RowItems
from tracetui.live.seed import Seeded, seeded
from tracetui.live.watch import (
    OUT_OF_HANDLES,
    DirWatch,
    FileState,
    Waiter,
    head_of,
    ident_of,
    make_waiter,
    spool,
)
from tracetui.store.gz import Cancelled
from tracetui.store.index import RunIndex
from tracetui.store.reader import NotRegularFile, open_regular
from tracetui.store.runset import Member, Run, sidecar_path

RowsCallback = Callable[[int, Sequence[Item]], None]
"""``on_rows(first_row, items)``: ``items[i]`` is row ``first_row + i`` of the index."""


class Follower:
    """Keeps ``index`` (created when not given) growing with the run as it is written."""

    def __init__(
        self,
        run: Run,
        index: RunIndex | None = None,
        *,
        on_rows: RowsCallback | None = None,
        on_new_run: Callable[[str], None] | None = None,
        on_note: Callable[[str], None] | None = None,
        backlog: Callable[[], int] | None = None,
        max_backlog: int = 10_000,
        batch: int = 5_000,
        watch_dir: bool = False,
        seed: bool = False,
        on_progress: Callable[[int], None] | None = None,
    ) -> None:
        if index is not None and len(index):
            raise ValueError("a Follower reads the run itself: give it an empty index (or none)")
        self.run = run
        self.index = index if index is not None else RunIndex(run)
        self.on_rows = on_rows
        self.on_note = on_note
        self.backlog = backlog
        self.max_backlog = max_backlog
        self.batch = batch
        self.base = run.base
        self._rot = RotationTracker(self.index, run.base, self._note)
        self.folder = self._rot.folder
        self.paused = False
        """True while the consumer's backlog is over ``max_backlog``."""
        self.more = False
        """True when the last poll stopped at ``batch`` rows with more to read."""
        self.notes: list[str] = []
        self._sidecar: FileState | None = None
        self._started = False
        self._reader = Ingest(self.index, self._rot, self._note)
        self._refused_base = False
        """The base was found not to be a regular file (noted once)."""
        self._dirwatch = DirWatch(self.folder, on_new_run) if watch_dir and on_new_run else None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._waiter: Waiter | None = None
        self._seed = seed and index is None
        """Try :func:`tracetui.live.seed.seeded` first (never for an index the caller gave)."""
        self._on_progress = on_progress
        """Told the bytes read so far while a seeded first read runs."""
        self.seeded = 0
        """Rows a seeded first read took from ``build_index`` (not passed to ``on_rows``)."""

    @property
    def truncated_seen(self) -> bool:
        """The live base no longer starts with what was read: a copy-and-truncate happened."""
        return self._reader.truncated_seen

    @truncated_seen.setter
    def truncated_seen(self, value: bool) -> None:
        self._reader.truncated_seen = value

    # ------------------------------------------------------------------ polling
    def poll_once(self) -> int:
        """Read what is new (at most ``batch`` rows); returns the number of rows added."""
        if self.backlog is not None and self.backlog() >= self.max_backlog:
            self.paused, self.more = True, False
            return 0
        self.paused = False
        self._reader.start_poll(self.batch)
        if not self._started:
            self._started = True
            self._catch_up()
            if self._stop.is_set():
                # Stopped (from another thread) during the catch-up: what it opened after
                # stop() closed the files is closed now, and nothing more is read.
                self._close_files()
                return 0
        self._poll_base()
        if self._sidecar is None:
            self._open_sidecar()  # one stat when there is none: a re-run may create it any time
        if self._sidecar is not None and self._reader.budget > 0:
            self._reader.read(self._sidecar, final=False)
        if self._dirwatch is not None:
            self._dirwatch.poll()
        self.more = self._reader.budget <= 0
        added = self._flush()
        if self._stop.is_set():
            self._close_files()  # stop() ran meanwhile: it may have missed what this poll opened
        return added

    def _flush(self) -> int:
        count, first, known = self._reader.take()
        if count and self.on_rows is not None:
            if len(known) < count:
                self._settle_live()
            self.on_rows(first, RowItems(self.index, first, count, known))
        return count

    def _settle_live(self) -> None:
        """Rows read in bulk are parsed only when the consumer looks, from the file they are in
        by then: if a copy-and-truncate emptied the live base during this poll, point its rows
        at the copy first (the copy's unread rest is queued for the next poll)."""
        live = self._rot.live
        if live is None or live.fh is None or not live.head:
            return
        try:
            now = os.pread(live.fh.fileno(), len(live.head), 0)
        except OSError:
            return
        if now != live.head:
            self._rot.on_truncated(live)

    def _catch_up(self) -> None:
        """Open the members present at start; they are read (oldest first) by the next polls.
        Seeded: take the built index and the state of its files, and read on from there."""
        opened: list[tuple[Member, IO[bytes]]] = []
        if self._seed:
            try:
                got = seeded(self.run, self._on_progress, self._stop.is_set, opened=opened)
            except Cancelled:
                return  # stopped: nothing more is read (stop() closes what is open)
            if got is not None:
                self._adopt(got)
                return
        # Opened now (or by the seeding, before its build), so the inode is the one listed
        # even if a rotation renames it next.
        for m, fh in opened or self._open_members():
            f = FileState(m.path, m.number, m.gz, ident_of(os.fstat(fh.fileno())), fh=fh)
            self._rot.files.append(f)
            if m.number == 0 and not m.gz:
                self._rot.live = f
                continue
            # A finished file's first bytes, known before it is read: a copy of it made
            # meanwhile (compressed, renamed out of sight) is then told for its twin.
            f.head = head_of(fh, m.gz) or b""
            fh.seek(0)
            self._rot.pending.append(f)
        self._open_sidecar(quiet=False)
        self._rot.scan_if_changed(force=True)

    def _open_members(self) -> list[tuple[Member, IO[bytes]]]:
        """The members present at start, each opened (held until the file is read)."""
        out = []
        for m in self.run.members:
            try:
                out.append((m, open_regular(m.path)))
            except OSError as exc:
                self._note(f"{m.name}: cannot read: {exc.strerror}")
        return out

    def _adopt(self, got: Seeded) -> None:
        """The state a catch-up would have left after reading every member: the index (every
        part of the follower reads the same one) and each file's position and first bytes."""
        self.index = self._rot.index = self._reader.index = got.index
        self.seeded = len(got.index)
        self._rot.files.extend(got.files)
        self._rot.live = got.live
        if self._stop.is_set():  # stopped during the build: poll_once closes what is open
            return
        self._open_sidecar(quiet=False)
        self._rot.scan_if_changed(force=True)

    def _open_sidecar(self, *, quiet: bool = True) -> None:
        """Start reading the run's re-runs file: at start, or when a first re-run creates it."""
        path = self.run.sidecar or sidecar_path(self.run.base)
        try:
            fh = open_regular(path)  # kept open across polls
        except FileNotFoundError:
            return
        except OSError as exc:
            if not quiet:
                self._note(f"{os.path.basename(path)}: cannot read: {exc.strerror}")
            return
        self.run.sidecar = path
        self._sidecar = FileState(path, -1, False, ident_of(os.fstat(fh.fileno())), fh=fh)

    def _drain(self) -> bool:
        """Read queued finished files in order; False when the batch budget ran out."""
        while self._rot.pending:
            f = self._rot.pending[0]
            try:
                if f.gz and not f.spooled and f.fh is not None:
                    raw = f.fh
                    f.fh = spool(raw, self.index.adopt_temp, self._note, os.path.basename(f.path))
                    f.spooled = True
                    raw.close()
                if not self._reader.read(f, final=True):
                    return False
            except (OSError, EOFError, gzip.BadGzipFile) as exc:
                self._note(f"{os.path.basename(f.path)}: stopped reading: {exc}")
            f.close()
            self._rot.pending.popleft()
        return True

    def _poll_base(self) -> None:
        if not self._drain():
            return
        try:
            ident: tuple[int, int] | None = ident_of(os.stat(self.base))
        except OSError:
            ident = None
        live = self._rot.live
        if live is not None and ident != live.ident and self._truncated_away(live):
            # Copied and truncated, then rotated away as well, before we looked: its unread
            # rows are in the copy (queued now), what was written after the truncation in the
            # file we hold; read in that order.
            live = self._rot.live
            if self._rot.truncated is not None or not self._drain():
                return
        if live is not None and ident != live.ident:
            # Rotated away (renamed, deleted): nobody writes it any more. Finish it through
            # the handle we hold, partial last line included, before anything newer.
            if not self._reader.read(live, final=True):
                return
            live.close()
            self._rot.live = live = None
            self._rot.scan()
        elif live is not None and live.fh is not None:
            try:
                st: os.stat_result | None = os.fstat(live.fh.fileno())
            except OSError:
                st = None
            if st is not None and live.was_truncated(st):
                self._rot.on_truncated(live)
                live = self._rot.live
            else:
                # Generations copied and truncated away before we read a byte of them must
                # be read before what the base holds now.
                self._rot.scan_if_changed(force=self._rot.unsettled)
                if self._rot.live_truncated:
                    self._rot.on_truncated(live)
                    live = self._rot.live
        else:
            self._rot.scan_if_changed()
        if not self._drain():
            return
        if live is None and ident is not None:
            live = self._open_base()
        if live is not None:
            self._read_live(live)

    def _truncated_away(self, live: FileState) -> bool:
        """Whether the base we hold, no longer under its name, was truncated before it went:
        then it is handled as a copy-and-truncate first (its copy looked for and queued)."""
        if live.fh is None:
            return False
        try:
            st = os.fstat(live.fh.fileno())
        except OSError:
            return False
        if not live.was_truncated(st):
            return False
        self._rot.on_truncated(live)
        return True

    def _read_live(self, live: FileState) -> None:
        """Read the base; what must come before it (the copy of a base found truncated while
        reading, generations found waiting before its first rows) is read first, then the base
        again. A few rounds at most: a writer rotating that fast is met again next poll."""
        for _ in range(3):
            if self._rot.truncated is not None:
                return  # the copy of the base before it first: looked for again next poll
            self._reader.read(live, final=False)
            if self.truncated_seen:
                self.truncated_seen = False
                self._rot.on_truncated(live)
                assert self._rot.live is not None
                live = self._rot.live
            elif not self._rot.pending:
                return
            if not self._drain():
                return

    def _open_base(self) -> FileState | None:
        try:
            fh = open_regular(self.base)  # held while the base is live
        except NotRegularFile as exc:
            # A FIFO or a device (a link to /dev/zero, say) would block or never end: say so
            # once, and look again on later polls in case a real file takes its place.
            if not self._refused_base:
                self._refused_base = True
                self._note(f"{os.path.basename(self.base)}: {exc.strerror}: not followed")
            return None
        except OSError as exc:
            if exc.errno in OUT_OF_HANDLES and not self._refused_base:
                # Not a file gone between stat and open: say so once; later polls try again.
                self._refused_base = True
                self._note(f"{os.path.basename(self.base)}: cannot open: {exc.strerror}")
            return None  # gone again between stat and open: the next poll will see it
        self._refused_base = False
        ident = ident_of(os.fstat(fh.fileno()))
        f = FileState(self.base, 0, False, ident, fh=fh)
        self._rot.files.append(f)
        self._rot.live = f
        return f

    # ------------------------------------------------------------------ rotation
    def _note(self, text: str) -> None:
        self.notes.append(text)
        if self.on_note is not None:
            self.on_note(text)

    # ------------------------------------------------------------------ driving
    def start(self, waiter: Waiter | None = None) -> None:
        """Follow in a background thread until :meth:`stop`; callbacks run on that thread."""
        if self._thread is not None:
            return
        self._waiter = waiter or make_waiter([self.folder])
        self._stop.clear()
        self._thread = threading.Thread(
            target=run_loop,
            args=(self, self._waiter, self._stop),
            name="tracetui-follow",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (if any) and close files; the index stays usable."""
        self._stop.set()
        if self._waiter is not None:
            self._waiter.close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._close_files()

    def _close_files(self) -> None:
        for f in [*self._rot.files, *self._rot.pending]:
            f.close()
        if self._sidecar is not None:
            self._sidecar.close()

    def follow(
        self, stop: threading.Event | None = None, waiter: Waiter | None = None
    ) -> Iterator[tuple[int, Item]]:
        """Generator form: yield ``(row, item)`` for each new row, until ``stop`` is set."""
        return iterate_rows(self, waiter or make_waiter([self.folder]), stop)


def run_loop(follower: Follower, waiter: Waiter, stop: threading.Event) -> None:
    """The follower thread: poll, and sleep on the waiter only when there is nothing to read."""
    while not stop.is_set():
        try:
            added = follower.poll_once()
        except Exception as exc:
            follower._note(f"follow error: {type(exc).__name__}: {exc}")
            added = 0
        if not follower.more:
            waiter.wait(busy=added > 0, paused=follower.paused)


def iterate_rows(
    follower: Follower, waiter: Waiter, stop: threading.Event | None
) -> Iterator[tuple[int, Item]]:
    """``(row, item)`` for every row the follower adds, in order, until ``stop`` is set."""
    pending: list[tuple[int, Item]] = []
    prev = follower.on_rows

    def collect(first: int, items: Sequence[Item]) -> None:
        pending.extend(enumerate(items, first))
        if prev is not None:
            prev(first, items)

    follower.on_rows = collect
    try:
        while stop is None or not stop.is_set():
            added = follower.poll_once()
            yield from pending
            pending.clear()
            if not follower.more:
                waiter.wait(busy=added > 0, paused=follower.paused)
    finally:
        follower.on_rows = prev
        waiter.close()
