"""The rows of a kept id table's keys: for each of its sorted keys, the row of the id it is the
key of, kept with the table (:mod:`tracetui.store.ids_kept`).

With them a table taken back from the cache tells whether an id is one of its rows without a
set of the run's ids (~0.12 s at a million ids, the hashing of each included): the id's key
is bisected to, and the id column is asked whether the row kept for that key holds the id
(:class:`KeptRows`). A wrong row can only make an id look foreign (it is then shown whole),
never make a stranger one of the run; and the rows are checked before use (:func:`checked`).

Stored form, after the table's fields line: the rows, ``4 × count`` bytes of unsigned 32-bit
integers in the machine's byte order (the fields say which), then the keys one a line. The
fields carry a CRC of those bytes (damage, truncation, keys reordered or swapped) and a CRC of
the id column of the table's rows as JSON (:func:`column_crc`): the column the table was made
from, every row's id, so an id changed or added anywhere in those rows (which the count of
distinct ids, the check this replaces, saw only when the count moved) refuses the table.
"""

from __future__ import annotations

import sys
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from itertools import compress, islice
from operator import eq
from typing import Any, cast

import orjson

SAMPLE = 64
"""Every this many keys (and the last), the kept row's id is keyed again and compared."""
STEP = 1 << 15
"""Ids keyed or looked up in one C call when the rows are found (another thread waiting for
the interpreter gets it between two: the viewer's UI thread, as the rows are found after the
list is shown)."""
MAX_ROWS = 1 << 32
"""Rows a kept table may have (its rows are stored as unsigned 32-bit integers)."""
BYTEORDER = sys.byteorder
FORM = 2
"""The stored form's number (a table kept before the rows were kept has none: refused)."""


def column_crc(column: Sequence[str | None], rows: int) -> int | None:
    """CRC-32 of rows ``0 … rows`` of the id column, as the JSON of each :data:`STEP` rows in
    turn (small buffers: one of the whole column, ~10 MB at a million ids, cost more to make
    than the CRC); None when it cannot be written (a lone surrogate) or ``rows`` is past the
    column."""
    if rows > len(column):
        return None
    crc = 0
    try:
        for start in range(0, rows, STEP):
            crc = zlib.crc32(orjson.dumps(list(column[start : min(rows, start + STEP)])), crc)
    except TypeError:  # orjson's JSONEncodeError: a lone surrogate
        return None
    return crc


def first_rows(column: Sequence[str | None], rows: int) -> dict[str | None, int]:
    """Each id of rows ``0 … rows`` (None and ``""`` too) → its first row, at C speed (from the
    last row back, an earlier row's overwriting a later one's; no other thread's dict read)."""
    found: dict[str | None, int] = {}
    for stop in range(rows, 0, -STEP):  # (steps: see STEP)
        start = max(0, stop - STEP)
        found.update(zip(reversed(column[start:stop]), range(stop - 1, start - 1, -1), strict=True))
    return found


def rows_of_keys(
    keys: list[str],
    first: Mapping[Any, int],
    below: int,
    keyer: Callable[[list[str]], list[str]],
    plain: Callable[[str], str],
) -> array[int] | None:
    """The row of each of the sorted ``keys``: the first row of the id whose key it is (by
    ``first``, id → first row, of the ids first seen below row ``below``; None and ``""`` left
    out), ``keyer`` keying plain forms as the table does. None when the ids' keys are not
    exactly ``keys`` or a row is too big. ``first`` may be the index's registry, a follower
    registering rows meanwhile: it is copied in one C call (no other thread runs during it)."""
    copied = dict(first)
    copied.pop(None, None)
    copied.pop("", None)
    known = cast("dict[str, int]", copied)
    ids, rows = list(known), list(known.values())
    if rows and max(rows) >= below:  # a follower's new ids
        mask = list(map(below.__gt__, rows))
        ids, rows = list(compress(ids, mask)), list(compress(rows, mask))
    if len(ids) != len(keys) or (rows and max(rows) >= MAX_ROWS):
        return None
    texts = ids
    if not (all(map(str.isascii, ids)) and all(map(str.isprintable, ids))):
        texts = [plain(c) for c in ids]
    id_keys: list[str] = []
    for start in range(0, len(texts), STEP):  # (steps: see STEP)
        id_keys += keyer(texts[start : start + STEP])
    if len(id_keys) != len(rows):
        return None
    if id_keys == keys:  # already in order (sequential ids): the rows are in order too
        return array("I", rows)
    if id_keys[::-1] == keys:  # (the registry's order may be the rows' backwards)
        return array("I", reversed(rows))
    by_key: dict[str, int] = {}
    for start in range(0, len(rows), STEP):
        by_key.update(zip(id_keys[start : start + STEP], rows[start : start + STEP], strict=True))
    try:
        if len(by_key) == len(keys):
            found = array("I")
            for start in range(0, len(keys), STEP):
                found.extend(map(by_key.__getitem__, keys[start : start + STEP]))
            return found
        # Two ids of one key (both shown whole): each of the key's places takes one's row.
        shared = set(compress(keys, map(eq, keys, islice(keys, 1, None))))
        places: dict[str, list[int]] = {}
        for key, row in zip(id_keys, rows, strict=True):
            if key in shared:
                places.setdefault(key, []).append(row)
        return array("I", (places[k].pop() if k in shared else by_key[k] for k in keys))
    except (KeyError, IndexError):  # a key of no id, or more places than ids
        return None


