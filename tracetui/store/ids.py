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
restored on a warm open instead of sorted again (:mod:`tracetui.store.ids_kept`).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence

from tracetui.store import ids_kept
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
            if isinstance(table, ids_kept.RegistryTable):
                table.attach(index.settle_ids())  # it reads the registry for every row it holds
            table.extend(index.ids[table.rows : n])
        return table


def _made(index: RunIndex, n: int, settle: bool) -> IdTable:
    if not settle and index.ids_owed:
        table = ids_kept.recalled_unsettled(index, n)
        if table is not None:
            return table
    first = index.settle_ids()  # past row n (rows committed since len() too)
    return ids_kept.recalled(index, first, n) or ids_kept.built(index, first, n)


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
    # Every id of every run containing the query: one pass over the committed ids.
    found: list[tuple[RunIndex, str, int]] = []
    for ix in indexes:
        ids = ix.ids[: len(ix)]
        seen: set[str] = set()
        for row, cid in enumerate(ids):
            if cid and cid not in seen and query in plain(cid):
                seen.add(cid)
                found.append((ix, cid, row))
    tables = {id(ix): table_for(ix) for ix in indexes}
    stages = (
        [f for f in found if plain(f[1]) == query],
        [f for f in found if tables[id(f[0])].shown(f[1]).strip("…") == query],
        [f for f in found if plain(f[1]).startswith(query)],
        found,
    )
    for hits in stages:
        if len(hits) == 1:
            return hits[0][0], hits[0][2]
        if hits:
            listed = sorted(_candidate(tables[id(ix)], cid) for ix, cid, _ in hits)
            more = f" (and {len(listed) - CANDIDATES} more)" if len(listed) > CANDIDATES else ""
            raise IdError(f"id {quoted} is ambiguous: {', '.join(listed[:CANDIDATES])}{more}")
    raise IdNotFound(f"no span with id {quoted}")
