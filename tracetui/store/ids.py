"""One rule for a displayed id, and one resolver for every ``--id``.

An id is shown as the shortest abbreviation that is unique in its run (at least ``MIN_SHOWN``
characters, like git), taken from the part of the id that tells spans apart:

- the recorder's ids (``20261129T231150.848677Z-1b5a45f2``) start with a timestamp that many
  spans share, so their *key* is the random suffix after the last ``-``;
- other ids (imported ``toolu_01…``, generated ``c0000008``) drop the prefix and the ending
  every such id of the run shares, keeping at least ``MIN_SHOWN`` characters by taking back
  characters before the part that differs (``c0000008`` → ``0008``, ``c0004-long-id`` →
  ``0004`` when every id ends ``-long-id``);
- when two different ids end up with the same key, both are shown whole.

Everything is computed on the neutralised text (:func:`tracetui.model.text.neutralize_line`),
so a displayed id never carries a control character and what the user sees is what they type.

Speed: a run can have a million ids. The keys are sorted once; an id's abbreviation is found by
bisecting to its key and comparing with its two neighbours, so showing a screenful costs a few
``log n`` look-ups. New rows are merged in (Timsort on a sorted list plus a short tail is
linear); only a change of the shared prefix rebuilds (the table itself:
:mod:`tracetui.store.ids_table`). :func:`table_for` caches one table per index and brings it up
to date from the committed rows; a big run's table is kept beside its cached index and
restored on a warm open instead of sorted again (:mod:`tracetui.store.ids_kept`), also when the
run has grown since and its index starts with the same rows (:mod:`tracetui.store.ids_prefix`).
"""

from __future__ import annotations

import heapq
import threading
import weakref
from collections.abc import Callable, Sequence
from itertools import compress, repeat
from operator import itemgetter

from tracetui.store import gc_pause, id_search, ids_kept
from tracetui.store.ids_table import MIN_SHOWN as MIN_SHOWN
from tracetui.store.ids_table import IdTable as IdTable
from tracetui.store.ids_table import _common_prefix as _common_prefix
from tracetui.store.ids_table import _stamp_suffix as _stamp_suffix
from tracetui.store.ids_table import plain as plain
from tracetui.store.index import RunIndex

CANDIDATES = 5
"""Candidates an ambiguity message lists."""


class IdError(Exception):
    """An ``--id`` that names no span, or several: the CLI turns it into exit 2."""


class IdNotFound(IdError):
    """An ``--id`` that names no span at all (as opposed to several)."""


# ------------------------------------------------------------------ one table per index
_tables: weakref.WeakKeyDictionary[RunIndex, IdTable] = weakref.WeakKeyDictionary()
_making: weakref.WeakKeyDictionary[RunIndex, threading.Lock] = weakref.WeakKeyDictionary()
"""One lock per index, held while its table is made or brought up to date: the viewer's
indexing thread making a million-id table does not hold up the ID cells of another index (the
peek the UI thread shows meanwhile)."""
_tables_lock = threading.Lock()
"""Guards the two dicts above (held only to read or set them)."""


def table_for(index: RunIndex, *, settle: bool = True) -> IdTable:
    """The id table of ``index``, up to date with its committed rows (cached per index).

    Reads ``index.ids[:len(index)]`` (a copy of committed rows, safe while a follower appends).
    Making it settles the index's id registry too (it is owed after a bulk build), so the
    viewer asks for it on its indexing thread: neither is made on the UI thread. With
    ``settle=False`` a big run's table kept with its cache entry is taken back without
    settling the registry (``ui/messages.post_ready`` settles it after the list is shown, then
    :func:`attach_registry`).
    """
    with _tables_lock:
        table = _tables.get(index)
        if table is not None and table.rows == len(index):
            return table  # the list's every ID cell asks: current, nothing to do
        making = _making.setdefault(index, threading.Lock())
    with making:
        with _tables_lock:
            table = _tables.get(index)
        n = len(index)
        if table is None or table.rows > n:
            table = _made(index, n, settle)
            with _tables_lock:
                _tables[index] = table
        elif table.rows < n:
            if isinstance(table, ids_kept.RegistryTable) and not (
                table.unattached and index.ids_owed
            ):
                table.attach(index.settle_ids())  # it reads the registry for every row it holds
            # Still with its set of ids while the registry is owed (made aside, say): the set
            # takes the new rows, and nobody waits here for the registry (a follower's rows
            # arriving while it is made, then the UI thread's ID cells behind this lock).
            table.extend(index.ids[table.rows : n])
        return table


