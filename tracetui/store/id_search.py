"""The ids of a run that contain a text, found at C speed (for :func:`tracetui.store.ids.resolve`).

``g`` (go to id) with a part of an id looked at every id of the run, one Python step each
(neutralise, test, remember): ~0.2 s on the UI thread at a million ids, for a part matching a
few of them. Here the run's ids are joined once into one text, one id a line, in their plain
form (:func:`tracetui.store.ids_table.plain`, which never has a newline), and each search is
``str.find`` over it: the Python work is per id found, none per id passed over. The joined
text is kept for the last index searched (~10 MB at a million ids) and made again when rows
were added.
"""

from __future__ import annotations

import threading
import weakref
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import add
from typing import TypeVar

from tracetui.store.ids_table import plain

_PRINTABLE = bytes(range(0x20, 0x7F))
SPARSE = 2_000
"""Above this many places of the query, ids are tested one by one at C speed instead."""
STEP = 1 << 15
"""Ids one C call goes over at most: a thread searching a million of them lets the UI thread in
between (one call over them all held the interpreter ~0.1 s)."""
T = TypeVar("T")
X = TypeVar("X")


def steps(items: list[X]) -> list[list[X]]:
    """``items`` in slices of :data:`STEP`."""
    return [items[lo : lo + STEP] for lo in range(0, len(items), STEP)]


def let_go(items: list[X]) -> None:
    """Empty ``items`` a :data:`STEP` at a time: a million tuples freed at once held the
    interpreter ~0.1 s."""
    while items:
        del items[-STEP:]


@dataclass(frozen=True)
class Column:
    """The id column's first ``rows`` rows, ready to search."""

    rows: int
    ids: list[str]
    """Each row's id that is not empty, in row order."""
    texts: list[str]
    """The plain form of each of ``ids`` (``ids`` itself when every one is plain already)."""
    joined: str
    """``texts`` one a line."""
    shifts: list[int]
    """For the ``j``-th row without an id (None or ""), that row less ``j``: ``ids[k]`` is row
    ``k`` plus the number of shifts up to ``k``."""

    def row_of(self, k: int) -> int:
        """The row of ``ids[k]``."""
        return k + bisect_right(self.shifts, k)

    def found(self, query: str, owner: T) -> list[tuple[T, str, int, str]]:
        """``(owner, id, first row, plain form)`` of every distinct id whose plain form contains
        ``query`` (not empty), in the order of their first rows."""
        if "\n" in query:
            return []  # no plain form has a newline
        dense = self.joined.count(query) > SPARSE
        ks = self._dense(query) if dense else self._sparse(query)
        shifts, ids, texts = self.shifts, self.ids, self.texts
        found: list[tuple[T, str, int, str]] = []
        for part in steps(ks):
            rows = list(map(add, part, map(bisect_right, repeat(shifts), part))) if shifts else part
            found += zip(
                repeat(owner), map(ids.__getitem__, part), rows, map(texts.__getitem__, part)
            )
        return found

    def _sparse(self, query: str) -> list[int]:
        """The first place (in ``ids``) of each distinct id found: ``str.find`` hit by hit."""
        joined, ids, places, seen = self.joined, self.ids, [], set()
        k = last = 0
        at = joined.find(query)
        while at >= 0:
            k += joined.count("\n", last, at)
            end = joined.find("\n", at)
            if end < 0:
                end = len(joined)
            if ids[k] not in seen:
                seen.add(ids[k])
                places.append(k)
            last = end
            at = joined.find(query, end)
        return places

    def _dense(self, query: str) -> list[int]:
        """:meth:`_sparse` for many hits: one test per id at C speed, none in Python."""
        texts, ids = self.texts, self.ids
        places: list[int] = []
        for lo in range(0, len(texts), STEP):
            flags = map(str.__contains__, texts[lo : lo + STEP], repeat(query))
            places += compress(range(lo, lo + STEP), flags)
        distinct: dict[str, None] = {}
        for part in steps(places):
            distinct.update(dict.fromkeys(map(ids.__getitem__, part)))
        if len(distinct) == len(places):
            return places  # no id twice
        seen: set[str] = set()
        first = []
        for k in places:  # some id twice: its first place only
            if ids[k] not in seen:
                seen.add(ids[k])
                first.append(k)
        return first

    def has_whole(self, query: str) -> bool:
        """Whether some id's plain form is ``query`` (without a newline)."""
        joined = self.joined
        return (
            joined == query
            or joined.startswith(query + "\n")
            or joined.endswith("\n" + query)
            or f"\n{query}\n" in joined
        )


def column(col: Sequence[str | None]) -> Column:
    """The :class:`Column` of the id column ``col``."""
    rows = len(col)
    empty_rows = sorted(_positions(col, None) + _positions(col, ""))
    ids: list[str] = list(filter(None, col)) if empty_rows else list(col)  # type: ignore[arg-type]
    joined = "\n".join(ids)
    clean = joined.isascii() and len(joined.encode("ascii").translate(None, _PRINTABLE)) == max(
        0, len(ids) - 1
    )  # only the newlines between ids are left: every id is plain
    texts = ids if clean else [plain(cid) for cid in ids]
    if not clean:
        joined = "\n".join(texts)
    shifts = [row - j for j, row in enumerate(empty_rows)]
    return Column(rows, ids, texts, joined, shifts)


def _positions(col: Sequence[str | None], value: str | None) -> list[int]:
    """Every row of ``col`` equal to ``value`` (``list.index`` at C speed between them)."""
    found: list[int] = []
    if not isinstance(col, list):
        col = list(col)
    at = 0
    while True:
        try:
            at = col.index(value, at)
        except ValueError:
            return found
        found.append(at)
        at += 1


_last: list[tuple[weakref.ref[object], Column]] = []
_lock = threading.Lock()


def column_of(owner: object, ids: Sequence[str | None], rows: int) -> Column:
    """:func:`column` of the first ``rows`` of ``owner``'s id column ``ids``, kept for the last
    owner asked (the same owner with as many rows gets it again at no cost)."""
    with _lock:
        if _last and _last[0][0]() is owner and _last[0][1].rows == rows:
            return _last[0][1]
    made = column(ids[:rows])
    with _lock:
        _last[:] = [(weakref.ref(owner), made)]
    return made
