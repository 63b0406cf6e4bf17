"""One member's rows as the persistent index keeps them (:mod:`tracetui.store.cache`).

A *part* is the rows of one plain member, cut out of a built :class:`RunIndex`: its seven numeric
columns as the raw bytes of their ``array`` (no per-row encoding), its command ids as a JSON
array, its parent links as the raw bytes of an ``array`` of rows beside a JSON array of the
parent ids, the rows that were bad lines, and the totals the index adds up for them. Restoring a part turns it back into the items the scanner yields (``Batch`` objects,
plus a ``RawLine`` for each bad line, re-read from the file so its reason is the one a cold
build gives), which the index applies through its own :meth:`RunIndex.append`.

A part read back from disk is hostile input like any file: :func:`check_part` validates every
length and type before anything is restored, and the offsets and lengths against the member's
size, so a restored row never asks for bytes outside its file. The checks run over whole
columns at C speed (a ``max`` over an ``array``, a set of the types seen), not row by row: a
warm re-open of a million rows spends its time restoring them, not doubting them.
"""

from __future__ import annotations

import os
import sys
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import islice, repeat
from operator import le, sub
from typing import TYPE_CHECKING, Any

import orjson

from tracetui.model.flags import BAD, EXIT_UNKNOWN, FAILED, NO_VALUE, TRUNCATED

try:
    from tracetui.store import _bounds  # type: ignore[attr-defined]
except ImportError:  # built without a C compiler: the columns' max is taken in Python
    _bounds = None

if TYPE_CHECKING:
    from tracetui.store.fastindex import Item
    from tracetui.store.index import RunIndex
    from tracetui.store.reader import RawLine

COLUMNS = (
    ("offset", "q"),
    ("length", "q"),
    ("line_no", "i"),
    ("flags", "B"),
    ("exit", "i"),
    ("hidden", "q"),
    ("marks", "B"),
)
"""The index's numeric columns, in the order a part stores them."""
BLOBS = len(COLUMNS) + 3
_SCANNER_ORDER = (0, 1, 2, 5, 4, 3)
"""The first six columns in the order of the scanner's result tuple (offsets, lengths, line
numbers, hidden, exits, flags: see ``RowTable.append_batch``); the marks come last in it."""
_MARKS = 6
_IDS = len(COLUMNS)
"""Columns, then the ids (JSON), then the parent links: their rows (``array("i")``, rows of
the part) and their parent ids (JSON), in the index's order."""
_LINK_ROWS = _IDS + 1
_LINK_IDS = _IDS + 2

# Byte value → b"\x01" when the flag bit is set: counts and searches at C speed.
_FAILED_MAP = bytes(1 if v & FAILED else 0 for v in range(256))
_TRUNC_MAP = bytes(1 if v & TRUNCATED else 0 for v in range(256))
_BAD_MAP = bytes(1 if v & BAD else 0 for v in range(256))
_UNKNOWN_MAP = bytes(1 if v & EXIT_UNKNOWN else 0 for v in range(256))


class BadPart(ValueError):
    """A part that does not hold together: the cache entry is dropped and the member rebuilt."""


@dataclass(slots=True)
class Part:
    """A member's rows, as stored: ``meta`` is its JSON header, ``blobs`` its byte strings."""

    meta: dict[str, Any]
    blobs: list[bytes | memoryview]


def member_rows(index: RunIndex, mno: int) -> tuple[int, int]:
    """``(first, stop)`` rows of member ``mno`` (members are read one after another)."""
    n = len(index)
    return bisect_left(index.member_no, mno, 0, n), bisect_right(index.member_no, mno, 0, n)


def cut_part(index: RunIndex, mno: int, link_rows: list[int], parents: list[str]) -> Part:
    """The rows of member ``mno`` as a part; its rows' parent links are ``link_rows`` (rows of
    the index) naming ``parents``, in the index's order.

    Raises ``TypeError``/``ValueError`` when an id cannot be stored as JSON (a lone surrogate):
    the caller then keeps no part for this member.
    """
    from tracetui.store.fastindex import known_sum  # here: a warm open needs no scanner

    lo, hi = member_rows(index, mno)
    blobs: list[bytes | memoryview] = [
        getattr(index, name)[lo:hi].tobytes() for name, _code in COLUMNS
    ]
    flags = bytes(blobs[3])
    size = index.members[mno].size
    bad = [[k, index.offset[lo + k] + index.length[lo + k] < size] for k in _bad_rows(flags)]
    hidden = index.hidden[lo:hi]
    failed = flags.translate(_FAILED_MAP)
    # Links stored stretch by stretch (the rows between bad lines, each restored as one batch),
    # each stretch in the index's order: the restore then slices them, no look-up per link.
    rows = array("i", map(sub, link_rows, repeat(lo)))
    stops = [k for k, _complete in bad]
    counts = _stretch_counts(stops, rows)
    if counts is None:  # links out of row order: sorted into their stretches one by one
        stretches = _by_stretch(stops, list(zip(rows, parents, strict=True)))
        rows = array("i", [row for links_ in stretches for row, _pid in links_])
        parents = [pid for links_ in stretches for _row, pid in links_]
        counts = [len(links_) for links_ in stretches]
    blobs.append(orjson.dumps(index.ids[lo:hi]))
    blobs.append(rows.tobytes())
    blobs.append(orjson.dumps(parents))
    meta = {
        "rows": hi - lo,
        "spans": hi - lo - len(bad),
        "failed": failed.count(1),
        "truncated": flags.translate(_TRUNC_MAP).count(1),
        "hidden": known_sum(hidden, NO_VALUE),  # a bad row holds 0
        "last_failed": failed.rfind(1),
        "exit_unknown": flags.translate(_UNKNOWN_MAP).count(1),
        "bad": bad,
        "link_counts": counts,
    }
    return Part(meta, blobs)


