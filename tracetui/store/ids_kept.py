"""The viewer's id table (:class:`tracetui.store.ids_table.IdTable`) of a big run: kept
beside the run's persistent index, so a warm open of a million ids does not sort them again
(~1 s on the indexing thread), and asking the index's id registry which ids are its rows.

Kept as ``<run key>.ids`` (:func:`tracetui.store.cache_results.keep_blob`): a JSON line of the
table's fields, then the row of each sorted key's id, then its sorted keys one a line (a key is
neutralised text: never a newline); the rows and their checks: :mod:`tracetui.store.ids_rows`.
A warm open's table asks those rows whether an id is one of the run's, until the index's id
registry is settled.
Given back for the exact files the index was built from (the same notes and the same code), or
for a run grown since (a live agent's: lines appended, the base rotated) whose index starts
with exactly the rows the table was made from, as the record kept in its fields says
(:mod:`tracetui.store.ids_prefix`); the new rows are then inserted as a follower's are. Read as
hostile input: every field's type, the counts, a CRC of the stored rows and keys and one of
the id column they were made from, the keys' order, a sample of the rows' ids and how the
fields agree with each other (:func:`agrees`) are checked, and anything off means the table is
built again. :func:`tracetui.store.ids.table_for` is the one caller.
"""

from __future__ import annotations

import threading
import weakref
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from operator import le
from typing import Any, cast

import orjson

from tracetui.store import cache, cache_results, ids_prefix, ids_rows
from tracetui.store.id_registry import STEP
from tracetui.store.ids_table import IdTable, _common_prefix, _split, plain
from tracetui.store.index import RunIndex

KEEP_FROM = 20_000
"""Distinct ids from which a table is worth keeping (fewer are built in a few milliseconds)."""
SUFFIX = "ids"
REKEEP = 20_000
"""Rows a run has grown by since its kept table from which the grown table is kept instead
(the next open then inserts fewer rows)."""
BIG_EXTEND = 4096
"""New ids from which a table asking its kept rows gathers a set of its ids instead (a few are
looked up one by one, ~2 µs each; a set of a million ids is made in ~0.12 s)."""


@dataclass(frozen=True, slots=True)
class KeptTable:
    """What a table needs to answer for the rows it was built from."""

    rows: int
    keys: list[str]
    low: str | None
    high: str | None
    shared: int
    ending: str | None
    tail: int
    others: int
    """How many ids are not recorder ids."""
    rows_of: array[int] | None = None
    """The row of each key's id (:mod:`tracetui.store.ids_rows`), when read from the cache."""
    column_crc: object = None
    """The CRC of the id column the kept file says it was made from (checked by :func:`recall`)."""


def keep(index: RunIndex, kept: KeptTable, first: dict[str, int] | None = None) -> bool:
    """Keep ``kept`` (rows ``0 … kept.rows`` of ``index``) for the files ``index`` was built
    from, with the record of those rows (:func:`ids_prefix.record`) and the row of each key's
    id; False when not kept. ``first``: the index's registry, settled past row ``kept.rows`` (else
    the rows are found from the id column: :func:`ids_rows.rows_from_column`)."""
    prefix = ids_prefix.record(index, kept.rows)
    if prefix is None and cache.state_of(index) is None:
        return False  # nothing would ever take it back
    column = index.ids
    crc = ids_rows.column_crc(column, kept.rows)
    if crc is None or kept.rows >= ids_rows.MAX_ROWS:
        return False
    keyer = _keyer(kept.shared, kept.tail)
    if first is None:
        rows_of = ids_rows.rows_from_column(kept.keys, column, kept.rows, keyer.keys_of, plain)
    else:
        rows_of = ids_rows.rows_of_keys(kept.keys, first, kept.rows, keyer.keys_of, plain)
    if rows_of is None:
        return False
    fields = {
        "rows": kept.rows,
        "count": len(kept.keys),
        "low": kept.low,
        "high": kept.high,
        "shared": kept.shared,
        "ending": kept.ending,
        "tail": kept.tail,
        "others": kept.others,
        "fingerprint": cache.fingerprint(),
        "prefix": prefix,
        "column": crc,
    }
    blob = ids_rows.encode(fields, kept.keys, rows_of)
    if blob is None:
        return False
    return cache_results.keep_blob(index, SUFFIX, blob, any_state=prefix is not None)


