"""The command-id registry of a run's index (:class:`tracetui.store.index.RunIndex` owns one).

Command id → the first row carrying it, and for an id seen more than once every row carrying it.
Chains, parent links, ``--id`` and the viewer's go-to-id read it.

Registering is the dearest part of re-opening a big run: a million ids make a million-entry
dict (~0.35 s), even when every row comes back from the persistent index. So the index does not
register rows as they arrive in a bulk build: it notes how far the registry *should* reach
(:attr:`IdRegistry.wanted`) and the registry is brought up to there the first time anyone reads
it (:meth:`IdRegistry.settle`). Rows are always taken in row order, whether at once or in steps,
so the result is the same dict either way: the first occurrence of an id wins.

Most readers only ever ask for *parent* ids: chains, suspicions, a parent missing from the set.
While rows are owed, :class:`OwedIdRows` answers those from the first rows of just the ids some
row names as its parent, found in one pass at C speed (``compress`` over ``set.__contains__``);
any other id, or a walk over every id, settles the whole registry first. A cold ``summary
--json`` of a million rows then never makes the million-entry dict.

A reader with many ids to look up (a chain index resolving every parent link) asks for all of
them at once (:func:`rows_of`): one ``map`` at C speed instead of a Python call per id.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import compress, islice, repeat
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
        self._parents: tuple[int, int, dict[str, int], set[str]] | None = None
        """``(upto, wanted, first rows, ids looked for)`` of the parent ids' table."""

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

    def parents_table(self, ids: list[str | None], parents: Iterable[str]) -> dict[str, int]:
        """What :meth:`settle` would give for each of ``parents`` that it would hold, without
        settling: their registered rows, else their first row among the owed ones."""
        kept = self._parents
        if kept is not None and kept[:2] == (self.upto, self.wanted):
            return kept[2]
        want = set(parents)
        rows = self.rows
        first = {cid: rows[cid] for cid in want if cid in rows}
        start, stop = self.upto, self.wanted
        owed = islice(ids, start, stop)
        for row in compress(range(start, stop), map(want.__contains__, owed)):
            first.setdefault(cast("str", ids[row]), row)
        self._parents = (start, stop, first, want)
        return first

    def looked_for(self) -> set[str]:
        """The ids the last :meth:`parents_table` was made for."""
        return set() if self._parents is None else self._parents[3]

    def add(self, ids: list[str | None], start: int) -> None:
        """Register ``ids``, the ids of rows ``start …``, in row order (first occurrence wins)."""
        self._parents = None
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


class OwedIdRows(Mapping[str, int]):
    """``RunIndex.id_rows`` while rows are owed: parent ids from ``first`` (``looked_for`` says
    which ids it was made for, so an id in it but not in ``first`` is in no registered row);
    any other question settles the registry (``settle`` returns the settled dict)."""

    def __init__(
        self, first: dict[str, int], looked_for: set[str], settle: Callable[[], dict[str, int]]
    ) -> None:
        self._first = first
        self._looked_for = looked_for
        self._settle = settle

    def __getitem__(self, key: str) -> int:
        got = self._first.get(key)
        if got is not None:
            return got
        if key in self._looked_for:
            raise KeyError(key)
        return self._settle()[key]

    def __contains__(self, key: object) -> bool:
        if key in self._first:
            return True
        if key in self._looked_for:
            return False
        return key in self._settle()

    def __iter__(self) -> Iterator[str]:
        return iter(self._settle())

    def __len__(self) -> int:
        return len(self._settle())

    def get_many(self, keys: list[str]) -> list[int | None]:
        """``get`` of each of ``keys``: settling only when one is an id not looked for."""
        got = list(map(self._first.get, keys))
        if None in got and not self._looked_for.issuperset(
            compress(keys, map(operator.is_, got, repeat(None)))
        ):
            return list(map(self._settle().get, keys))
        return got


def rows_of(id_rows: Mapping[str, int], keys: list[str]) -> list[int | None]:
    """``[id_rows.get(k) for k in keys]`` in one pass at C speed (``RunIndex.id_rows`` is an
    :class:`OwedIdRows` while rows are owed, whose ``get`` goes through Python per key)."""
    if isinstance(id_rows, OwedIdRows):
        return id_rows.get_many(keys)
    return list(map(id_rows.get, keys))