def _stretch_counts(stops: list[int], rows: array[int]) -> list[int] | None:
    """The links of each stretch between bad lines (``stops``, in order) when the link
    ``rows`` are in row order (the usual): each stretch is then a slice, its end found by a
    bisect, and the links keep their order; None otherwise (:func:`_by_stretch` sorts them)."""
    if not stops:
        return [len(rows)]
    if not all(map(le, rows, islice(rows, 1, None))):
        return None
    ends = [bisect_right(rows, stop) for stop in stops]  # the links of rows up to each stop
    return list(map(sub, [*ends, len(rows)], [0, *ends]))


def _by_stretch(stops: list[int], links: list[tuple[int, str]]) -> list[list[tuple[int, str]]]:
    """``links`` (rows of the part) split by the stretch of rows between bad lines (``stops``)
    holding each, keeping their order within a stretch."""
    if not stops:
        return [links]
    out: list[list[tuple[int, str]]] = [[] for _ in range(len(stops) + 1)]
    for row, pid in links:
        out[bisect_left(stops, row)].append((row, pid))
    return out


def _bad_rows(flags: bytes) -> list[int]:
    marks = flags.translate(_BAD_MAP)
    out: list[int] = []
    k = marks.find(1)
    while k >= 0:
        out.append(k)
        k = marks.find(1, k + 1)
    return out


def check_part(meta: Any, blobs: list[memoryview], member_size: int) -> Part:
    """``meta`` and ``blobs`` read from a cache file, validated; raises :class:`BadPart`."""
    if not isinstance(meta, dict):
        raise BadPart("part is not an object")
    rows = _int(meta, "rows")
    for key in ("spans", "failed", "truncated", "hidden", "exit_unknown"):
        if _int(meta, key) > max(rows, 0) and key != "hidden":
            raise BadPart(f"{key} over the row count")
    last = meta.get("last_failed")
    if not isinstance(last, int) or isinstance(last, bool) or not -1 <= last < rows:
        raise BadPart("last_failed out of range")
    if len(blobs) != BLOBS:
        raise BadPart("wrong number of columns")
    for (name, code), blob in zip(COLUMNS, blobs[: len(COLUMNS)], strict=True):
        if len(blob) != rows * array(code).itemsize:
            raise BadPart(f"column {name}: {len(blob)} bytes for {rows} rows")
    if rows and not (_within(blobs[0], member_size - 1) and _within(blobs[1], member_size)):
        raise BadPart("a row outside its member")
    bad = meta.get("bad")
    if not isinstance(bad, list) or len(bad) > rows:
        raise BadPart("bad rows")
    prev = -1
    for item in bad:
        if (
            not isinstance(item, list)
            or len(item) != 2
            or not isinstance(item[0], int)
            or not isinstance(item[1], bool)
            or not prev < item[0] < rows
        ):
            raise BadPart("bad row entry")
        prev = item[0]
    try:
        ids = orjson.loads(blobs[_IDS])
        parents = orjson.loads(blobs[_LINK_IDS])
    except orjson.JSONDecodeError:
        raise BadPart("ids or links are not JSON") from None
    if not isinstance(ids, list) or len(ids) != rows or not _only_text(ids, none_too=True):
        raise BadPart("ids")
    if len(blobs[_LINK_ROWS]) % 4:
        raise BadPart("link rows")
    link_rows = _array("i", blobs[_LINK_ROWS])
    if not isinstance(parents, list) or len(parents) != len(link_rows):
        raise BadPart("links")
    if not _only_text(parents, none_too=False):
        raise BadPart("link entry")
    counts = meta.get("link_counts")
    if not (isinstance(counts, list) and len(counts) == len(bad) + 1 and _are_counts(counts)):
        raise BadPart("link counts")
    if sum(counts) != len(link_rows):
        raise BadPart("link counts")
    at = 0
    for start, stop, count in zip(_starts(bad), [*(k for k, _ in bad), rows], counts, strict=True):
        stretch = link_rows[at : at + count]
        if stretch and not (min(stretch) >= start and max(stretch) < stop):
            raise BadPart("link entry")  # outside its stretch: past the rows, or on a bad line
        at += count
    return Part({**meta, "ids": ids, "link_rows": link_rows, "parents": parents}, list(blobs))


