"""The rows a follower just read, as it parsed them, so the list draws them without reading them
from disk again.

Following a run at 2,000 spans a second, the list draws the newest rows at every frame, and
each was read back from its file and parsed again on the UI thread (``RunIndex.get``: a
``pread`` that hands the interpreter lock to the follower's thread, then the JSON parse),
about a fifth of a frame. The follower parsed those very bytes a moment before, with the same
function (``parse_line``), and hands them to its ``on_rows`` callback.

A row kept here is handed out only while its member is where it was when the row was taken in
(the index replaces a member's record whenever the member moves, is copied or vanishes, and
then reads its rows again: so does this) and is still readable; bad lines are never kept (they
name their file, which a rotation renames), so for them, and any other row, the index is
asked as before. Only the last :data:`KEEP` rows are kept.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from tracetui.model.spans import Span
from tracetui.store.index import RunIndex
from tracetui.store.members import IndexedMember
from tracetui.store.reader import BadLine
from tracetui.store.runset import Member

KEEP = 512
"""Rows kept (the newest): more than a tall terminal's list shows."""
PER_BATCH = 256
"""Rows looked at per batch: its last ones, the only ones the list may still draw."""


class RecentRows:
    """The newest rows of one index as the follower parsed them (filled on its thread)."""

    def __init__(self, index: RunIndex) -> None:
        self.index = index
        self._rows: OrderedDict[int, tuple[Span, Member]] = OrderedDict()

    def add(self, first: int, items: Sequence[Span | BadLine]) -> None:
        """Follower thread: keep the last rows of a batch (``items[i]`` is row ``first + i``)."""
        index = self.index
        members = index.members
        for i in range(max(0, len(items) - PER_BATCH), len(items)):
            item = items[i]
            row = first + i
            if isinstance(item, Span) and row < len(index):
                self._rows[row] = (item, members[index.member_no[row]].member)
        while len(self._rows) > KEEP:
            self._rows.popitem(last=False)

    def get(self, row: int) -> Span | BadLine:
        """Row ``row`` as the index would give it: kept, while its member has not moved."""
        got = self._rows.get(row)
        if got is not None:
            item, member = got
            im: IndexedMember = self.index.members[self.index.member_no[row]]
            if im.member is member and im.readable:
                return item
        return self.index.get(row)