def _made(index: RunIndex, n: int, settle: bool) -> IdTable:
    if not settle and index.ids_owed:
        table = ids_kept.recalled_unsettled(index, n)
        if table is not None:
            return table
    first = index.settle_ids()  # past row n (rows committed since len() too)
    later = not settle  # the viewer: a keep waits until the list is shown (keep_owed)
    return ids_kept.recalled(index, first, n, later=later) or ids_kept.built(
        index, first, n, later=later
    )


def keep_owed(index: RunIndex) -> None:
    """Keep the table of ``index`` with its cache entry when its making left that for later
    (``table_for(settle=False)`` of a big run made afresh, or grown by many rows): the viewer
    asks after its list is shown. The table's fields and keys are copied under its lock, and
    the rows of its keys found from the id column outside it (its first rows are final), so
    nobody waits for this (0.5 s at a million sequential ids, 1.5 s at a million random ones,
    in steps: the UI thread gets the interpreter between them)."""
    if not ids_kept.owes_keep(index):
        return
    with _tables_lock:
        making = _making.setdefault(index, threading.Lock())
    with making:
        with _tables_lock:
            table = _tables.get(index)
        kept = None if table is None else ids_kept.kept_of(table, copy=True)
    if kept is not None:
        # From the column in steps, not a copy of the registry (one C call of ~0.15 s at a
        # million ids: the UI thread would wait that long for the interpreter).
        ids_kept.keep(index, kept)


def attach_registry(index: RunIndex) -> None:
    """Hand the table of ``index`` its id registry, settled (after ``index.settling_ids_aside``):
    the set of ids it asked until then goes (~32 MB at a million ids)."""
    with _tables_lock:
        making = _making.setdefault(index, threading.Lock())
    with making:
        with _tables_lock:
            table = _tables.get(index)
        if isinstance(table, ids_kept.RegistryTable) and not index.ids_owed:
            table.attach(index.settle_ids())


def shown_id(index: RunIndex, cid: str | None) -> str:
    """The displayed form of ``cid`` in the run of ``index``."""
    return table_for(index).shown(cid)


def cell_id(index: RunIndex, cid: str | None, width: int = 8) -> str:
    """The displayed form of ``cid`` clipped to ``width`` columns (the list's ID cell)."""
    return table_for(index).cell(cid, width)


def pending_cell_id(index: RunIndex, cid: str | None, width: int = 8) -> str:
    """The ID cell of a call not yet a row (running): the form it will have as a row."""
    return table_for(index).cell_new(cid, width)


# ------------------------------------------------------------------ resolving --id
def _candidate(table: IdTable, cid: str) -> str:
    """``0008 (c0000008)`` in an ambiguity message; just the id when it is shown whole."""
    shown, whole = table.shown(cid), plain(cid)
    return whole if shown == whole else f"{shown} ({whole})"


def resolve(indexes: Sequence[RunIndex], ident: str) -> tuple[RunIndex, int]:
    """``(index, row)`` of the span ``ident`` names, across ``indexes``.

    Tried in order, the first stage with any hit deciding: the whole id; a displayed form (a
    clipped one may keep its ``…``); a unique prefix of the id; a unique substring. Several hits
    at a stage raise :class:`IdError` listing up to ``CANDIDATES`` of them (displayed form and
    whole id); none at all raises ``no span with id '…'``.

    Speed: the ids containing the query are found with ``str.find`` over the run's ids joined
    (:mod:`tracetui.store.id_search`); a stage is looked at only when the ones before it found
    nothing; the displayed forms are worked out only for ids that may be shown as the query
    (:meth:`IdTable.shown_as_key`), and of many hits only the few listed (:func:`_listed`).
    """
    ident = ident.strip()
    if not ident:
        raise IdError("empty id")
    quoted = repr(plain(ident))
    exact = [(ix, ix.id_rows[ident]) for ix in indexes if ident in ix.id_rows]
    if len(exact) > 1:
        names = ", ".join(plain(ix.run.name) for ix, _ in exact)
        raise IdError(f"id {quoted} is in several runs: {names}")
    if exact:
        return exact[0]
    query = ident.strip("…") or ident
    # Every distinct id of every run whose plain form contains the query, in row order.
    # A million hits are a million tuples, none of them in a cycle: no collector's pass.
    with gc_pause.paused():
        return _resolve_part(indexes, query, quoted)


