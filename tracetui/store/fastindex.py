"""Bulk indexing through the C scanner (``_scan``), with the pure-Python path as the fallback.

The scanner validates and reads whole buffers of lines in C with the GIL released, so members of
a rotated set are scanned on two threads at once; their results are then applied to the index in
set order. Lines it cannot judge exactly (markers that decide truncation, odd types, escaped ids,
bad JSON) come back as "slow" rows and go through :func:`tracetui.store.reader.parse_facts`, so
both paths give the same index. Without the compiled module (no compiler at install time) or
with ``TRACETUI_NO_C=1``, :func:`available` is False and callers read line by line.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import repeat
from typing import TYPE_CHECKING, Any

from tracetui.model import markers
from tracetui.store.reader import MAX_LINE, RawLine, iter_lines, parse_facts

if TYPE_CHECKING:
    from tracetui.store.index import RunIndex

try:
    from tracetui.store import _scan  # type: ignore[attr-defined]

    _scan.set_hints([h.encode() for h in markers._HINTS])
except ImportError:  # built without a C compiler: the Python path does the same work
    _scan = None

CHUNK = 4 << 20
WORKERS = 2


def available() -> bool:
    return _scan is not None and not os.environ.get("TRACETUI_NO_C")


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


def scan_member(
    path: str, start: int, start_line: int, progress: Callable[[int], None] | None = None
) -> Iterator[Item]:
    """Scan a member from byte ``start``; yields batches and odd lines in file order."""
    with open(path, "rb") as fh:
        yield from scan_stream(fh, start, start_line, progress)


def scan_stream(
    fh: Any, start: int, start_line: int, progress: Callable[[int], None] | None = None
) -> Iterator[Item]:
    """Scan an open file from byte ``start`` (``start_line`` lines already read).

    The last line without a newline comes as a ``RawLine`` with ``complete=False``; a caller
    following a live file stops there (the writer may still be writing it).
    """
    base, line = start, start_line
    fh.seek(base)
    buf = bytearray()  # grows in place; consumed lines are cut from its front
    while True:
        chunk = fh.read(CHUNK)
        if not chunk:
            break
        buf += chunk
        del chunk
        result = _scan.scan(buf, base, line + 1)
        consumed, nlines = result[0], result[1]
        if nlines:
            slow = array("i")
            slow.frombytes(result[8])
            offsets = result[2]
            slow_lines = [_slice(buf, base, offsets, k, result[3]) for k in slow]
            yield Batch(result, slow_lines)
        del buf[:consumed]
        base += consumed
        line += nlines
        if len(buf) > MAX_LINE:
            # A line over the limit: the bounded reader reports it without holding it.
            fh.seek(base)
            for raw in iter_lines(fh, start_offset=base, start_line=line + 1):
                yield raw
                base, line = raw.offset + raw.length + 1, raw.line_no
                break
            fh.seek(base)
            buf.clear()
        if progress:
            progress(base)
    if buf:  # a last line with no newline: the line reader's verdict applies
        yield RawLine(line + 1, base, len(buf), bytes(buf), complete=False)


def _slice(buf: bytearray, base: int, offsets: bytearray, k: int, lengths: bytearray) -> bytes:
    off = int.from_bytes(offsets[k * 8 : k * 8 + 8], "little", signed=True)
    length = int.from_bytes(lengths[k * 8 : k * 8 + 8], "little", signed=True)
    return bytes(buf[off - base : off - base + length]) if length <= MAX_LINE else b""


def apply(
    index: RunIndex, mno: int, items: Iterator[Item] | list[Item], *, register: bool = True
) -> None:
    """Append scanned items to the index, in order.

    ``register=False`` leaves command ids out of ``index.id_rows`` (a bulk build registers them
    all at once at the end, which is much cheaper than batch by batch into a growing dict).
    """
    im = index.members[mno]
    for item in items:
        if isinstance(item, RawLine):
            index.add_line(mno, item, register=register)
            continue
        _apply_batch(index, mno, item, register=register)
        res = item.result
        im.size = max(im.size, _end_of(res))
        im.lines = max(im.lines, _last_line(res))


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


def _apply_batch(index: RunIndex, mno: int, batch: Batch, *, register: bool = True) -> None:
    (
        _consumed,
        _nlines,
        offsets,
        lengths,
        line_nos,
        hidden,
        exits,
        flags,
        slow,
        ids,
        parents,
        failed,
        truncated,
        hidden_sum,
        last_failed,
    ) = batch.result
    n = len(ids)
    if n == 0:
        return
    path = index.members[mno].member.path
    with index._lock:
        row0 = len(index.flags)
        index.member_no.extend(repeat(mno, n))
        index.offset.frombytes(offsets)
        index.length.frombytes(lengths)
        index.line_no.frombytes(line_nos)
        index.hidden.frombytes(hidden)
        index.exit.frombytes(exits)
        index.flags.frombytes(flags)
        index.ids.extend(ids)
        stats = index.stats
        stats.spans += n - len(batch.slow_lines)
        stats.failed += failed
        stats.truncated += truncated
        stats.hidden_bytes += hidden_sum
        if last_failed >= 0:
            index.latest_failure = row0 + last_failed
        parent_ids = index.parent_ids
        for k, pid in parents:
            parent_ids[row0 + k] = pid
        slow_rows = array("i")
        slow_rows.frombytes(slow)
        for k, data in zip(slow_rows, batch.slow_lines):
            row = row0 + k
            length = index.length[row]
            raw = RawLine(
                index.line_no[row], index.offset[row], length, data if length <= MAX_LINE else None
            )
            index.fill_row(row, parse_facts(raw, path), sidecar=False)
        if register:
            index.register_ids(row0, row0 + n)
        index.generation += 1


def index_member_fast(index: RunIndex, mno: int, progress: Callable[[int], None] | None) -> bool:
    """Index member ``mno`` from where indexing stopped; False when the C scanner is unavailable."""
    if not available():
        return False
    im = index.members[mno]
    apply(index, mno, scan_member(im.readable, im.size, im.lines, progress))
    return True


def index_members_parallel(
    index: RunIndex, mnos: list[int], progress: Callable[[int], None] | None = None
) -> bool:
    """Scan several fresh members on worker threads, then apply them in set order."""
    if not available() or len(mnos) < 2:
        return False
    done: dict[int, int] = {}

    def member_progress(m: int) -> Callable[[int], None] | None:
        if progress is None:
            return None

        def report(offset: int) -> None:  # the bytes read over all members, not one member's offset
            done[m] = offset
            progress(sum(done.values()))

        return report

    with ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="tracetui-scan") as pool:
        futures = [
            pool.submit(
                lambda m=m: list(scan_member(index.members[m].readable, 0, 0, member_progress(m)))
            )
            for m in mnos
        ]
        first = len(index)
        for mno, fut in zip(mnos, futures):
            apply(index, mno, fut.result(), register=False)
        index.register_ids(first, len(index))
    return True