def rows_from_column(
    keys: list[str],
    column: Sequence[str | None],
    rows: int,
    keyer: Callable[[list[str]], list[str]],
    plain: Callable[[str], str],
) -> array[int] | None:
    """:func:`rows_of_keys` of the ids of rows ``0 … rows`` of ``column``, found from the
    column itself in steps of :data:`STEP` rows: each key's place → the first row whose id
    has that key (the table's ids are those rows' ids, and when no two of them share a key, a
    key tells its id). Only the places of ``keys`` are held throughout, not a dict of the ids'
    first rows beside one of their keys (twice the memory: ~130 MB at a million ids). Keys
    shared by two ids: by the ids' first rows."""
    unset = MAX_ROWS - 1
    if rows >= unset or rows > len(column):
        return None
    if any(map(eq, keys, islice(keys, 1, None))):
        return rows_of_keys(keys, first_rows(column, rows), rows, keyer, plain)
    place: dict[str, int] = {}
    for start in range(0, len(keys), STEP):
        place.update(zip(keys[start : start + STEP], range(start, start + STEP), strict=False))
    found = array("I", [unset]) * len(keys)
    try:
        for stop in range(rows, 0, -STEP):  # from the last rows back: an earlier row overwrites
            start = max(0, stop - STEP)
            part = column[start:stop]
            mask = list(map(bool, part))  # (None and "" are no id)
            ids = cast("list[str]", list(compress(part, mask)))
            if not (all(map(str.isascii, ids)) and all(map(str.isprintable, ids))):
                ids = [plain(c) for c in ids]
            at = list(compress(range(start, stop), mask))
            places = list(map(place.__getitem__, keyer(ids)))
            if len(places) != len(at):
                return None
            for i, row in zip(reversed(places), reversed(at), strict=True):
                found[i] = row
    except KeyError:  # an id of no key
        return None
    return None if unset in found else found


def encode(fields: Mapping[str, object], keys: list[str], rows_of: array[int]) -> bytes | None:
    """The stored form of a table (``fields`` gets ``form``, ``byteorder``, ``payload``)."""
    try:
        body = b"".join([rows_of.tobytes(), "\n".join(keys).encode()])
    except UnicodeEncodeError:  # a lone surrogate: not kept
        return None
    fields = {**fields, "form": FORM, "byteorder": BYTEORDER, "payload": zlib.crc32(body)}
    try:
        head = orjson.dumps(fields)
    except TypeError:
        return None
    return b"".join([head, b"\n", body])


def split_body(fields: Mapping[str, object], body: bytes) -> tuple[array[int], bytes] | None:
    """``(rows, keys' text)`` of a stored body whose fields say it is of this form, of this
    machine's byte order and of ``count`` rows, with the CRC they say; else None."""
    count, payload = fields.get("count"), fields.get("payload")
    if fields.get("form") != FORM or fields.get("byteorder") != BYTEORDER:
        return None
    if type(count) is not int or type(payload) is not int or zlib.crc32(body) != payload:
        return None
    rows_of = array("I")
    size = rows_of.itemsize * count
    if rows_of.itemsize != 4 or len(body) < size:
        return None
    rows_of.frombytes(body[:size])
    return rows_of, body[size:]


def checked(
    column: Sequence[str | None],
    rows: int,
    keys: list[str],
    rows_of: array[int],
    crc: object,
    keyer: Callable[[list[str]], list[str]],
    plain: Callable[[str], str],
) -> bool:
    """Whether ``rows_of`` may be the rows of the sorted ``keys`` of rows ``0 … rows`` of
    ``column``: the column's CRC is ``crc`` (the column the table was made from), one row per
    key, and every :data:`SAMPLE`-th key's row (and the last's) below ``rows`` holds an id
    whose key is that key."""
    if len(rows_of) != len(keys) or column_crc(column, rows) != crc:
        return False
    if not keys:
        return True
    at = [*range(0, len(keys), SAMPLE), len(keys) - 1]
    picked = [rows_of[i] for i in at]
    if max(picked) >= rows:
        return False
    ids = [column[r] for r in picked]
    if None in ids or "" in ids:
        return False
    texts = [plain(c) for c in ids if c]
    return keyer(texts) == [keys[i] for i in at]


class KeptRows:
    """Whether an id is one of the first ``rows`` of ``column``, by the kept table's ``keys``
    (sorted, keyed with the table's prefix and ending as kept: ``key``) and their rows; plus the
    ``extra`` ids of rows taken in since (a grown run's, a follower's)."""

    __slots__ = ("column", "extra", "key", "keys", "rows", "rows_of")

    def __init__(
        self,
        column: list[str | None],
        rows: int,
        keys: list[str],
        rows_of: array[int],
        key: Callable[[str], str],
    ) -> None:
        self.column = column
        self.rows = rows
        self.keys = keys
        """The kept keys (never changed: the table copies them before it adds one)."""
        self.rows_of = rows_of
        self.key = key
        self.extra: set[str] = set()

    def has(self, cid: str) -> bool:
        if cid in self.extra:
            return True
        keys, rows_of, column = self.keys, self.rows_of, self.column
        key = self.key(cid)
        i = bisect_left(keys, key)
        while i < len(rows_of) and keys[i] == key:
            row = rows_of[i]
            if row < self.rows and column[row] == cid:
                return True
            i += 1
        return False
