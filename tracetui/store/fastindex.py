"""Bulk scanning through the C scanner (``_scan``), with the pure-Python path as the fallback.

The scanner validates and reads whole buffers of lines in C with the GIL released, so members of
a rotated set are scanned on two threads at once. It only reads: it yields batches that the index
(their one owner, :meth:`tracetui.store.index.RunIndex.append`) applies, in set order. Lines it
cannot judge exactly (markers that decide truncation, other than tracetui's own in a feedback
record's tail; odd types, escaped ids, bad JSON) come back as "slow" rows and go through
:func:`tracetui.store.reader.parse_facts`, so both paths give the same index. Without the
compiled module (no compiler at install time) or with ``TRACETUI_NO_C=1``, :func:`available` is
False and callers read line by line.
"""

from __future__ import annotations

import os
import threading
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import compress, islice
from typing import Any

from tracetui.model import markers, marks
from tracetui.store.reader import MAX_LINE, RawLine, iter_lines, open_regular

try:
    from tracetui.store import _scan  # type: ignore[attr-defined]

    _scan.set_hints([h.encode() for h in markers._HINTS])
    _scan.set_secret_hints(marks.secret_words())
except ImportError:  # built without a C compiler: the Python path does the same work
    _scan = None

CHUNK = 4 << 20


def available() -> bool:
    return _scan is not None and not os.environ.get("TRACETUI_NO_C")


def _bulk(name: str) -> bool:
    """Whether the compiled module has the bulk pass ``name`` and may be used (``TRACETUI_NO_C``
    turns every C pass off, these as the scanner: their Python fallbacks are the reference)."""
    return available() and hasattr(_scan, name)


def first_rows(
    ids: list[str | None], start: int, stop: int, want: set[str], first: dict[str, int]
) -> None:
    """``first.setdefault(id, row)`` for each row ``start … stop`` whose id is in ``want``, in
    row order (the owed rows of the id registry's parents table). In C a fingerprint of the
    wanted ids turns away almost every other id without hashing it (``_scan_bulk.h``)."""
    if _bulk("first_rows"):
        _scan.first_rows(ids, start, stop, want, first)
        return
    owed = islice(ids, start, stop)
    for row in compress(range(start, stop), map(want.__contains__, owed)):
        first.setdefault(ids[row], row)  # type: ignore[arg-type]  # an id in want is a str


def chain_groups(
    rows: list[int], parents: list[int | None], committed: int = -1
) -> dict[int, list[int]] | None:
    """``ChainIndex.groups`` walked in C (``_scan_bulk.h``): root row → the rows of its tree,
    sorted, for trees of two or more rows, in root order. ``parents[i]`` is the parent row of
    ``rows[i]`` (-1 or None: none; given ``committed``, also the row itself or a row from
    ``committed`` on). None without the compiled module (the caller walks in Python)."""
    if not _bulk("chain_groups"):
        return None
    try:
        got: dict[int, list[int]] = _scan.chain_groups(rows, parents, committed)
    except (ValueError, OverflowError, TypeError):  # rows past 31 bits: the walk in Python
        return None
    return got


def chain_list(
    groups: dict[int, list[int]], ids: list[str | None], finals: list[int | None]
) -> list[dict[str, Any]]:
    """Summary's chain objects (SPEC §4): for the i-th root and rows of ``groups``, its root's
    id, its rows' ids and ``finals[i]``; made in C when the compiled module is there."""
    if _bulk("chain_list"):
        try:
            made: list[dict[str, Any]] = _scan.chain_list(groups, ids, finals)
            return made
        except (ValueError, TypeError, IndexError, OverflowError):  # the plain build says why
            pass
    return [
        {"root": ids[root], "attempts": [ids[r] for r in rows], "final_exit_code": final}
        for (root, rows), final in zip(groups.items(), finals, strict=True)
    ]


def known_sum(column: array[int], skip: int) -> int:
    """The sum of an ``array("q")``'s values other than ``skip``, without an int per value
    when the compiled module is there."""
    if _bulk("known_sum"):
        got = _scan.known_sum(column, skip)
        if got is not None:
            return int(got)
    return sum(column) - skip * column.count(skip)


def ones(column: bytes, start: int = 0) -> list[int]:
    """Positions (from ``start``) of the 1 bytes of a 0/1 column: in C an int for each one
    only, else one ``find`` a one."""
    if _bulk("ones"):
        got: list[int] = _scan.ones(column, start)
        return got
    out = []
    at = column.find(1, start)
    while at >= 0:
        out.append(at)
        at = column.find(1, at + 1)
    return out


def count_picked(picked: bytes, column: array[int], a: int, b: int) -> int:
    """Rows ``i`` with ``picked[i]`` nonzero whose value ``column[i]`` (an ``array("q")``) is
    ``a`` or ``b``."""
    if _bulk("count_picked"):
        return int(_scan.count_picked(picked, column, a, b))
    got = list(compress(column, picked))
    return got.count(a) + (got.count(b) if b != a else 0)


@dataclass(slots=True)
class Batch:
    """One scanned buffer: the C scanner's columns plus the bytes of its slow rows."""

    result: tuple[Any, ...]
    slow_lines: list[bytes]

    def __len__(self) -> int:
        return len(self.result[9])


Item = (
    Batch | RawLine
)  # a RawLine is a line the bounded Python reader handles (over-long, unfinished)


@dataclass(slots=True)
class Reached:
    """Where a scan stopped: the byte after the last line it consumed, and that line's number
    (blank lines counted)."""

    offset: int = 0
    line: int = 0


