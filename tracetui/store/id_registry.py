"""The command-id registry of a run's index (:class:`tracetui.store.index.RunIndex` owns one).

Command id → the first row carrying it, and for an id seen more than once every row carrying it.
Chains, parent links, ``--id`` and the viewer's go-to-id read it.

Registering is the dearest part of re-opening a big run: a million ids make a million-entry
dict (~0.35 s), even when every row comes back from the persistent index. So the index does not
register rows as they arrive in a bulk build: it notes how far the registry *should* reach
(:attr:`IdRegistry.wanted`) and the registry is brought up to there the first time anyone reads
it (:meth:`IdRegistry.settle`). Rows are always taken in row order, whether at once or in steps,
so the result is the same dict either way: the first occurrence of an id wins.
"""

from __future__ import annotations

from typing import cast


class IdRegistry:
    """Ids of rows ``0 … upto`` registered; rows up to ``wanted`` are owed (the owner settles)."""

    def __init__(self) -> None:
        self.rows: dict[str, int] = {}
        """Command id → first row carrying it."""
        self.duplicates: dict[str, list[int]] = {}
        """Command id → every row carrying it, for ids seen more than once."""
        self.upto = 0
        """Rows registered so far (always a prefix of the index's rows)."""
        self.wanted = 0
        """Rows that must be registered before the registry is read (``>= upto``)."""

    def owe(self, start: int, stop: int) -> bool:
        """Note rows ``start … stop`` as to be registered later; False when they do not follow
        on from what is owed (the caller then registers at once, after :meth:`settle`)."""
        if start != self.wanted or stop < start:
            return False
        self.wanted = stop
        return True

    def settle(self, ids: list[str | None]) -> None:
        """Register the owed rows (``ids`` is the index's id column)."""
        if self.upto < self.wanted:
            start, stop = self.upto, self.wanted
            self.add(ids[start:stop], start)

    def add(self, ids: list[str | None], start: int) -> None:
        """Register ``ids``, the ids of rows ``start …``, in row order (first occurrence wins)."""
        stop = start + len(ids)
        self.upto = max(self.upto, stop)
        self.wanted = max(self.wanted, stop)
        # Built at C speed: reversed, so the first occurrence of an id is the one kept.
        with_none = dict(zip(reversed(ids), range(stop - 1, start - 1, -1), strict=True))
        with_none.pop(None, None)
        batch = cast("dict[str, int]", with_none)  # None was its only key that is not a str
        if len(batch) == len(ids) - ids.count(None):
            if not self.rows:
                self.rows = batch  # a bulk build registers everything at once: no copy
                return
            # isdisjoint walks the small batch; `batch.keys() & rows.keys()` would walk all ids.
            if self.rows.keys().isdisjoint(batch):
                self.rows.update(batch)
                return
        rows = self.rows  # duplicates somewhere: the careful way
        for row, cid in enumerate(ids, start):
            if cid is not None:
                first = rows.setdefault(cid, row)
                if first != row:
                    self.duplicates.setdefault(cid, [first]).append(row)
