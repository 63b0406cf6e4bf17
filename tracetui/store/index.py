"""A compact index over a run, and the one owner of a run's state: offsets plus a few columns
per row, spans parsed on demand.

A million spans must not become a million dicts. Each row (a span or a bad line, in set order)
keeps its member, offset, length and line number, and the handful of facts that navigation,
the header and the summary need: exit code, flags, hidden bytes, ids. Everything else is parsed
from the file when a row is shown, through a small LRU cache.

Concurrency (docs/architecture.md): one writer at a time — the follower's thread while a run is
followed, the building thread otherwise — changes the index only through the methods in the
"writing" section below, each holding ``_lock`` for its whole change. A row becomes visible to
readers only when it is complete: ``len(index)`` is the *committed* count, published as the last
step of a write, so a reader on another thread never sees a row whose columns are still being
filled. Readers may read the columns (``flags``, ``exit``, ``ids``…) of any row below
``len(index)`` without the lock; whatever they iterate (parent links, totals) they take as a
snapshot from a method that copies under the lock (:meth:`links`, :meth:`snapshot`).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace

from tracetui.model.flags import NO_EXIT, NO_VALUE
from tracetui.model.spans import Facts, Span
from tracetui.store import fastindex, gz
from tracetui.store.fastindex import Item
from tracetui.store.id_registry import IdRegistry, OwedIdRows, SettlingIdRows, registered
from tracetui.store.linefiles import LineFiles
from tracetui.store.members import IndexedMember, Snapshot
from tracetui.store.reader import BadLine, RawLine, is_blank, iter_lines, open_member, parse_facts
from tracetui.store.row_cache import RowCache
from tracetui.store.row_columns import find_flag, row_of_offset, source_line
from tracetui.store.row_table import RowTable
from tracetui.store.runset import Member, Run

_CLAMPED = (2**31 - 1, -(2**31) + 1)
"""Exit column values that may stand for a code past its range (``members.clamp32``)."""


class RunIndex:
    """Rows of one run in set order. One writer (under ``_lock``), many readers."""

    def __init__(self, run: Run, *, cache_size: int = 512) -> None:
        self.run = run
        self.members: list[IndexedMember] = []
        rows = self._rows = RowTable()
        # The table's columns are the index's own (the same objects), read without the lock.
        self.member_no = rows.member_no
        self.offset = rows.offset
        self.length = rows.length
        self.line_no = rows.line_no
        self.flags = rows.flags
        self.marks = rows.marks
        """Per row, which lint rules may need to read it (:mod:`tracetui.model.marks`)."""
        self.exit = rows.exit
        self.hidden = rows.hidden
        self.ids = rows.ids
        self.parent_ids = rows.parent_ids
        """Row → parent id, only for rows that name a parent (look up; iterate :meth:`links`)."""
        self._ids = IdRegistry()
        """Command id → rows (read through :attr:`id_rows` and :attr:`duplicates`)."""
        self.source_lines: dict[int, int] | None = None
        """For an imported trace converted whole: line of the converted copy → line in the
        original file, for the rows whose record says where it came from (see :meth:`location`)."""
        self.bad = rows.bad
        self.stats = rows.stats
        self.latest_failure: int | None = None
        """Row of the latest failure (committed rows only)."""
        self.generation = 0
        """Bumped on every commit; caches keyed on it know when to refresh."""
        self.partial = False
        """True for a peek (:func:`tracetui.store.build.peek_index`): only the newest rows."""
        self.built_from: Sequence[object] | None = None
        """Each member's identity (``store.identity.Identity``, None when unreadable) as the build
        that made this index found it before reading (``store.identity.changed_since_built``)."""
        self._committed = 0
        self._links_committed = 0
        self._cache = RowCache(cache_size)
        self._lock = threading.RLock()
        self._temps: list[str] = []
        self._files = LineFiles()

    # ------------------------------------------------------------------ writing
    def add_member(
        self,
        member: Member,
        readable: str | None = None,
        *,
        start: int = 0,
        fd: int | None = None,
    ) -> int:
        """Register a member; returns its number in ``self.members``.

        ``readable`` is where rows are read from when it is not the member itself (the follower
        passes its own decompressed spool of a gz member, which may be renamed under it).
        ``start`` is the byte offset its indexing begins at (a peek skips the member's start).
        ``fd``, taken over, is a descriptor of the file itself: rows are read through it until
        the member is re-pointed to another file (see :class:`LineFiles`).
        """
        if readable is None:
            readable = self._decompressed_copy(member.path) if member.gz else member.path
        with self._lock:
            self.members.append(IndexedMember(member, readable, size=start))
            mno = len(self.members) - 1
            if fd is not None:
                self._files.pin(mno, fd)
            return mno

    def repoint_member(
        self,
        mno: int,
        *,
        path: str | None = None,
        number: int | None = None,
        gz: bool | None = None,
        readable: str | None = None,
        same_file: bool = False,
        fd: int | None = None,
    ) -> None:
        """A member's file moved (rotation), was compressed or copied, or vanished
        (``readable=""``): its rows are read from where it is now. ``same_file``: only its
        name changed (a rename), so a descriptor held for it still reads the right bytes.
        ``fd``, taken over, is a descriptor of the file it now lives in."""
        with self._lock:
            im = self.members[mno]
            m = im.member
            im.member = Member(
                m.path if path is None else path,
                m.number if number is None else number,
                m.gz if gz is None else gz,
            )
            if readable is not None:
                im.readable = readable
                if fd is not None:
                    self._files.pin(mno, fd)
                elif not same_file:
                    self._files.unpin(mno)
            # What was read before may have come from the file the member left: read again.
            self._cache.forget()

    def adopt_temp(self, path: str) -> None:
        """Take ownership of a temporary file: it is removed when the index closes."""
        with self._lock:
            self._temps.append(path)

    def _decompressed_copy(self, path: str) -> str:
        # Random access into gzip is slow; one decompressed spool per gz member keeps every
        # later read a seek. The copy lives on disk, not in memory, bounded and kept up to any
        # damage by gz.gunzip_to; what it says of the member becomes a run note.
        tmp, got = gz.decompressed_copy(path, self.adopt_temp)
        if got.note:
            self.run.notes.append(got.note)
        return tmp

    def add_line(self, mno: int, raw: RawLine, parsed: Facts | BadLine | None = None) -> int | None:
        """Index one line and commit it; returns its row, or None for a blank line."""
        if is_blank(raw):
            return None
        im = self.members[mno]
        if parsed is None:
            parsed = parse_facts(raw, im.member.path)
        with self._lock:
            row = self._rows.append_line(mno, im, raw, parsed)
            self._register_ids(row, row + 1)
            self._commit()
        return row

    def append(self, mno: int, items: Iterable[Item], *, register: bool = True) -> int:
        """Append scanned items (batches from the C scanner, odd lines) in order; rows added.

        Each item is committed as it is applied. ``register=False`` leaves command ids out of
        ``id_rows`` until :meth:`register_all` (a bulk build registers them once at the end,
        much cheaper than batch by batch into a growing dict); chains wait for that too.
        """
        before = len(self)
        for item in items:
            if isinstance(item, RawLine):
                if is_blank(item):
                    continue
                im = self.members[mno]
                parsed = parse_facts(item, im.member.path)
                with self._lock:
                    row = self._rows.append_line(mno, im, item, parsed)
                    if register:
                        self._register_ids(row, row + 1)
                    self._commit()
                continue
            with self._lock:
                row0, n = self._rows.append_batch(mno, self.members[mno], item)
                if register and n:
                    self._register_ids(row0, row0 + n)
                self._commit()
        return len(self) - before

    def register_all(self, start: int = 0) -> None:
        """Register the command ids of rows from ``start`` (after ``append(register=False)``)."""
        with self._lock:
            self._register_ids(start, len(self.flags))
            self._commit()

    def _register_ids(self, start: int, stop: int) -> None:
        """Record rows' command ids for chains, in row order (the first occurrence wins): a bulk
        build's rows are owed (:mod:`tracetui.store.id_registry`), small steps (a line reader's
        rows, a follower's few) registered at once, after the owed rows."""
        ids = self._ids
        many = stop - start > 64 or ids.settling is not None  # (settled aside: owed meanwhile)
        if stop <= start or (many and ids.owe(start, stop)):
            return
        ids.settle(self.ids)
        ids.add(self.ids[start:stop], start)

    @property
    def id_rows(self) -> Mapping[str, int]:
        """Command id → first row carrying it (registered rows; see :meth:`append`).

        While rows are owed, a mapping that answers parent ids without settling the registry
        (:class:`~tracetui.store.id_registry.OwedIdRows`); the dict itself once settled."""
        ids = self._ids
        if ids.upto >= ids.wanted:
            return ids.rows
        with self._lock:
            if ids.upto >= ids.wanted:
                return ids.rows
            if ids.settling is not None:  # being settled aside: no 1M-row pass here
                return SettlingIdRows(self.ids, ids.wanted, ids.searched, self.settle_ids)
            first = ids.parents_table(self.ids, self.parent_ids.values())
            return OwedIdRows(first, ids.looked_for(), self.settle_ids)

    @property
    def ids_owed(self) -> bool:
        """Whether some rows' ids are not registered yet (read without the lock)."""
        return self._ids.upto < self._ids.wanted

    @property
    def ids_awaited(self) -> bool:
        """Whether a reader waits for the registry being settled aside (read without the lock)."""
        return self._ids.awaited

    def settle_ids(self) -> dict[str, int]:
        """Register every owed row now (the viewer does it on its indexing thread); the
        registry's dict. Without the lock when nothing is owed: the list's every ID cell asks
        (through ``ids.table_for``) while a follower may hold the lock for a batch."""
        if self._ids.upto >= self._ids.wanted:
            return self._ids.rows
        aside = self._ids.settling
        if aside is not None and self._ids.settler != threading.get_ident():
            self._ids.awaited = True  # (the settler stops waiting for anything else)
            aside.wait()  # another thread builds it (settling_ids_aside): not built twice
        with self._lock:
            self._ids.settle(self.ids)
            return self._ids.rows

    @contextlib.contextmanager
    def settling_ids_aside(self) -> Iterator[None]:
        """Settle the id registry when the block ends, its dict built outside the lock in steps
        (:mod:`tracetui.store.id_registry`): the viewer's indexing thread shows the index in the
        block. From the block's start, a reader gets an ``id_rows`` that never makes the dict
        itself; one that needs it waits for it (:meth:`settle_ids`)."""
        with self._lock:
            stop = self._ids.begin_aside()
        got = None
        try:
            yield
            if stop is not None:
                got = registered(self.ids, stop)
        finally:
            if stop is not None:
                with self._lock:
                    self._ids.install(got, stop)
        self.settle_ids()  # rows owed meanwhile (a follower's), a few

    @property
    def duplicates(self) -> dict[str, list[int]]:
        """Command id → every row carrying it, for ids seen more than once."""
        ids = self._ids
        if ids.upto < ids.wanted:
            self.settle_ids()
        return ids.duplicates

    def _commit(self) -> None:
        """Publish the rows appended so far (the caller holds the lock): the last step."""
        self.latest_failure = self._rows.latest_pending
        self._links_committed = len(self._rows.links)
        self.generation += 1
        self._committed = len(self.flags)

    def index_member(self, mno: int, progress: Callable[[int], None] | None = None) -> None:
        """Read a whole member from where indexing stopped (all of it, the first time)."""
        im = self.members[mno]
        if im.member.number >= 0 and fastindex.available():
            self.append(mno, fastindex.scan_member(im.readable, im.size, im.lines, progress))
            return
        with open_member(im.readable, False) as fh:
            fh.seek(im.size)
            last_report = 0
            for raw in iter_lines(fh, start_offset=im.size, start_line=im.lines + 1):
                self.add_line(mno, raw)
                if progress and raw.offset - last_report > (8 << 20):
                    last_report = raw.offset
                    progress(raw.offset)

    def take_in_sidecar(self, path: str) -> int:
        """Index the run's re-runs file from where indexing stopped; returns the rows added.

        For a frozen view after a re-run wrote to ``path`` (the first one creates it). A live
        follower reads the sidecar by itself and must not be doubled by this. Raises OSError
        when the file cannot be read.
        """
        with self._lock:
            self.run.sidecar = path
            before = len(self)
            mno = next((i for i, im in enumerate(self.members) if im.member.number < 0), None)
            if mno is None:
                mno = self.add_member(Member(path, -1, False))
            self.index_member(mno)
            return len(self) - before

    # ------------------------------------------------------------------ reading
    def __len__(self) -> int:
        return self._committed

    def snapshot(self) -> Snapshot:
        """Totals, latest failure and row count that agree with each other."""
        with self._lock:
            return Snapshot(
                self._committed, replace(self.stats), self.latest_failure, self.generation
            )

    def links(self, start: int = 0) -> list[tuple[int, str]]:
        """``(row, parent id)`` of committed rows naming a parent, from the ``start``-th on.

        A copy: a reader iterates it while the writer goes on appending. The order is the
        order rows were filled, which is row order except around rows patched in a batch.
        """
        with self._lock:
            return self._rows.links[start : self._links_committed]

    def get(self, row: int) -> Span | BadLine:
        """The parsed row (cached); a vanished member yields a BadLine saying so."""
        if not 0 <= row < self._committed:
            raise IndexError(row)
        with self._lock:
            hit = self._cache.get(row)
            if hit is not None:
                return hit
            if row in self.bad:
                return self.bad[row]
            im = self.members[self.member_no[row]]
            mno, path, readable = self.member_no[row], im.member.path, im.readable
            offset, length, line_no = self.offset[row], self.length[row], self.line_no[row]
            epoch = self._cache.epoch
        parsed = self._files.read(mno, path, readable, offset, length, line_no)
        with self._lock:
            self._cache.keep(row, parsed, epoch)  # not kept if the member moved meanwhile
        return parsed

    def span(self, row: int) -> Span | None:
        got = self.get(row)
        return got if isinstance(got, Span) else None

    def location(self, row: int) -> tuple[str, int]:
        """``(file path, line number)`` of a row (in the original file for an imported trace).

        For an imported trace the line is the record's ``source_line`` (or ``source_index``):
        taken from :attr:`source_lines` when the build kept them, else from the parsed row."""
        path, line = self.members[self.member_no[row]].member.path, self.line_no[row]
        source_lines = self.source_lines
        if source_lines is not None and row not in self.bad:
            return path, source_lines.get(line, line)
        span = self.span(row) if self.run.source_format is not None else None
        where = None if span is None else source_line(span.raw)
        return path, line if where is None else where

    def row_at(self, path: str, offset: int) -> int | None:
        """The row of the line at ``offset`` in member ``path`` (to carry a selection across)."""
        mnos = [i for i, im in enumerate(self.members) if im.member.path == path]
        if not mnos:
            return None
        return row_of_offset(self.member_no, self.offset, len(self), mnos[-1], offset)

    def exit_code(self, row: int) -> int | None:
        v = self.exit[row]
        if v in _CLAMPED:  # past the int32 column (a Windows 0xC0000005): the record's own value
            span = self.span(row)
            return v if span is None else span.exit_code
        return None if v == NO_EXIT else v

    def hidden_bytes(self, row: int) -> int | None:
        v = self.hidden[row]
        return None if v == NO_VALUE else v

    def find(self, start: int, mask: int, step: int, *, wrap: bool = False) -> int | None:
        """Next row after ``start`` (in direction ``step``) whose flags intersect ``mask``."""
        return find_flag(self.flags, len(self), start, mask, step, wrap=wrap)

    def rows_with(self, mask: int) -> Iterator[int]:
        flags = self.flags
        return (i for i in range(len(self)) if flags[i] & mask)

    def close(self) -> None:
        self._files.close()
        with self._lock:
            temps, self._temps = self._temps, []
        for tmp in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)

    def __del__(self) -> None:  # temp copies of gz members must not outlive the index
        self.close()
