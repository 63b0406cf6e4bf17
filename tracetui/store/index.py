"""A compact index over a run: offsets plus a few columns per row, spans parsed on demand.

A million spans must not become a million dicts. Each row (a span or a bad line, in set order)
keeps its member, offset, length and line number, and the handful of facts that navigation,
the header and the summary need: exit code, flags, hidden bytes, ids. Everything else is parsed
from the file when a row is shown, through a small LRU cache.

Rows are only ever appended, so the follower can grow an index while the UI reads it.
"""

from __future__ import annotations

import gzip
import os
import shutil
import tempfile
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tracetui.model.flags import (
    BAD,
    FAILED,
    NO_EXIT,
    NO_VALUE,
    NULL_EXIT,
    PROBLEMS,
    SIDECAR,
    TRUNC_UNKNOWN,
    TRUNCATED,
)
from tracetui.model.spans import Facts, Span
from tracetui.store.reader import (
    BadLine,
    RawLine,
    is_blank,
    iter_lines,
    open_member,
    parse_facts,
    parse_line,
)
from tracetui.store.runset import Member, Run


@dataclass(slots=True)
class Stats:
    """Running totals, updated as rows are added (the header reads them)."""

    spans: int = 0
    bad_lines: int = 0
    failed: int = 0
    truncated: int = 0
    hidden_bytes: int = 0


@dataclass(slots=True)
class IndexedMember:
    """A member as the index knows it, with where to read it from."""

    member: Member
    readable: str
    """Path used for random access: the member itself, or a decompressed copy of a gz member."""
    size: int = 0
    """Bytes indexed so far (of the decompressed stream for gz)."""
    lines: int = 0
    """Lines seen so far."""


