"""The parsed rows a run's index read last (:meth:`tracetui.store.index.RunIndex.get`).

A bounded LRU of row → parsed span or bad line, and an *epoch*: a read that began before a
member was re-pointed (rotated, compressed, gone) may have come from the file the member left,
so it is given to the reader but not kept. The index calls every method under its lock.
"""

from __future__ import annotations

from collections import OrderedDict

from tracetui.model.spans import Span
from tracetui.store.reader import BadLine


class RowCache:
    """Up to ``size`` parsed rows, the least recently read going first."""

    def __init__(self, size: int) -> None:
        self._rows: OrderedDict[int, Span | BadLine] = OrderedDict()
        self._size = size
        self.epoch = 0
        """Bumped by :meth:`forget`: reads begun before it are not kept."""

    def get(self, row: int) -> Span | BadLine | None:
        hit = self._rows.get(row)
        if hit is not None:
            self._rows.move_to_end(row)
        return hit

    def keep(self, row: int, parsed: Span | BadLine, epoch: int) -> None:
        """Keep what a read begun at ``epoch`` gave, unless a member moved since."""
        if epoch != self.epoch:
            return
        self._rows[row] = parsed
        if len(self._rows) > self._size:
            self._rows.popitem(last=False)

    def clear(self) -> None:
        self._rows.clear()

    def forget(self) -> None:
        """A member moved: nothing read so far is kept, nor anything being read now."""
        self._rows.clear()
        self.epoch += 1
