"""Row-column helpers of a run's index (:class:`tracetui.store.index.RunIndex` owns the columns).

What one parsed line becomes in the index's numeric columns (flags, exit, hidden bytes) and what
it adds to the totals, and the searches over the columns that need no Python object per row.
The index calls these; nothing here keeps state of its own.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from typing import Any

from tracetui.model.flags import (
    EXIT_UNKNOWN,
    FAILED,
    NO_EXIT,
    NO_VALUE,
    NULL_EXIT,
    PROBLEMS,
    SIDECAR,
    TRUNC_UNKNOWN,
    TRUNCATED,
)
from tracetui.model.spans import Facts
from tracetui.store.members import Stats, clamp32


def facts_columns(parsed: Facts, *, sidecar: bool) -> tuple[int, int, int]:
    """``(flags, exit, hidden)`` column values of a span's facts (a re-run's row is SIDECAR)."""
    flags = SIDECAR if sidecar else 0
    if parsed.failed:
        flags |= FAILED
    if parsed.exit_code is None:
        flags |= NULL_EXIT
        if not parsed.failed:  # no error either: how it ended is unknown, not a failure
            flags |= EXIT_UNKNOWN
    if parsed.truncated:
        flags |= TRUNCATED
    elif parsed.truncated is None:
        flags |= TRUNC_UNKNOWN
    if parsed.problems:
        flags |= PROBLEMS
    exit_ = NO_EXIT if parsed.exit_code is None else clamp32(parsed.exit_code)
    hidden = NO_VALUE if parsed.hidden_bytes is None else parsed.hidden_bytes
    return flags, exit_, hidden


def count_span(stats: Stats, flags: int, hidden_bytes: int | None) -> None:
    """Add one span with these flags and hidden bytes to ``stats``."""
    stats.spans += 1
    if flags & FAILED:
        stats.failed += 1
    if flags & EXIT_UNKNOWN:
        stats.exit_unknown += 1
    if flags & TRUNCATED:
        stats.truncated += 1
    stats.hidden_bytes += hidden_bytes or 0


def source_line(record: Mapping[str, Any]) -> int | None:
    """The line (or index) in the original file an imported record says it came from."""
    where = record.get("source_line") or record.get("source_index")
    return where if isinstance(where, int) and not isinstance(where, bool) else None


def find_flag(
    flags: array[int], n: int, start: int, mask: int, step: int, *, wrap: bool = False
) -> int | None:
    """Next row of ``0 … n`` after ``start`` (in direction ``step``) whose flags meet ``mask``."""
    row = start + step
    while 0 <= row < n:
        if flags[row] & mask:
            return row
        row += step
    if wrap:
        row = 0 if step > 0 else n - 1
        while 0 <= row < n and row != start:
            if flags[row] & mask:
                return row
            row += step
    return None


def row_of_offset(
    member_no: array[int], offsets: array[int], n: int, mno: int, offset: int
) -> int | None:
    """The row of member ``mno`` whose line starts at ``offset``, among rows ``0 … n``.

    Members are read one after another, so member numbers never decrease along the rows, and
    within a member offsets increase: two bisections find the member's rows, a third the line.
    """
    lo = bisect_left(member_no, mno, 0, n)
    hi = bisect_right(member_no, mno, 0, n)
    i = bisect_left(offsets, offset, lo, hi)
    return i if i < hi and offsets[i] == offset else None