class RunIndex:
    """Rows of one run in set order. Thread-safe for one writer and many readers."""

    def __init__(self, run: Run, *, cache_size: int = 512) -> None:
        self.run = run
        self.members: list[IndexedMember] = []
        self.member_no = array("H")
        self.offset = array("q")
        self.length = array("q")
        self.line_no = array("i")
        self.flags = array("B")
        self.exit = array("i")
        self.hidden = array("q")
        self.ids: list[str | None] = []
        self.parent_ids: dict[int, str] = {}
        """Row → parent id, only for rows that name a parent."""
        self.id_rows: dict[str, int] = {}
        """Command id → first row carrying it."""
        self.duplicates: dict[str, list[int]] = {}
        """Command id → every row carrying it, for ids seen more than once."""
        self.bad: dict[int, BadLine] = {}
        self.stats = Stats()
        self.latest_failure: int | None = None
        self.generation = 0
        """Bumped on every append; caches keyed on it know when to refresh."""
        self.partial = False
        """True for a peek (:func:`peek_index`): only the newest rows, line numbers relative."""
        self._cache: OrderedDict[int, Span | BadLine] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        self._temps: list[str] = []
        self._fds: OrderedDict[tuple[int, str], int] = OrderedDict()

    # ----------------------------------------------------------------- building
    def add_member(self, member: Member, readable: str | None = None) -> int:
        """Register a member; returns its number in ``self.members``.

        ``readable`` is where rows are read from when it is not the member itself (the follower
        passes its own decompressed spool of a gz member, which may be renamed under it).
        """
        if readable is None:
            readable = self._decompressed_copy(member.path) if member.gz else member.path
        self.members.append(IndexedMember(member, readable))
        return len(self.members) - 1

    def adopt_temp(self, path: str) -> None:
        """Take ownership of a temporary file: it is removed when the index closes."""
        self._temps.append(path)

    def _decompressed_copy(self, path: str) -> str:
        # Random access into gzip is slow; one decompressed spool per gz member keeps every
        # later read a seek. The copy lives on disk, not in memory.
        fd, tmp = tempfile.mkstemp(prefix="tracetui-", suffix=".jsonl")
        with os.fdopen(fd, "wb") as out, gzip.open(path, "rb") as src:
            shutil.copyfileobj(src, out, 1 << 20)
        self._temps.append(tmp)
        return tmp

    def add_line(
        self,
        mno: int,
        raw: RawLine,
        parsed: Facts | BadLine | None = None,
        *,
        register: bool = True,
    ) -> int | None:
        """Index one line; returns its row, or None for a blank line."""
        if is_blank(raw):
            return None
        im = self.members[mno]
        if parsed is None:
            parsed = parse_facts(raw, im.member.path)
        with self._lock:
            row = len(self.flags)
            self.member_no.append(mno)
            self.offset.append(raw.offset)
            self.length.append(raw.length)
            self.line_no.append(raw.line_no)
            self.flags.append(0)
            self.exit.append(NO_EXIT)
            self.hidden.append(NO_VALUE)
            self.ids.append(None)
            self.fill_row(row, parsed, sidecar=im.member.number < 0)
            if register:
                self.register_ids(row, row + 1)
            im.lines = max(im.lines, raw.line_no)
            im.size = max(im.size, raw.offset + raw.length + (1 if raw.complete else 0))
            self.generation += 1
        return row

    def fill_row(self, row: int, parsed: Facts | BadLine, *, sidecar: bool) -> None:
        """Set an appended row's columns and count it (ids are registered by register_ids)."""
        if isinstance(parsed, BadLine):
            self.flags[row] = BAD
            self.hidden[row] = 0
            self.bad[row] = parsed
            self.stats.bad_lines += 1
            return
        # Re-runs from the sidecar are rows (they belong in chains) but not facts about the trace.
        stats = self.stats if not sidecar else Stats()
        flags = SIDECAR if sidecar else 0
        if parsed.failed:
            flags |= FAILED
            stats.failed += 1
            if not sidecar and (self.latest_failure is None or row > self.latest_failure):
                self.latest_failure = row
        if parsed.exit_code is None:
            flags |= NULL_EXIT
        if parsed.truncated:
            flags |= TRUNCATED
            stats.truncated += 1
        elif parsed.truncated is None:
            flags |= TRUNC_UNKNOWN
        if parsed.problems:
            flags |= PROBLEMS
        hidden = parsed.hidden_bytes
        stats.hidden_bytes += hidden or 0
        stats.spans += 1
        self.flags[row] = flags
        self.exit[row] = NO_EXIT if parsed.exit_code is None else _clamp32(parsed.exit_code)
        self.hidden[row] = NO_VALUE if hidden is None else hidden
        self.ids[row] = parsed.command_id
        if parsed.parent_command_id is not None:
            self.parent_ids[row] = parsed.parent_command_id

    def register_ids(self, start: int, stop: int) -> None:
        """Record rows' command ids for chains, in row order (the first occurrence wins)."""
        ids = self.ids[start:stop]
        # Built at C speed: reversed, so the first occurrence of an id is the one kept.
        batch = dict(zip(reversed(ids), range(stop - 1, start - 1, -1)))
        batch.pop(None, None)
        if len(batch) == len(ids) - ids.count(None):
            if not self.id_rows:
                self.id_rows = batch  # a bulk build registers everything at once: no copy
                return
            # isdisjoint walks the small batch; `batch.keys() & id_rows.keys()` would walk all ids.
            if self.id_rows.keys().isdisjoint(batch):
                self.id_rows.update(batch)
                return
        id_rows = self.id_rows  # duplicates somewhere: the careful way
        for row in range(start, stop):
            cid = self.ids[row]
            if cid is not None:
                first = id_rows.setdefault(cid, row)
                if first != row:
                    self.duplicates.setdefault(cid, [first]).append(row)

    def index_member(self, mno: int, progress: Callable[[int], None] | None = None) -> None:
        """Read a whole member from where indexing stopped (all of it, the first time)."""
        from tracetui.store.fastindex import index_member_fast

        if self.members[mno].member.number >= 0 and index_member_fast(self, mno, progress):
            return
        im = self.members[mno]
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
        self.run.sidecar = path
        before = len(self)
        mno = next((i for i, im in enumerate(self.members) if im.member.number < 0), None)
        if mno is None:
            mno = self.add_member(Member(path, -1, False))
        self.index_member(mno)
        return len(self) - before

    # ----------------------------------------------------------------- reading
    def __len__(self) -> int:
        return len(self.flags)

    def get(self, row: int) -> Span | BadLine:
        """The parsed row (cached); a vanished member yields a BadLine saying so."""
        with self._lock:
            hit = self._cache.get(row)
            if hit is not None:
                self._cache.move_to_end(row)
                return hit
            if row in self.bad:
                return self.bad[row]
            im = self.members[self.member_no[row]]
            offset, length, line_no = self.offset[row], self.length[row], self.line_no[row]
        parsed = self._read(im, offset, length, line_no)
        with self._lock:
            self._cache[row] = parsed
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return parsed

    def _read(self, im: IndexedMember, offset: int, length: int, line_no: int) -> Span | BadLine:
        try:
            data = os.pread(self._fd(im), length, offset)
        except OSError as exc:
            return BadLine(
                im.member.path, line_no, offset, f"cannot read: {exc.strerror} (rotated away?)"
            )
        if len(data) != length:
            return BadLine(
                im.member.path,
                line_no,
                offset,
                "line no longer in the file (rotated or truncated?)",
            )
        return parse_line(RawLine(line_no, offset, length, data), im.member.path)

    def _fd(self, im: IndexedMember) -> int:
        """An open descriptor for a member's readable file, kept for the next row shown.

        Keyed on the member object *and* its current path: when the follower re-points a member
        (rotation, copy-truncate, dropped), the next read opens the file it now names.
        """
        key = (id(im), im.readable)
        with self._lock:
            fd = self._fds.get(key)
            if fd is not None:
                self._fds.move_to_end(key)
                return fd
        fd = os.open(im.readable, os.O_RDONLY)
        with self._lock:
            self._fds[key] = fd
            while len(self._fds) > 16:
                os.close(self._fds.popitem(last=False)[1])
        return fd

    def span(self, row: int) -> Span | None:
        got = self.get(row)
        return got if isinstance(got, Span) else None

    def location(self, row: int) -> tuple[str, int]:
        """``(file path, line number)`` of a row (in the original file for an imported trace)."""
        path, line = self.members[self.member_no[row]].member.path, self.line_no[row]
        if self.run.source_format is not None:
            span = self.span(row)
            where = span.raw.get("source_line") or span.raw.get("source_index") if span else None
            if isinstance(where, int) and not isinstance(where, bool):
                line = where
        return path, line

    def row_at(self, path: str, offset: int) -> int | None:
        """The row of the line at ``offset`` in member ``path`` (to carry a selection across indexes)."""
        from bisect import bisect_left, bisect_right

        mnos = [i for i, im in enumerate(self.members) if im.member.path == path]
        if not mnos:
            return None
        # Members are read one after another, so member numbers never decrease along the rows,
        # and within a member offsets increase: two bisections find the line.
        lo = bisect_left(self.member_no, mnos[-1])
        hi = bisect_right(self.member_no, mnos[-1])
        i = bisect_left(self.offset, offset, lo, hi)
        return i if i < hi and self.offset[i] == offset else None

    def exit_code(self, row: int) -> int | None:
        v = self.exit[row]
        return None if v == NO_EXIT else v

    def hidden_bytes(self, row: int) -> int | None:
        v = self.hidden[row]
        return None if v == NO_VALUE else v

    def find(self, start: int, mask: int, step: int, *, wrap: bool = False) -> int | None:
        """Next row after ``start`` (in direction ``step``) whose flags intersect ``mask``."""
        n = len(self.flags)
        flags = self.flags
        row = start + step
        while 0 <= row < n:
            if flags[row] & mask:
                return row
            row += step
        if wrap:
            row = 0 if step > 0 else n - 1
            while 0 <= row < n and row != start:
                if flags[row] & mask:
                    return row
                row += step
        return None

    def rows_with(self, mask: int) -> Iterator[int]:
        flags = self.flags
        return (i for i in range(len(flags)) if flags[i] & mask)

    def close(self) -> None:
        with self._lock:
            for fd in self._fds.values():
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._fds.clear()
        for tmp in self._temps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        self._temps.clear()

    def __del__(self) -> None:  # temp copies of gz members must not outlive the index
        self.close()


