"""The rows a follower hands its consumer after a poll, parsed only when looked at.

A big catch-up appends hundreds of thousands of rows; the viewer only counts them, ``tail``
reads each one. Rows read line by line come parsed already; rows read in bulk are parsed from
the index when asked for (the follower first makes sure a copy-and-truncate did not empty the
file they are in, see ``Follower._settle_live``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

from tracetui.model.spans import Span
from tracetui.store.index import RunIndex
from tracetui.store.reader import BadLine

Item = Span | BadLine
"""A row as the consumer sees it."""


class RowItems(Sequence[Item]):
    """Rows ``first .. first+count-1`` of an index; rows read in bulk are parsed when looked at.

    The UI only needs to know how many rows arrived; ``tail`` reads each one. Parsing every
    row of a big catch-up for a callback that only counts them was most of its cost. Rows read
    line by line (the live steady state) come parsed already, as read: their file may be
    replaced before anyone looks.
    """

    def __init__(
        self, index: RunIndex, first: int, count: int, known: dict[int, Item] | None = None
    ) -> None:
        # Private names: ``index`` and ``count`` would shadow the Sequence methods of that name.
        self._index, self._first, self._count = index, first, count
        self._known = known or {}

    @property
    def first(self) -> int:
        """Index row of item 0."""
        return self._first

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, i: int) -> Item: ...
    @overload
    def __getitem__(self, i: slice) -> list[Item]: ...

    def __getitem__(self, i: int | slice) -> Item | list[Item]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self._count))]
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError(i)
        row = self._first + i
        got = self._known.get(row)
        return got if got is not None else self._index.get(row)