def _resolve_part(indexes: Sequence[RunIndex], query: str, quoted: str) -> tuple[RunIndex, int]:
    """:func:`resolve` of ``query``, a part of an id (none of the runs has it whole)."""
    found: list[_Hit] = []
    columns: dict[int, id_search.Column] = {}
    for ix in indexes:
        column = id_search.column_of(ix, ix.ids, len(ix))
        columns[id(ix)] = column
        found.extend(column.found(query, ix))
    tables = {id(ix): table_for(ix) for ix in indexes}
    whole = any(c.has_whole(query) for c in columns.values())
    stages: tuple[Callable[[], list[_Hit]], ...] = (
        lambda: [f for f in found if f[3] == query] if whole else [],
        lambda: _shown_as(found, query, tables, columns),
        lambda: _prefixed(found, query),
        lambda: found,
    )
    try:
        for stage in stages:
            hits = stage()
            if len(hits) == 1:
                return hits[0][0], hits[0][2]
            if hits:
                listed = _listed(hits, tables, columns)
                more = f" (and {len(hits) - CANDIDATES} more)" if len(hits) > CANDIDATES else ""
                raise IdError(f"id {quoted} is ambiguous: {', '.join(listed)}{more}")
        raise IdNotFound(f"no span with id {quoted}")
    finally:
        hits = []
        id_search.let_go(found)


_Hit = tuple[RunIndex, str, int, str]
"""``(index, id, its first row, its plain form)``."""
_TEXT = itemgetter(3)


def _prefixed(found: list[_Hit], query: str) -> list[_Hit]:
    """The hits whose plain form starts with ``query``."""
    hits: list[_Hit] = []
    for part in id_search.steps(found):
        hits += compress(part, map(str.startswith, map(_TEXT, part), repeat(query)))
    return hits


def _shown_as(
    found: list[_Hit], query: str, tables: dict[int, IdTable], columns: dict[int, id_search.Column]
) -> list[_Hit]:
    """The hits shown as ``query`` (a clipped form's ``…`` aside), none of them whole ``query``."""
    maybe: dict[int, str | None] = {}  # per index: a key every such id contains; None: none is
    for key, table in tables.items():
        if "…" in columns[key].joined:
            maybe[key] = ""  # an id with a "…" may be shown as the query with one: ask each
        else:
            maybe[key] = table.shown_as_key(query)
    if all(part is None for part in maybe.values()):
        return []
    return [
        f
        for f in found
        if (part := maybe[id(f[0])]) is not None
        and part in f[3]
        and tables[id(f[0])].shown(f[1]).strip("…") == query
    ]


def _listed(
    hits: list[_Hit], tables: dict[int, IdTable], columns: dict[int, id_search.Column]
) -> list[str]:
    """The first :data:`CANDIDATES` of the hits' candidates (:func:`_candidate`) in sorted order.

    Of a run whose ids' keys are distinct and have no space, the candidates sort as the keys
    do (a shown form is its key's start, long enough to tell it from its neighbours; a space
    could sort before the `` (`` after a shorter one): its first few are those of the hits with
    the smallest keys, found at C speed. Others (and a few hits) are listed whole."""
    picked: list[_Hit] = []
    for key, table in tables.items():
        mine = hits if len(tables) == 1 else [f for f in hits if id(f[0]) == key]
        if len(mine) <= 4 * CANDIDATES or " " in columns[key].joined or not table.keys_distinct():
            picked.extend(mine)
            continue
        keys: list[str] = []
        for part in id_search.steps(mine):
            keys += table.keys_of(list(map(_TEXT, part)))
        picked.extend(mine[keys.index(k)] for k in heapq.nsmallest(CANDIDATES, keys))
        id_search.let_go(keys)
    # (an index given twice: its hits are picked twice, as they were found twice)
    listed = sorted(_candidate(tables[id(ix)], cid) for ix, cid, _row, _text in picked)
    return listed[:CANDIDATES]
