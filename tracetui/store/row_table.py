"""The per-row columns of a run and the code that appends rows to them.

:class:`~tracetui.store.index.RunIndex` owns one table and exposes its columns as its own
attributes (the same objects). Nothing here locks or publishes: the index calls these methods
under its lock and commits afterwards, so a reader never sees a row whose columns are still
being filled. Command ids are registered by the index too (its id registry), not here.
"""

from __future__ import annotations

from array import array
from itertools import repeat

from tracetui.model.flags import BAD, FAILED, NO_EXIT, NO_VALUE
from tracetui.model.marks import ALL as ALL_MARKS
from tracetui.model.spans import Facts
from tracetui.store import fastindex
from tracetui.store.fastindex import Batch
from tracetui.store.members import IndexedMember, Stats
from tracetui.store.reader import MAX_LINE, BadLine, RawLine, parse_facts
from tracetui.store.row_columns import count_span, facts_columns


class RowTable:
    """Columns of every row filled so far (committed or not), their totals and parent links."""

    def __init__(self) -> None:
        self.member_no = array("H")
        self.offset = array("q")
        self.length = array("q")
        self.line_no = array("i")
        self.flags = array("B")
        self.marks = array("B")
        self.exit = array("i")
        self.hidden = array("q")
        self.ids: list[str | None] = []
        self.parent_ids: dict[int, str] = {}
        self.bad: dict[int, BadLine] = {}
        self.stats = Stats()
        self.links: list[tuple[int, str]] = []
        """``(row, parent id)`` in the order rows were filled (append-only)."""
        self.latest_pending: int | None = None
        """Row of the latest failure filled so far (the index publishes it on commit)."""

    def append_line(
        self, mno: int, im: IndexedMember, raw: RawLine, parsed: Facts | BadLine
    ) -> int:
        """Append one line read by the line reader as member ``mno``'s next row; its row."""
        row = len(self.flags)
        self.member_no.append(mno)
        self.offset.append(raw.offset)
        self.length.append(raw.length)
        self.line_no.append(raw.line_no)
        self.flags.append(0)
        self.marks.append(ALL_MARKS)  # read line by line: the scanner did not judge it
        self.exit.append(NO_EXIT)
        self.hidden.append(NO_VALUE)
        self.ids.append(None)
        self.fill_row(row, parsed, sidecar=im.member.number < 0)
        im.lines = max(im.lines, raw.line_no)
        im.size = max(im.size, raw.offset + raw.length + (1 if raw.complete else 0))
        return row

    def append_batch(self, mno: int, im: IndexedMember, batch: Batch) -> tuple[int, int]:
        """Append a batch of the C scanner's rows for member ``mno``; ``(first row, rows)``."""
        res = batch.result  # the scanner's columns, in the order _scan.c builds them
        offsets, lengths, line_nos, hidden, exits, flags, slow, ids, parents = res[2:11]
        failed, truncated, hidden_sum, last_failed, exit_unknown = res[11:16]
        n = len(ids)
        row0 = len(self.flags)
        if n:
            self.member_no.frombytes(array("H", (mno,)).tobytes() * n)  # not n boxed ints
            self.offset.frombytes(offsets)
            self.length.frombytes(lengths)
            self.line_no.frombytes(line_nos)
            self.hidden.frombytes(hidden)
            self.exit.frombytes(exits)
            self.flags.frombytes(flags)
            if len(res) > 16:
                self.marks.frombytes(res[16])
            else:  # rows restored without their marks: every rule reads them
                self.marks.extend(repeat(ALL_MARKS, n))
            self.ids.extend(ids)
            stats = self.stats
            stats.spans += n - len(batch.slow_lines)
            stats.failed += failed
            stats.exit_unknown += exit_unknown
            stats.truncated += truncated
            stats.hidden_bytes += hidden_sum
            if last_failed >= 0:
                self.latest_pending = row0 + last_failed
            self.link_batch(row0, parents)
            slow_rows = array("i")
            slow_rows.frombytes(slow)
            path = im.member.path
            for k, data in zip(slow_rows, batch.slow_lines, strict=True):
                row = row0 + k
                length = self.length[row]
                raw = RawLine(
                    self.line_no[row],
                    self.offset[row],
                    length,
                    data if length <= MAX_LINE else None,
                )
                self.fill_row(row, parse_facts(raw, path), sidecar=False)
        im.size = max(im.size, fastindex.batch_end(batch))
        im.lines = max(im.lines, fastindex.batch_last_line(batch))
        return row0, n

    def fill_row(self, row: int, parsed: Facts | BadLine, *, sidecar: bool) -> None:
        """Set an appended row's columns and count it (ids are registered by the index)."""
        if isinstance(parsed, BadLine):
            self.flags[row] = BAD
            self.hidden[row] = 0
            self.bad[row] = parsed
            self.stats.bad_lines += 1
            return
        flags, self.exit[row], self.hidden[row] = facts_columns(parsed, sidecar=sidecar)
        self.flags[row] = flags
        # Re-runs from the sidecar are rows (they belong in chains) but not facts about the trace.
        if not sidecar:
            count_span(self.stats, flags, parsed.hidden_bytes)
            if flags & FAILED and (self.latest_pending is None or row > self.latest_pending):
                self.latest_pending = row
        self.ids[row] = parsed.command_id
        if parsed.parent_command_id is not None:
            self.link(row, parsed.parent_command_id)

    def link_batch(self, row0: int, parents: list[tuple[int, str]]) -> None:
        """Link a batch's rows (``(row - row0, parent id)``, new rows, in the batch's order)."""
        linked = {row0 + k: pid for k, pid in parents}
        # Rows from row0 on are new, so none is linked yet: once each is named once, the links
        # go in at C speed, in the same order link would have listed them.
        if len(linked) == len(parents) and (not linked or min(linked) >= row0):
            self.links.extend(linked.items())
            self.parent_ids.update(linked)
            return
        for k, pid in parents:
            self.link(row0 + k, pid)

    def link(self, row: int, pid: str) -> None:
        if row not in self.parent_ids:  # a patched slow row may be linked twice: list it once
            self.links.append((row, pid))
        self.parent_ids[row] = pid
