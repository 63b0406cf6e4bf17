"""How a run changed over its course: hidden share, failures and response sizes per bucket.

The spans of a run (re-runs from the sidecar and bad lines left out) are cut into at most
``buckets`` consecutive groups of equal span count, in set order. Set order is append order,
which is time order for a run written by one agent, so a bucket is a stretch of the run's time;
each bucket names the ``started_at`` of its first and last span (two parses per bucket).

Why by position and not by equal stretches of ``started_at``: binning by time needs the start
of every span, which for a million spans means parsing a million records. Failures, truncation
and hidden bytes come from the index's columns (``flags``, ``hidden``) with no parse at all.

Bytes produced are not an index column. Up to :data:`EXACT_LIMIT` spans every span is read and
the figures are exact; above it :data:`SAMPLE_PER_BUCKET` evenly spaced spans per bucket are read
and the bucket's bytes produced are estimated from them (``produced_exact`` says which). The
hidden share of a bucket is its hidden bytes over its bytes produced; when estimated it is
taken over the sample alone so that it stays a true ratio (never above 100%).

The rows read are parsed but not made into spans: their byte counts and start time are read
as the span reads them (:func:`tracetui.model.facts.produced_and_start`), their hidden bytes
come from the index's column, which holds the span's own judgement.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tracetui.analysis.raw_lines import RawLines, load_json, ones
from tracetui.model.facts import produced_and_start
from tracetui.model.flags import BAD, FAILED, NO_VALUE, SIDECAR, TRUNCATED
from tracetui.model.spans import NotASpan
from tracetui.store.index import RunIndex

BUCKETS = 40
EXACT_LIMIT = 5000
"""Runs of up to this many spans have every span read for its bytes produced."""
SAMPLE_PER_BUCKET = 25
"""Spans read per bucket above :data:`EXACT_LIMIT`."""
BARS = "▁▂▃▄▅▆▇█"


@dataclass(frozen=True, slots=True)
class Bucket:
    """One stretch of a run."""

    first_row: int
    last_row: int
    spans: int
    failed: int
    truncated: int
    hidden_bytes: int
    """Bytes withheld from the agent, summed (spans whose hidden bytes are unknown count 0)."""
    produced_bytes: int | None
    """Bytes the tools produced (stdout + stderr before any cap); estimated when sampled; None if unknown."""
    hidden_share: float | None
    """Hidden over produced, 0…1; None when no span in the bucket records byte counts."""
    start: str | None
    """``started_at`` of the bucket's first span; None when unrecorded."""
    end: str | None
    """``started_at`` of the bucket's last span; None when unrecorded."""


# Byte value of a row's flags → 1 when the row counts (C-speed counting over a column slice).
_SKIP = BAD | SIDECAR
_IS_SKIPPED = bytes(1 if v & _SKIP else 0 for v in range(256))
_IS_FAILED = bytes(1 if v & FAILED and not v & _SKIP else 0 for v in range(256))
_IS_TRUNCATED = bytes(1 if v & TRUNCATED and not v & _SKIP else 0 for v in range(256))
_IS_SIDECAR = bytes(1 if v & SIDECAR else 0 for v in range(256))


def span_rows(index: RunIndex) -> list[int]:
    """Rows that are spans of the trace itself (no bad lines, no sidecar re-runs)."""
    flags = index.flags
    marks = flags.tobytes().translate(_IS_SKIPPED)
    rows: list[int] = []
    start = 0
    while (cut := marks.find(1, start)) >= 0:  # the stretches between skipped rows, at C speed
        rows.extend(range(start, cut))
        start = cut + 1
    rows.extend(range(start, len(marks)))
    return rows


class _SpanRows:
    """``span_rows(index)[p]`` for a position ``p``, without the list of every row: the rows
    left out (bad lines, re-runs) are few, and the ``k``-th of them has ``skipped[k] - k``
    span rows before it, so ``p``'s row lies past as many of them as have ``p`` or fewer."""

    def __init__(self, index: RunIndex) -> None:
        self.skipped = ones(index.flags.tobytes().translate(_IS_SKIPPED))
        self.before = [row - k for k, row in enumerate(self.skipped)]
        self.count = len(index) - len(self.skipped)

    def row(self, p: int) -> int:
        return p + bisect_right(self.before, p)

    def rows(self, lo: int, hi: int) -> list[int]:
        """The rows at positions ``lo:hi`` (a slice of :func:`span_rows`)."""
        return [self.row(p) for p in range(lo, hi)]


def _span_count(index: RunIndex) -> int:
    """``len(span_rows(index))``, counted at C speed without the list."""
    flags = index.flags.tobytes()
    return len(flags) - flags.translate(_IS_SKIPPED).count(1)


def _counts(index: RunIndex, rows: _SpanRows, lo: int, hi: int) -> tuple[int, int, int]:
    """``(failed, truncated, hidden bytes)`` of the span rows at positions ``lo:hi``.

    Counted over the column stretch from its first to its last row: the rows between that are
    not span rows are bad lines (no flags but BAD, hidden 0) or sidecar re-runs, which the
    maps leave out; only a stretch holding a re-run sums its hidden bytes row by row.
    """
    first, stop = rows.row(lo), rows.row(hi - 1) + 1
    flags = index.flags[first:stop].tobytes()
    failed = flags.translate(_IS_FAILED).count(1)
    truncated = flags.translate(_IS_TRUNCATED).count(1)
    hidden = index.hidden
    if flags.translate(_IS_SIDECAR).find(1) >= 0:
        part = rows.rows(lo, hi)
        return failed, truncated, sum(hidden[r] for r in part if hidden[r] != NO_VALUE)
    stretch = hidden[first:stop]
    return failed, truncated, sum(stretch) - NO_VALUE * stretch.count(NO_VALUE)