def _keyer(shared: int, tail: int) -> IdTable:
    """A table keying ids with the prefix and ending ``shared`` and ``tail`` long (its
    :meth:`IdTable.key` and :meth:`IdTable.keys_of`), as a table with those fields does."""
    probe = IdTable()
    probe._shared, probe._tail = shared, tail
    return probe


def recall(index: RunIndex, n: int) -> KeptTable | None:
    """The table kept for the run of ``index``, of its rows ``0 … rows`` (``rows`` at most
    ``n``, at least half of it), when it is big enough to be kept, its fields agree and its
    keys are in order; else None. The caller checks its count of distinct ids."""
    kept = _read(index, n)
    if kept is None or len(kept.keys) < KEEP_FROM or not agrees(kept) or kept.rows_of is None:
        return None
    keyer = _keyer(kept.shared, kept.tail)
    column, crc = index.ids, kept.column_crc
    ok = ids_rows.checked(column, kept.rows, kept.keys, kept.rows_of, crc, keyer.keys_of, plain)
    return kept if ok else None


def _read(index: RunIndex, n: int) -> KeptTable | None:
    """:func:`recall` but for the table's size and fields' agreement."""
    got = cache_results.recall_blob_of_run(index, SUFFIX)
    if got is None:
        return None
    exact, blob = got
    cut = blob.find(b"\n")
    try:
        head = orjson.loads(blob[:cut]) if cut > 0 else None
    except ValueError:  # orjson's error
        return None
    if not isinstance(head, dict) or not _fields_ok(head):
        return None
    rows = head["rows"]
    if not (exact and rows == n):  # not the same files: the same first rows, then?
        if 2 * rows < n or head.get("fingerprint") != cache.fingerprint():
            return None  # grown more than twice over: built again (and kept again)
        if ids_prefix.covered(index, head.get("prefix"), n) != rows:
            return None
    parts = ids_rows.split_body(head, blob[cut + 1 :])
    if parts is None:
        return None
    rows_of, body = parts
    try:
        text = body.decode()
    except ValueError:  # UnicodeDecodeError
        return None
    keys = text.split("\n") if text else []
    if head["count"] != len(keys):
        return None
    if not all(map(le, keys, islice(keys, 1, None))):
        return None
    return KeptTable(
        rows,
        keys,
        head["low"],
        head["high"],
        head["shared"],
        head["ending"],
        head["tail"],
        head["others"],
        rows_of,
        head.get("column"),
    )


def _fields_ok(head: dict[str, Any]) -> bool:
    counts = ("rows", "count", "shared", "tail", "others")
    if not all(type(head.get(k)) is int and head[k] >= 0 for k in counts):
        return False
    texts = ("low", "high", "ending")
    return all(k in head and (head[k] is None or type(head[k]) is str) for k in texts)