def _clamp32(v: int) -> int:
    return max(-(2**31) + 1, min(2**31 - 1, v))


@dataclass(slots=True)
class LoadResult:
    index: RunIndex
    notes: list[str] = field(default_factory=list)


def build_index(run: Run, progress: Callable[[int], None] | None = None) -> RunIndex:
    """Index every member of ``run`` in set order (then its re-run sidecar)."""
    from tracetui.store.fastindex import index_members_parallel

    index = RunIndex(run)
    if run.source_format is not None:
        _index_imported(index, run)
        return index
    fresh: list[int] = []
    for member in run.members:
        try:
            fresh.append(index.add_member(member))
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            run.notes.append(f"{member.name}: cannot read: {exc}")
    try:
        done = index_members_parallel(index, fresh, progress)
    except OSError as exc:  # a member vanished mid-scan: start over member by member
        run.notes.append(f"parallel scan stopped ({exc}); reading members one by one")
        index = RunIndex(run)
        fresh = [index.add_member(m) for m in run.members if _readable(m)]
        done = False
    if not done:
        for mno in fresh:
            try:
                index.index_member(mno, progress)
            except (OSError, EOFError, gzip.BadGzipFile) as exc:
                run.notes.append(f"{index.members[mno].member.name}: stopped reading: {exc}")
    if run.sidecar:
        side = Member(run.sidecar, -1, False)
        try:
            index.index_member(index.add_member(side), progress)
        except OSError as exc:
            run.notes.append(f"{os.path.basename(run.sidecar)}: cannot read: {exc.strerror}")
    return index