def scan_member(
    path: str,
    start: int,
    start_line: int,
    progress: Callable[[int], None] | None = None,
    *,
    end: int | None = None,
    reached: Reached | None = None,
) -> Iterator[Item]:
    """Scan a member from byte ``start``; yields batches and odd lines in file order.

    Only a regular file is read (:func:`~tracetui.store.reader.open_regular`). ``end``: read no
    byte from there on (a line boundary: a piece of a member, build.py); ``reached`` is told
    where the scan stopped."""
    with open_regular(path) as fh:
        yield from scan_stream(fh, start, start_line, progress, end=end, reached=reached)


def scan_stream(
    fh: Any,
    start: int,
    start_line: int,
    progress: Callable[[int], None] | None = None,
    *,
    end: int | None = None,
    reached: Reached | None = None,
) -> Iterator[Item]:
    """Scan an open file from byte ``start`` (``start_line`` lines already read), up to byte
    ``end`` when given (else the end of the file).

    The last line without a newline comes as a ``RawLine`` with ``complete=False``; a caller
    following a live file stops there (the writer may still be writing it).
    """
    base, line = start, start_line
    fh.seek(base)
    # One buffer, read into and reused: a fresh 4 MiB object per read would cost a copy and a
    # page fault per 4 KiB on every chunk. Unconsumed bytes (a line cut by the read) move to
    # its front; it grows only while one line fills it whole. Taken from the pool of a scan
    # that ended (the ten pieces of a 200k-span set zeroed and faulted in 40 MB otherwise).
    buf = _take_buffer()
    try:
        yield from _scan_into(buf, fh, base, line, progress, end, reached)
    finally:
        _give_back(buf)


def _scan_into(
    buf: bytearray,
    fh: Any,
    base: int,
    line: int,
    progress: Callable[[int], None] | None,
    end: int | None,
    reached: Reached | None,
) -> Iterator[Item]:
    have = 0
    while True:
        if have == len(buf):
            buf.extend(bytes(CHUNK))
        room = len(buf) - have if end is None else min(len(buf) - have, end - base - have)
        got = _read_into(fh, buf, have, room) if room > 0 else 0
        if not got:
            break
        have += got
        result = _scan.scan(buf, base, line + 1, MAX_LINE, have)
        consumed, nlines = result[0], result[1]
        if nlines:
            slow = array("i")
            slow.frombytes(result[8])
            offsets = result[2]
            slow_lines = [_slice(buf, base, offsets, k, result[3]) for k in slow]
            yield Batch(result, slow_lines)
        if consumed:
            buf[: have - consumed] = buf[consumed:have]
            have -= consumed
        base += consumed
        line += nlines
        if have > MAX_LINE:
            # A line over the limit: the bounded reader reports it without holding it.
            fh.seek(base)
            for raw in iter_lines(fh, start_offset=base, start_line=line + 1):
                yield raw
                base, line = raw.offset + raw.length + 1, raw.line_no
                break
            fh.seek(base)
            del buf[CHUNK:]  # the same object, back to its size (the pool keeps it)
            have = 0
        if progress:
            progress(base)
    if reached is not None:
        reached.offset, reached.line = base, line
    if have:  # a last line with no newline: the line reader's verdict applies
        yield RawLine(line + 1, base, have, bytes(buf[:have]), complete=False)


_pool: list[bytearray] = []
"""Read buffers of scans that ended, for the next: at most one a scan thread (build.WORKERS)."""
_POOL_MOST = 2
_pool_lock = threading.Lock()


def _take_buffer() -> bytearray:
    with _pool_lock:
        if _pool:
            return _pool.pop()
    return bytearray(CHUNK)


def _give_back(buf: bytearray) -> None:
    """Keep ``buf`` for another scan when it is of the usual size (one grown for a long line
    goes); its bytes are never read before they are read into again."""
    if len(buf) != CHUNK:
        return
    with _pool_lock:
        if len(_pool) < _POOL_MOST and all(b is not buf for b in _pool):
            _pool.append(buf)


def _read_into(fh: Any, buf: bytearray, at: int, most: int) -> int:
    """Read at most ``most`` bytes into ``buf`` from ``at``; the bytes read (0 at the end of
    the file)."""
    with memoryview(buf) as view, view[at : at + most] as room:
        return int(fh.readinto(room) or 0)


def _slice(buf: bytearray, base: int, offsets: bytearray, k: int, lengths: bytearray) -> bytes:
    off = int.from_bytes(offsets[k * 8 : k * 8 + 8], "little", signed=True)
    length = int.from_bytes(lengths[k * 8 : k * 8 + 8], "little", signed=True)
    return bytes(buf[off - base : off - base + length]) if length <= MAX_LINE else b""


def batch_end(batch: Batch) -> int:
    """Byte offset just past the batch's last line."""
    return _end_of(batch.result)


def batch_last_line(batch: Batch) -> int:
    """Line number of the last line the batch consumed (blank lines included)."""
    res = batch.result
    return _last_line(res)


def _end_of(res: tuple[Any, ...]) -> int:
    offsets, lengths = res[2], res[3]
    if not offsets:
        return 0
    off = int.from_bytes(offsets[-8:], "little", signed=True)
    return off + int.from_bytes(lengths[-8:], "little", signed=True) + 1


def _last_line(res: tuple[Any, ...]) -> int:
    lines = res[4]
    return int.from_bytes(lines[-4:], "little", signed=True) if lines else 0