def _bounds(n: int, buckets: int) -> list[tuple[int, int]]:
    """``[start, stop)`` positions of ``min(n, buckets)`` near-equal groups."""
    k = min(n, max(1, buckets))
    return [(i * n // k, (i + 1) * n // k) for i in range(k)] if n else []


def _facts(raw: RawLines, row: int) -> tuple[int | None, str | None] | None:
    """``(bytes produced, started_at)`` of a span row; None when its line no longer reads as
    a span (changed on disk since it was indexed)."""
    data = raw.line(row)
    if data is None:
        return None
    try:
        return produced_and_start(load_json(data))
    except NotASpan:
        return None


def _produced(index: RunIndex, raw: RawLines, row: int) -> tuple[int, int] | None:
    """``(bytes produced, bytes hidden)`` of a span when it records any byte count."""
    facts = _facts(raw, row)
    if facts is None or facts[0] is None:
        return None
    hidden = index.hidden[row]
    return facts[0], 0 if hidden == NO_VALUE else hidden


def _start(raw: RawLines, row: int) -> str | None:
    facts = _facts(raw, row)
    return None if facts is None else facts[1]


def buckets_of(index: RunIndex, buckets: int = BUCKETS) -> tuple[list[Bucket], bool]:
    """The run's buckets, and whether bytes produced are exact (True) or sampled (False)."""
    rows = _SpanRows(index)
    with RawLines(index) as raw:
        return _buckets(index, raw, rows, buckets), rows.count <= EXACT_LIMIT


def _buckets(index: RunIndex, raw: RawLines, rows: _SpanRows, buckets: int) -> list[Bucket]:
    exact = rows.count <= EXACT_LIMIT
    out: list[Bucket] = []
    for lo, hi in _bounds(rows.count, buckets):
        size = hi - lo
        failed, truncated, hidden_sum = _counts(index, rows, lo, hi)
        if exact:
            picked = rows.rows(lo, hi)
        else:
            step = size / SAMPLE_PER_BUCKET
            picked = (
                sorted({rows.row(lo + int(i * step)) for i in range(SAMPLE_PER_BUCKET)})
                if step > 1
                else rows.rows(lo, hi)
            )
        facts = [f for f in (_produced(index, raw, r) for r in picked) if f is not None]
        produced: int | None = None
        share: float | None = None
        if facts:
            got = sum(p for p, _h in facts)
            produced = got if exact else round(got * size / len(picked))
            seen_hidden = hidden_sum if exact else sum(h for _p, h in facts)
            share = min(1.0, seen_hidden / got) if got else 0.0
        first, last = rows.row(lo), rows.row(hi - 1)
        out.append(
            Bucket(
                first,
                last,
                size,
                failed,
                truncated,
                hidden_sum,
                produced,
                share,
                _start(raw, first),
                _start(raw, last),
            )
        )
    return out


def sparkline(values: Sequence[float | None], top: float | None = None) -> str:
    """One bar per value, scaled to ``top`` (default: the largest value).

    Zero is the lowest bar and any value above zero at least the second, so a single failure
    in a long run still shows; an unknown value is a space.
    """
    known = [v for v in values if v is not None]
    scale = top if top is not None else max(known, default=0)
    out = []
    for v in values:
        if v is None:
            out.append(" ")
        elif v <= 0 or scale <= 0:
            out.append(BARS[0])
        else:
            level = 1 + int(min(1.0, v / scale) * (len(BARS) - 2) + 0.5)
            out.append(BARS[min(level, len(BARS) - 1)])
    return "".join(out)


def trend_summary(indexes: RunIndex | Sequence[RunIndex], buckets: int = BUCKETS) -> dict[str, Any]:
    """The ``trend`` object for ``summary --json``: per-bucket series and their sparklines.

    Several runs are trended one after the other, in the order given (each bucketed on its own
    share of ``buckets``, by span count).
    """
    ixs = [indexes] if isinstance(indexes, RunIndex) else list(indexes)
    counts = [_span_count(ix) for ix in ixs]
    total = sum(counts)
    all_buckets: list[Bucket] = []
    exact = True
    for ix, n in zip(ixs, counts, strict=True):
        if not n:
            continue
        share_of = max(1, round(buckets * n / total)) if len(ixs) > 1 else buckets
        got, ok = buckets_of(ix, share_of)
        all_buckets.extend(got)
        exact = exact and ok
    shares = [b.hidden_share for b in all_buckets]
    failed = [b.failed for b in all_buckets]
    mean_size = [
        None if b.produced_bytes is None else b.produced_bytes / b.spans for b in all_buckets
    ]
    return {
        "buckets": len(all_buckets),
        "by": "position",
        "spans": [b.spans for b in all_buckets],
        "start": [b.start for b in all_buckets],
        "end": [b.end for b in all_buckets],
        "failed": failed,
        "truncated": [b.truncated for b in all_buckets],
        "hidden_bytes": [b.hidden_bytes for b in all_buckets],
        "produced_bytes": [b.produced_bytes for b in all_buckets],
        "hidden_share": [None if s is None else round(s, 4) for s in shares],
        "mean_response_bytes": [None if m is None else round(m) for m in mean_size],
        "produced_exact": exact,
        "sparklines": {
            "hidden_share": sparkline(shares, top=1.0),
            "failed": sparkline(failed),
            "response_bytes": sparkline(mean_size),
        },
    }
