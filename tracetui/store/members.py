"""The small value types of the index (tracetui/store/index.py): a member as indexed, the running
totals, and a consistent snapshot of them."""

from __future__ import annotations

from dataclasses import dataclass

from tracetui.store.runset import Member


@dataclass(slots=True)
class Stats:
    """Running totals of the committed rows (the header and the summary read them)."""

    spans: int = 0
    bad_lines: int = 0
    failed: int = 0
    exit_unknown: int = 0
    """Spans with no exit and no error: how they ended was not recorded (not failures)."""
    truncated: int = 0
    hidden_bytes: int = 0


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What the index holds at one moment, copied under its lock: totals that agree."""

    rows: int
    """Committed rows."""
    stats: Stats
    latest_failure: int | None
    """Row of the latest failure among the committed rows, or None."""
    generation: int


@dataclass(slots=True)
class IndexedMember:
    """A member as the index knows it, with where to read it from."""

    member: Member
    readable: str
    """Path used for random access: the member itself, a decompressed copy of a gz member, or
    "" once the file is gone (reads of its rows then say so)."""
    size: int = 0
    """Bytes indexed so far (of the decompressed stream for gz)."""
    lines: int = 0
    """Lines seen so far."""


def clamp32(v: int) -> int:
    """``v`` within the exit column's int32 range (its minimum means \"no exit\")."""
    return max(-(2**31) + 1, min(2**31 - 1, v))