def _are_counts(values: list[Any]) -> bool:
    return all(type(v) is int and v >= 0 for v in values)


def _starts(bad: list[Any]) -> list[int]:
    """The first row of each stretch between bad lines."""
    return [0, *(k + 1 for k, _complete in bad)]


_ID_TYPES = {str, type(None)}


def _only_text(items: list[Any], *, none_too: bool) -> bool:
    """Every item of ``items`` (read as JSON) is a ``str``, or None when ``none_too``."""
    if _bounds is not None and not os.environ.get("TRACETUI_NO_C"):
        return bool(_bounds.only_text(items, none_too))
    return set(map(type, items)) <= (_ID_TYPES if none_too else {str})


_LOW_BYTES = bytes(range(0x80))


def _within(blob: memoryview, top: int) -> bool:
    """Every int64 of ``blob`` (little-endian or big, as written here) is in ``0…top``.

    Reads of restored rows are then bounded by their member's size. The C helper walks the raw
    bytes (~0.09 s less of a warm million-row open). Without it, the sign is read from each
    value's high byte at C speed (deleting the bytes under 0x80 leaves nothing; no int per
    row), and one ``max`` does the rest."""
    if _bounds is not None and not os.environ.get("TRACETUI_NO_C"):
        return bool(_bounds.within(blob, top))
    high = bytes(blob[7::8] if sys.byteorder == "little" else blob[0::8])
    return not high.translate(None, _LOW_BYTES) and max(_array("q", blob)) <= top


def _int(meta: dict[str, Any], key: str) -> int:
    v = meta.get(key)
    if type(v) is not int or v < 0:
        raise BadPart(f"{key} is not a count")
    return v


def restore_items(part: Part, fd: int) -> list[Item]:
    """The scanner items that rebuild ``part``'s rows; bad lines re-read through ``fd``.

    The rows between bad lines become one ``Batch`` each (the part's totals go with the first,
    its latest failure with the one holding it); each bad line is a ``RawLine``.
    """
    # Imported here: a warm `summary --json` that prints its kept output never restores a part,
    # and the scanner's module (with the reader and the model) is a fifth of its start-up.
    from tracetui.store.fastindex import Batch

    meta = part.meta
    rows: int = meta["rows"]
    ids: list[str | None] = meta["ids"]
    cols = part.blobs
    bad: list[tuple[int, bool]] = [(k, complete) for k, complete in meta["bad"]]
    links = _stretch_links(meta["link_counts"], _starts(bad), meta["link_rows"], meta["parents"])
    # The scanner's totals, in the order of its result tuple (see RowTable.append_batch).
    totals = (meta["failed"], meta["truncated"], meta["hidden"], meta["exit_unknown"])
    items: list[Item] = []
    start = 0
    for seg, (stop, complete) in enumerate([*bad, (rows, True)]):
        if stop > start:
            last = meta["last_failed"] - start
            columns = [_cut(cols[c], COLUMNS[c][1], start, stop) for c in _SCANNER_ORDER]
            result = (
                0,
                0,
                *columns,
                b"",
                ids if (start, stop) == (0, rows) else ids[start:stop],
                links[seg],
                *totals[:3],
                last if 0 <= last < stop - start else -1,
                totals[3],
                _cut(cols[_MARKS], "B", start, stop),
            )
            items.append(Batch(result, []))
            totals = (0, 0, 0, 0)
        if stop < rows:
            items.append(_bad_line(cols, stop, complete, fd))
        start = stop + 1
    return items


def _stretch_links(
    counts: list[int], starts: list[int], link_rows: array[int], parents: list[str]
) -> list[list[tuple[int, str]]]:
    """Each stretch's links as its batch takes them, ``(row in the stretch, parent id)``."""
    rows = link_rows.tolist()
    out: list[list[tuple[int, str]]] = []
    at = 0
    for count, start in zip(counts, starts, strict=True):
        here = rows[at : at + count]
        got = here if start == 0 else map(sub, here, repeat(start))
        out.append(list(zip(got, parents[at : at + count], strict=True)))
        at += count
    return out


def _array(code: str, blob: bytes | memoryview) -> array[int]:
    out = array(code)
    out.frombytes(blob)
    return out


def _cut(blob: bytes | memoryview, code: str, start: int, stop: int) -> memoryview:
    size = array(code).itemsize
    return memoryview(blob)[start * size : stop * size]


def _bad_line(cols: list[bytes | memoryview], k: int, complete: bool, fd: int) -> RawLine:
    from tracetui.store.reader import MAX_LINE, RawLine  # as Batch above

    offset = _array("q", _cut(cols[0], "q", k, k + 1))[0]
    length = _array("q", _cut(cols[1], "q", k, k + 1))[0]
    line_no = _array("i", _cut(cols[2], "i", k, k + 1))[0]
    data = None
    if length <= MAX_LINE:
        data = os.pread(fd, length, offset)
        if len(data) != length:
            raise BadPart("bad line no longer in the file")
    return RawLine(line_no, offset, length, data, complete)