class RegistryTable(IdTable):
    """A big run's table, for the first ``rows`` of an index: whether an id is one of its rows
    is asked of the index's id registry (an id's first row is below ``rows``) instead of a
    million-entry dict of its own (~0.3 s and ~40 MB at a million ids); until the registry is
    settled, of the kept rows of its keys (``by_rows``: :class:`ids_rows.KeptRows`). Restored
    from the cache, the kinds of its ids (needed only when a new id moves the shared prefix or
    ending) are worked out again from the id column only then. New rows are taken in as a
    built table takes them."""

    def __init__(
        self,
        column: list[str | None],
        first: dict[str, int],
        kept: KeptTable,
        members: set[str | None] | None = None,
        *,
        by_rows: bool = False,
    ) -> None:
        self._column = column
        """The index's id column (append-only; its first ``rows`` are final)."""
        self._first = first
        """The index's registry: id → first row (settled past every row taken in)."""
        self._members = members
        """Until the registry is :meth:`attach`-ed: the ids of every row taken in (a set is
        made in ~0.12 s at a million ids, the registry's dict in ~0.3 s: the viewer shows a
        warm run's list with this, its indexing thread settling the registry after)."""
        self._kept_keys: list[str] | None = None
        """The kept keys' list while ``_keys`` is it: copied before a key is added, so the
        kept rows stay those of its places (a reader may still ask them, on another thread)."""
        self._by_rows: ids_rows.KeptRows | None = None
        """Until the registry is :meth:`attach`-ed (when ``by_rows``): the kept keys' rows
        answer whether an id is one of the rows taken in (no set of a million ids to make)."""
        if by_rows and kept.rows_of is not None:
            keyer = _keyer(kept.shared, kept.tail)
            self._by_rows = ids_rows.KeptRows(column, kept.rows, kept.keys, kept.rows_of, keyer.key)
            self._kept_keys = kept.keys
        self._owed_rows = 0
        """Rows whose ids' kinds are not in ``_stamp_keys`` / ``_others`` yet."""
        self._owed_others = 0
        super().__init__()
        self.rows = kept.rows
        self._keys = kept.keys
        self._low, self._high, self._ending = kept.low, kept.high, kept.ending
        self._shared, self._tail = kept.shared, kept.tail
        self._owed_rows, self._owed_others = kept.rows, kept.others

    @property
    def unattached(self) -> bool:
        """Still asking its kept rows or its set of ids, not the registry (see :meth:`attach`)."""
        return self._members is not None or self._by_rows is not None

    def attach(self, first: dict[str, int]) -> None:
        """Ask ``first``, the index's registry settled past every row taken in, from now on."""
        self._first = first
        # (after: a reader on another thread sees one or the other, each whole)
        self._members = None
        self._by_rows = None

    def extend(self, ids: Sequence[str | None]) -> None:
        before = self.rows
        raw = dict.fromkeys(ids)
        raw.pop(None, None)
        raw.pop("", None)
        by = self._by_rows
        if by is not None and len(raw) > BIG_EXTEND:  # many: a set of the ids is quicker
            self._members = members_of(self._column, before)
            self._by_rows = by = None
        members, first = self._members, self._first
        if by is not None:
            fresh = [cid for cid in cast("dict[str, None]", raw) if not by.has(cid)]
            by.extra.update(fresh)
        elif members is not None:
            fresh = [cid for cid in cast("dict[str, None]", raw) if cid not in members]
            members.update(fresh)
        else:
            fresh = [
                cid for cid in cast("dict[str, None]", raw) if first.get(cid, before) >= before
            ]
        self._take(fresh)
        self.rows = before + len(ids)

    def _take(self, fresh: list[str]) -> None:
        if fresh and self._keys is self._kept_keys:
            self._keys = list(self._keys)  # the kept keys stay as their rows are
            self._kept_keys = None
        super()._take(fresh)

    def _has(self, cid: str) -> bool:
        by = self._by_rows
        if by is not None:
            return by.has(cid)
        members = self._members
        if members is not None:
            return cid in members
        return self._first.get(cid, self.rows) < self.rows

    def _others_count(self) -> int:
        return len(self._others) + self._owed_others

    def _parts(self) -> tuple[list[str], list[str]]:
        if self._owed_rows:
            known = dict.fromkeys(self._column[: self._owed_rows])
            known.pop(None, None)
            known.pop("", None)
            stamp_keys, others = _split(cast("list[str]", list(known)))
            self._stamp_keys[:0] = stamp_keys
            self._others[:0] = others
            self._owed_rows = self._owed_others = 0
        return self._stamp_keys, self._others


def kept_of(table: IdTable, *, copy: bool = False) -> KeptTable:
    """What :func:`keep` keeps of ``table`` (``copy``: its keys copied, for a keep outside
    the table's lock)."""
    return KeptTable(
        table.rows,
        list(table._keys) if copy else table._keys,
        table._low,
        table._high,
        table._shared,
        table._ending,
        table._tail,
        table._others_count(),
    )


def agrees(kept: KeptTable) -> bool:
    """Whether the fields of a kept table agree with each other as a built table's do."""
    if kept.others == 0:
        none = kept.low is None and kept.high is None and kept.ending is None
        return none and kept.shared == kept.tail == 0
    low, high, ending = kept.low, kept.high, kept.ending
    if low is None or high is None or ending is None or kept.others > len(kept.keys):
        return False
    return (
        low <= high
        and kept.shared == _common_prefix(low, high)
        and low.endswith(ending)
        and high.endswith(ending)
        and kept.tail == (len(ending) if kept.others > 1 else 0)
    )