def _readable(member: Member) -> bool:
    return os.path.exists(member.path)


def _index_imported(index: RunIndex, run: Run) -> None:
    """Convert a foreign trace to a temporary JSONL of ``import/<format>`` records, index that."""
    import orjson

    from tracetui import importers

    fd, tmp = tempfile.mkstemp(prefix="tracetui-import-", suffix=".jsonl")
    index._temps.append(tmp)
    try:
        with os.fdopen(fd, "wb") as out:
            for record in importers.convert(run.base, run.source_format or ""):
                out.write(orjson.dumps(record, default=str) + b"\n")
    except (OSError, ValueError) as exc:
        run.notes.append(f"{run.source_format} import: {exc}")
    # Rows read from the converted copy; locations still name the original file.
    im = IndexedMember(Member(run.base, 0, False), tmp)
    index.members.append(im)
    index.index_member(len(index.members) - 1)


def peek_index(run: Run, tail_bytes: int = 1 << 20) -> RunIndex | None:
    """The last rows of the newest member, read in a few milliseconds whatever the set's size.

    A stand-in the viewer shows while the whole set is indexed: its rows carry the right
    member and offset (so a selection survives the swap to the full index), but line numbers
    count from the peek's start, not the file's (``index.partial`` says so). None when the run
    has no plain newest member to peek at (gzip'd, imported, missing).
    """
    if run.source_format is not None or not run.members:
        return None
    newest = run.members[-1]
    if newest.gz:
        return None
    try:
        size = os.path.getsize(newest.path)
        with open(newest.path, "rb") as fh:
            start = max(0, size - tail_bytes)
            if start:
                fh.seek(start - 1)
                # Begin at the first full line inside the window.
                chunk = fh.read(min(size - start + 1, tail_bytes + 1))
                nl = chunk.find(b"\n")
                if nl < 0:
                    return None
                start += nl
            index = RunIndex(run)
            index.partial = True
            mno = index.add_member(newest)
            index.members[mno].size = start
            index.index_member(mno)
    except OSError:
        return None
    return index
