"""Bulk indexing through the C scanner (``_scan``), with the pure-Python path as the fallback.

The scanner validates and reads whole buffers of lines in C; lines it cannot judge exactly
(markers that decide truncation, odd types, escaped ids, bad JSON) come back as "slow" rows and
go through :func:`tracetui.core.reader.parse_facts`, so both paths give the same index. Without
the compiled module (no compiler at install time) or with ``TRACETUI_NO_C=1``,
:func:`index_member_fast` returns False and the caller reads line by line.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable
from itertools import repeat
from typing import TYPE_CHECKING, Any

from tracetui.core import markers
from tracetui.core.reader import MAX_LINE, RawLine, iter_lines, parse_facts

if TYPE_CHECKING:
    from tracetui.core.index import RunIndex

try:
    from tracetui.core import _scan  # type: ignore[attr-defined]

    _scan.set_hints([h.encode() for h in markers._HINTS])
except ImportError:  # built without a C compiler: the Python path does the same work
    _scan = None

CHUNK = 4 << 20


def available() -> bool:
    return _scan is not None and not os.environ.get("TRACETUI_NO_C")


def index_member_fast(index: RunIndex, mno: int, progress: Callable[[int], None] | None) -> bool:
    """Index member ``mno`` from where indexing stopped; False when the C scanner is unavailable."""
    if not available():
        return False
    im = index.members[mno]
    base, line = im.size, im.lines
    with open(im.readable, "rb") as fh:
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
                _apply(index, mno, buf, base, result)
            del buf[:consumed]
            base += consumed
            line += nlines
            im.size, im.lines = base, line
            if len(buf) > MAX_LINE:
                # A line over the limit: the bounded reader reports it without holding it.
                fh.seek(base)
                for raw in iter_lines(fh, start_offset=base, start_line=line + 1):
                    index.add_line(mno, raw)
                    base, line = raw.offset + raw.length + 1, raw.line_no
                    break
                fh.seek(base)
                buf.clear()
                im.size, im.lines = base, line
            if progress:
                progress(base)
        if buf:  # a last line with no newline: the line reader's verdict applies
            index.add_line(mno, RawLine(line + 1, base, len(buf), bytes(buf), complete=False))
    return True


def _apply(index: RunIndex, mno: int, buf: bytearray, base: int, result: tuple[Any, ...]) -> None:
    (_consumed, _nlines, offsets, lengths, line_nos, hidden, exits, flags, slow, ids, parents,
     failed, truncated, hidden_sum, last_failed) = result
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
        stats.spans += n - len(slow) // 4
        stats.failed += failed
        stats.truncated += truncated
        stats.hidden_bytes += hidden_sum
        if last_failed >= 0:
            index.latest_failure = row0 + last_failed
        for k, pid in parents:
            index.parent_ids[row0 + k] = pid
        slow_rows = array("i")
        slow_rows.frombytes(slow)
        for k in slow_rows:
            row = row0 + k
            off, length = index.offset[row], index.length[row]
            data = bytes(buf[off - base : off - base + length])
            raw = RawLine(index.line_no[row], off, length, data if length <= MAX_LINE else None)
            index.fill_row(row, parse_facts(raw, path), sidecar=False)
        index.register_ids(row0, row0 + n)
        index.generation += 1