def _distinct(first: dict[str, int]) -> int:
    """Distinct ids a table of the rows ``first`` registers holds (it leaves out ``""``)."""
    return len(first) - ("" in first)


def recalled(
    index: RunIndex, first: dict[str, int], n: int, *, later: bool = False
) -> IdTable | None:
    """The table of rows ``0 … n`` from the one kept with the run's cached index, when it is
    there and checks out (:func:`recall`; a grown run's rows past it inserted); ``first`` is
    the index's registry, settled past row ``n``. ``later``: see :func:`built`."""
    if _distinct(first) < KEEP_FROM:
        return None
    kept = recall(index, n)
    if kept is None or _distinct_before(index.ids, first, kept.rows) != len(kept.keys):
        return None
    return _grown(index, RegistryTable(index.ids, first, kept), n, later)


def recalled_unsettled(index: RunIndex, n: int) -> IdTable | None:
    """:func:`recalled` for an index whose registry is still owed, without settling it: the
    kept rows of its keys answer for it instead (:attr:`RegistryTable._by_rows`); a table kept
    again meanwhile (a run grown by many rows) is kept once the registry is settled
    (:func:`keep_owed`)."""
    kept = recall(index, n)
    if kept is None:
        return None
    return _grown(index, RegistryTable(index.ids, {}, kept, by_rows=True), n, True)


def _distinct_before(column: list[str | None], first: dict[str, int], rows: int) -> int:
    """Distinct ids of rows ``0 … rows`` by the registry ``first`` (of rows past them too)."""
    later = {cid for cid in column[rows:] if cid and first.get(cid, -1) >= rows}
    return _distinct(first) - len(later)


def _grown(index: RunIndex, table: RegistryTable, n: int, later: bool) -> RegistryTable:
    """``table`` (recalled) brought up to row ``n``: a grown run's new rows inserted as a
    follower's are; kept again when they are many (``later``: see :func:`built`)."""
    rows = table.rows
    if rows < n:
        table.extend(index.ids[rows:n])
        if n - rows >= REKEEP:
            _keep_or_owe(index, table, later)
    return table


_owed: weakref.WeakSet[RunIndex] = weakref.WeakSet()
"""Indexes whose table is to be kept once their list is shown (:func:`keep_owed`)."""
_owed_lock = threading.Lock()


def _keep_or_owe(
    index: RunIndex, table: IdTable, later: bool, first: dict[str, int] | None = None
) -> None:
    if later:
        with _owed_lock:
            _owed.add(index)
    else:
        keep(index, kept_of(table), first)


def owes_keep(index: RunIndex) -> bool:
    """Whether the table of ``index`` is owed a keep (:func:`keep_owed`); asking clears it."""
    with _owed_lock:
        owed = index in _owed
        _owed.discard(index)
    return owed


def members_of(column: list[str | None], n: int) -> set[str | None]:
    """The ids of rows ``0 … n``, gathered in steps of ``STEP`` rows (each a C-speed call:
    another thread waiting for the interpreter gets it between two)."""
    members: set[str | None] = set()
    for start in range(0, n, STEP):
        members.update(column[start : min(n, start + STEP)])
    return members


def from_registry(column: list[str | None], first: dict[str, int], n: int) -> IdTable | None:
    """The table of rows ``0 … n`` made from the registry's ids rather than the id column
    (the same set: a table depends on which ids there are, not their order or repeats), when
    the registry holds exactly those rows' ids; None when it holds fewer than
    :data:`KEEP_FROM` (a small registry may still be swapped for another dict) or ids of
    rows past ``n``."""
    if _distinct(first) < KEEP_FROM or max(first.values()) >= n:
        return None
    table = RegistryTable(column, first, KeptTable(0, [], None, None, 0, None, 0, 0))
    fresh = list(first)
    if "" in first:
        fresh.remove("")
    table._take(fresh)
    table.rows = n
    return table


def built(index: RunIndex, first: dict[str, int], n: int, *, later: bool = False) -> IdTable:
    """The table of rows ``0 … n`` built afresh; a big one is kept for the next open (with
    ``later``, once the caller has shown it: finding the rows of its keys costs ~0.3 s at a
    million ids; see :func:`owes_keep`)."""
    table = from_registry(index.ids, first, n)
    if table is None:
        return IdTable(index.ids[:n])
    _keep_or_owe(index, table, later, first)
    return table
