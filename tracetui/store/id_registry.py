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

The viewer shows a big run before its registry is settled, then settles it on its indexing
thread *aside* (:meth:`IdRegistry.begin_aside`, :func:`registered`, :meth:`IdRegistry.install`):
the dict is built outside the index's lock, in steps, so the UI thread reading rows meanwhile
waits neither for the lock nor for the interpreter. A reader meanwhile gets a
:class:`SettlingIdRows`: one id is found by a search of the id column at C speed (~25 ms at a
million rows); anything more waits for the settled dict.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import compress, islice, repeat
from typing import cast

STEP = 1 << 15
"""Rows :func:`registered` takes in one C-speed call (~10 ms): another thread waiting for the
interpreter gets it between two."""
FEW = 8
"""Ids a :class:`SettlingIdRows` looks up by searching the column; more wait for the dict."""


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
        self.settling: threading.Event | None = None
        """Set while another thread settles the registry aside; set (the event) when done."""
        self.settler: int | None = None
        """The thread settling aside (``threading.get_ident()``)."""
        self.awaited = False
        """Whether another thread waits for the registry settled aside (the settler hurries)."""
        self.searched: dict[str, int] = {}
        """What :class:`SettlingIdRows` found in the column while the registry is settled
        aside: an id's first row, or ``-n - 1`` for an id in none of the first ``n`` rows."""

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
        first = {cid: rows[cid] for cid in want if cid in rows} if rows else {}
        start, stop = self.upto, self.wanted
        from tracetui.store.fastindex import first_rows  # the pass in C when built

        first_rows(ids, start, stop, want, first)
        self._parents = (start, stop, first, want)
        return first

    def begin_aside(self) -> int | None:
        """Start settling aside (the caller holds the index's lock); the rows to register, or
        None when there is nothing to do this way: nothing owed, or some rows registered
        already (then :meth:`settle` adds the rest: it has to merge) or another thread at it."""
        if self.upto >= self.wanted or self.upto or self.rows or self.settling is not None:
            return None
        self.settling = threading.Event()
        self.settler = threading.get_ident()
        self.searched = {}
        return self.wanted

    def install(self, got: tuple[dict[str, int], dict[str, list[int]]] | None, stop: int) -> None:
        """End settling aside (the caller holds the lock): take the registry of rows
        ``0 … stop`` :func:`registered` made, unless rows were registered meanwhile (a writer
        that could not wait): then the registry already holds at least as much."""
        if got is not None and not self.upto and not self.rows:
            self.rows, self.duplicates = got
            self.upto = stop
            self._parents = None
        event, self.settling, self.settler, self.searched = self.settling, None, None, {}
        self.awaited = False
        if event is not None:
            event.set()

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


def registered(ids: list[str | None], stop: int) -> tuple[dict[str, int], dict[str, list[int]]]:
    """``(rows, duplicates)`` of an empty registry after ``add(ids[:stop], 0)``, the same dicts
    (in the same order), made in steps of :data:`STEP` rows: from the last rows back, so the
    first occurrence of an id is the one kept, as ``add`` keeps it."""
    rows: dict[str | None, int] = {}
    nones = 0
    for stop_at in range(stop, 0, -STEP):
        start = max(0, stop_at - STEP)
        part = ids[start:stop_at]
        nones += part.count(None)
        rows.update(zip(reversed(part), range(stop_at - 1, start - 1, -1), strict=True))
    rows.pop(None, None)
    if len(rows) == stop - nones:
        return cast("dict[str, int]", rows), {}
    first: dict[str, int] = {}  # duplicates somewhere: the careful way, as add takes it
    duplicates: dict[str, list[int]] = {}
    for row, cid in enumerate(islice(ids, stop)):
        if cid is not None:
            at = first.setdefault(cid, row)
            if at != row:
                duplicates.setdefault(cid, [at]).append(row)
    return first, duplicates


class SettlingIdRows(Mapping[str, int]):
    """``RunIndex.id_rows`` while the registry is settled aside and every row is owed: an id's
    first row is its first place in the id column's first ``wanted`` rows (searched at C speed,
    remembered in ``searched``); a walk over every id, or many ids at once, waits for the
    settled dict (``settle`` returns it)."""

    def __init__(
        self,
        ids: list[str | None],
        wanted: int,
        searched: dict[str, int],
        settle: Callable[[], dict[str, int]],
    ) -> None:
        self._ids = ids
        self._wanted = wanted
        self._searched = searched
        self._settle = settle

    def _row(self, key: str) -> int | None:
        known = self._searched.get(key)
        if known is not None and known >= 0:
            return known if known < self._wanted else None
        if known is not None and -known - 1 >= self._wanted:
            return None
        try:
            row: int | None = self._ids.index(key, 0, self._wanted)
        except ValueError:
            row = None
        # A first row stays the first as rows are added; "in none of the first n" holds for n.
        self._searched[key] = -self._wanted - 1 if row is None else row
        return row

    def __getitem__(self, key: str) -> int:
        row = self._row(key) if isinstance(key, str) else None
        if row is None:
            raise KeyError(key)
        return row

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._row(key) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def _keys(self) -> list[str]:
        """The settled registry's ids whose first row is one this view answers for: a walk
        must list only keys ``self[key]`` answers (ids of rows a follower appended since the
        view was made are in the settled dict, not in the view)."""
        wanted = self._wanted
        items = list(self._settle().items())  # one copy at C speed: a follower may add to it
        return [cid for cid, row in items if row < wanted]

    def get_many(self, keys: list[str]) -> list[int | None]:
        """``get`` of each of ``keys``: a few searched, more from the settled dict."""
        if len(keys) <= FEW:
            return list(map(self._row, keys))
        return list(map(self._settle().get, keys))


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
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def _keys(self) -> list[str]:
        """The settled registry's ids this view answers for: not a parent id that was in no
        row when it was made (``self[key]`` says KeyError) and came in a follower's row since."""
        first, looked_for = self._first, self._looked_for
        keys = list(self._settle())  # one copy at C speed: a follower may add to it
        return [cid for cid in keys if cid in first or cid not in looked_for]

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
    if isinstance(id_rows, OwedIdRows | SettlingIdRows):
        return id_rows.get_many(keys)
    return list(map(id_rows.get, keys))
