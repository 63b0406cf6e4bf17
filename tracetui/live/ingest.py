"""Reading a followed file into the index, from where it stopped, and counting one poll's rows.

The :class:`Ingest` is owned by the follower (:class:`tracetui.live.follow.Follower`), which
says which file to read and when; the rules of what is kept (a partial last line waits, lines
are kept only while the live base still starts with what was read) are here. See the
follower's module docstring for the cases they guard against.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import IO

from tracetui.live.rotation import RotationTracker
from tracetui.live.rowitems import Item
from tracetui.live.watch import HEAD, FileState
from tracetui.store import fastindex
from tracetui.store.index import RunIndex
from tracetui.store.reader import RawLine, iter_lines, parse_line
from tracetui.store.runset import Member

BULK_BYTES = 1 << 20
"""Unread bytes above which a file is read through the C scanner rather than line by line."""


class Ingest:
    """Reads the follower's files into ``index``; the rows of the current poll and its budget."""

    def __init__(self, index: RunIndex, rot: RotationTracker, note: Callable[[str], None]) -> None:
        self.index = index
        self._rot = rot
        self._note = note
        self.budget = 0
        """Rows this poll may still read."""
        self.first_row = -1
        self.count = 0
        self.known: dict[int, Item] = {}
        """Rows read line by line this poll, parsed as read (rows read in bulk are not)."""
        self.truncated_seen = False
        """The live base no longer starts with what was read: a copy-and-truncate happened."""

    def start_poll(self, budget: int) -> None:
        """Begin a poll allowed ``budget`` rows."""
        self.budget = budget
        self.first_row, self.count, self.known = -1, 0, {}
        self.truncated_seen = False

    def take(self) -> tuple[int, int, dict[int, Item]]:
        """``(rows, first row, rows parsed as read)`` read since the last take; starts afresh."""
        count, first, known = self.count, self.first_row, self.known
        self.count, self.first_row, self.known = 0, -1, {}
        return count, first, known

    def wait_for_older(self, f: FileState) -> bool:
        """Whether rows just read from the start of ``f`` must not be kept yet.

        A base read from its start may hold the content that came right after what we read
        last, or, if the writer copied and truncated it once more between our last look at
        the folder and this read, the content after *that*: the generation in between is
        then a copy we have not seen. Looking at the folder now (after the read) finds it;
        it is read first and the base again after it (so is a look that could not be sure:
        rotations kept renaming files while it was taken). Once a base has rows, its copies
        are recognised by its first bytes instead.
        """
        if f is not self._rot.live or f.size > 0:
            return False
        queued = len(self._rot.pending)
        sure = self._rot.scan()
        return not sure or len(self._rot.pending) > queued

    def read(self, f: FileState, *, final: bool, budget: bool = True) -> bool:
        """Read ``f`` from where it stopped; False when the batch budget ran out first.

        For the live base (``final`` False) the lines are only kept if the file still starts
        with what we have read: a copy-and-truncate between our checks and our read would
        otherwise hand us the middle of some other line. On a mismatch nothing is kept and
        ``truncated_seen`` is set; the copy will supply those lines.
        """
        fh = f.fh
        if fh is None:
            return True
        if fastindex.available() and _unread(fh, f.size) > BULK_BYTES:
            return self._read_bulk(f, final=final, budget=budget)
        lines: list[RawLine] = []
        head = f.head
        complete = True
        try:
            fh.seek(f.size)
            for raw in iter_lines(fh, start_offset=f.size, start_line=f.lines + 1):
                if not raw.complete and not final:
                    break  # may still grow: wait for its newline
                if budget and len(lines) >= self.budget:
                    complete = False
                    break
                if len(head) < HEAD and raw.offset == len(head) and raw.data is not None:
                    # The head is built from what we read, never re-read later: by then the
                    # file may have been truncated and rewritten.
                    head += (raw.data + b"\n" if raw.complete else raw.data)[: HEAD - len(head)]
                lines.append(raw)
            if not final and lines and os.pread(fh.fileno(), len(head), 0) != head:
                self.truncated_seen = True
                return True
            if not final and lines and self.wait_for_older(f):
                return True
        except OSError as exc:
            self._note(f"{os.path.basename(f.path)}: read failed: {exc.strerror}")
        f.head = head
        for raw in lines:
            if raw.data is None or raw.data.strip():
                if f.mno is None:
                    f.mno = self._register(f)
                parsed = parse_line(raw, f.path)
                row = self.index.add_line(f.mno, raw, parsed)  # type: ignore[arg-type]  # a Span has the facts
                if row is not None:
                    if self.first_row < 0:
                        self.first_row = row
                    self.count += 1
                    self.known[row] = parsed
                    if budget:
                        self.budget -= 1
            f.size = raw.offset + raw.length + (1 if raw.complete else 0)
            f.lines = raw.line_no
        return complete

    def _read_bulk(self, f: FileState, *, final: bool, budget: bool) -> bool:
        """Like :meth:`read`, through the C scanner a few MB at a time (a big catch-up).

        The same rules hold: an unfinished last line of the live base waits for its newline,
        and lines are kept only while the base still starts with what was read.
        """
        fh = f.fh
        assert fh is not None
        try:
            # From its start, the first bytes are taken *before* the scan: taken after it, they
            # could be those of what a copy-and-truncate wrote meanwhile. Still there after
            # the scan, they show the scan read the same content (see read).
            before = os.pread(fh.fileno(), HEAD, 0) if f.size == 0 else b""
            for item in fastindex.scan_stream(fh, f.size, f.lines):
                if isinstance(item, RawLine):
                    if not item.complete and not final:
                        return True  # may still grow: wait for its newline
                    end, last = (
                        item.offset + item.length + (1 if item.complete else 0),
                        item.line_no,
                    )
                else:
                    end, last = fastindex.batch_end(item), fastindex.batch_last_line(item)
                head = f.head
                if f.size == 0:
                    if len(before) < min(HEAD, end):
                        if not final:
                            return True  # shorter before the scan: it changed, look again
                        before = os.pread(fh.fileno(), HEAD, 0)  # a finished file only grows
                    head = before[: min(HEAD, end)]
                if not final and head and os.pread(fh.fileno(), len(head), 0) != head:
                    self.truncated_seen = True
                    return True
                if not final and self.wait_for_older(f):
                    return True
                f.head = head
                if f.mno is None:
                    f.mno = self._register(f)
                first = len(self.index)
                self.index.append(f.mno, [item])
                if len(self.index) > first:
                    if self.first_row < 0:
                        self.first_row = first
                    self.count += len(self.index) - first
                    if budget:
                        self.budget -= len(self.index) - first
                f.size, f.lines = end, last
                if budget and self.budget <= 0 and (final or _unread(fh, f.size) > 0):
                    return False
        except OSError as exc:
            self._note(f"{os.path.basename(f.path)}: read failed: {exc.strerror}")
        return True

    def _register(self, f: FileState) -> int:
        """Add ``f`` to the index as a member, with a readable copy for gzip members."""
        member = Member(f.path, f.number, f.gz)
        assert f.fh is not None
        # Rows are read back through the very file we read them from (a duplicate of our
        # handle): a rotation renaming another file to this name cannot redirect them.
        fd = os.dup(f.fh.fileno())
        if not f.gz:
            return self.index.add_member(member, fd=fd)
        # Our own spool (f.fh) is the readable copy: the .gz may be renamed under us.
        readable = f.fh.name if isinstance(f.fh.name, str) else f.path
        return self.index.add_member(member, readable, fd=fd)


def _unread(fh: IO[bytes], consumed: int) -> int:
    try:
        return os.fstat(fh.fileno()).st_size - consumed
    except OSError:
        return 0
