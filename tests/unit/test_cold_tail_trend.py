"""The trend finds its buckets' rows by position (``trends._SpanRows``), without the list of
every span row: the same rows and the same ``trend`` object as the list gave.

The reference is the bucketing as it was (the rows of :func:`trends.span_rows`, sliced), kept
here; both are compared on the sample runs, the agents' fixtures, runs with bad lines and a
re-run sidecar, a hostile generated set, several runs at once and many bucket counts.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import test_lint_fast
from records import encode_line, tool

from tracetui.analysis import trends
from tracetui.analysis.raw_lines import RawLines
from tracetui.model.flags import NO_VALUE, SIDECAR
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path


def _reference_buckets(index: RunIndex, buckets: int) -> list[trends.Bucket]:
    """The buckets as the list of span rows made them (the code before)."""
    rows = trends.span_rows(index)
    exact = len(rows) <= trends.EXACT_LIMIT
    out = []
    with RawLines(index) as raw:
        for lo, hi in trends._bounds(len(rows), buckets):
            part = rows[lo:hi]
            first, stop = part[0], part[-1] + 1
            flags = index.flags[first:stop].tobytes()
            failed = flags.translate(trends._IS_FAILED).count(1)
            truncated = flags.translate(trends._IS_TRUNCATED).count(1)
            hidden = index.hidden
            if any(v & SIDECAR for v in set(flags)):
                hidden_sum = sum(hidden[r] for r in part if hidden[r] != NO_VALUE)
            else:
                stretch = hidden[first:stop]
                hidden_sum = sum(stretch) - NO_VALUE * stretch.count(NO_VALUE)
            step = len(part) / trends.SAMPLE_PER_BUCKET
            if exact or step <= 1:
                picked = part
            else:
                picked = sorted({part[int(i * step)] for i in range(trends.SAMPLE_PER_BUCKET)})
            facts = [f for f in (trends._produced(index, raw, r) for r in picked) if f]
            produced = share = None
            if facts:
                got = sum(p for p, _h in facts)
                produced = got if exact else round(got * len(part) / len(picked))
                seen = hidden_sum if exact else sum(h for _p, h in facts)
                share = min(1.0, seen / got) if got else 0.0
            out.append(
                trends.Bucket(
                    part[0],
                    part[-1],
                    len(part),
                    failed,
                    truncated,
                    hidden_sum,
                    produced,
                    share,
                    trends._start(raw, part[0]),
                    trends._start(raw, part[-1]),
                )
            )
    return out


def assert_alike(index: RunIndex) -> None:
    positions = trends._SpanRows(index)
    assert positions.rows(0, positions.count) == trends.span_rows(index)
    for buckets in (1, 3, 40, 41, 1000):
        got, _exact = trends.buckets_of(index, buckets)
        assert got == _reference_buckets(index, buckets), f"{buckets} buckets"


def index_of(path: Path) -> RunIndex:
    return build_index(open_path(str(path))[0])


@pytest.mark.parametrize(
    "path", test_lint_fast.FIXTURE_PATHS, ids=[p.name for p in test_lint_fast.FIXTURE_PATHS]
)
def test_fixtures_bucket_alike(path: Path) -> None:
    assert_alike(index_of(path))


def _records(rng: random.Random, n: int, bad_share: float) -> list[bytes]:
    lines = []
    for i in range(n):
        if rng.random() < bad_share:
            lines.append(b"{not json\n")
            continue
        lines.append(
            encode_line(
                tool(
                    f"c{i}",
                    exit_code=rng.choice([0, 0, 1]),
                    stdout_bytes=rng.choice([None, 0, 10, 5000]),
                    stdout_truncated=rng.random() < 0.3,
                    stdout_cap=100,
                    started_at=f"2026-12-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z",
                )
            )
        )
    return lines


@pytest.mark.parametrize(
    ("spans", "bad_share", "sidecar"),
    [
        (50, 0.0, False),
        (900, 0.2, False),
        (900, 0.9, False),
        (6000, 0.01, False),
        (6000, 0.3, True),
        (7000, 0.0, True),
    ],
    ids=["small", "bad-lines", "mostly-bad", "sampled", "sampled-sidecar", "sampled-clean"],
)
def test_generated_runs_bucket_alike(
    tmp_path: Path, spans: int, bad_share: float, sidecar: bool
) -> None:
    rng = random.Random(spans + int(bad_share * 100))
    lines = _records(rng, spans, bad_share)
    if bad_share:
        lines.insert(0, b"{also bad\n")  # a bad line first and last
        lines.append(b"[]\n")
    cut = len(lines) // 3
    (tmp_path / "B.jsonl.1").write_bytes(b"".join(lines[:cut]))
    (tmp_path / "B.jsonl").write_bytes(b"".join(lines[cut:]))
    if sidecar:
        reruns = [encode_line(tool(f"r{i}", exit_code=1, stdout_bytes=9)) for i in range(30)]
        (tmp_path / "B.jsonl.reruns.jsonl").write_bytes(b"".join(reruns))
    index = index_of(tmp_path / "B.jsonl")
    if sidecar:
        assert any(f & SIDECAR for f in index.flags.tobytes())
    assert_alike(index)


def test_hostile_set_buckets_alike(tmp_path: Path) -> None:
    rng = random.Random(1812)
    lines = [test_lint_fast.hostile_line(rng, i) for i in range(6500)]
    (tmp_path / "B.jsonl").write_bytes(b"".join(lines))
    assert_alike(index_of(tmp_path / "B.jsonl"))


def test_several_runs_trend_as_before(tmp_path: Path) -> None:
    """trend_summary over several runs: each run's share of the buckets, as before."""
    rng = random.Random(7)
    indexes = []
    for k, n in enumerate((30, 6100, 800)):
        folder = tmp_path / f"run{k}"
        folder.mkdir()
        (folder / "B.jsonl").write_bytes(b"".join(_records(rng, n, 0.05)))
        indexes.append(index_of(folder / "B.jsonl"))
    got = trends.trend_summary(indexes)
    expected: list[Any] = []
    counts = [trends._span_count(ix) for ix in indexes]
    for ix, n in zip(indexes, counts, strict=True):
        share = max(1, round(trends.BUCKETS * n / sum(counts)))
        expected.extend(_reference_buckets(ix, share))
    assert got["spans"] == [b.spans for b in expected]
    assert got["hidden_bytes"] == [b.hidden_bytes for b in expected]
    assert got["produced_bytes"] == [b.produced_bytes for b in expected]
    assert got["start"] == [b.start for b in expected]
    assert got["end"] == [b.end for b in expected]
