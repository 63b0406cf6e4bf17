"""Trends over a run: buckets by position, exact and sampled bytes, sparklines."""

from __future__ import annotations

from typing import Any

import pytest
from records import tool

from tracetui.analysis import trends
from tracetui.store.build import build_index
from tracetui.store.runset import open_path


def span(
    cid: str, nbytes: int, hidden: int = 0, exit_code: int = 0, at: str | None = None
) -> dict[str, Any]:
    """A span producing ``nbytes`` on stdout, of which ``hidden`` were withheld by a head cap."""
    fields: dict[str, Any] = {"stdout_bytes": nbytes, "exit_code": exit_code, "started_at": at}
    if hidden:
        fields.update(
            stdout_cap=nbytes - hidden,
            stdout_truncated=True,
            stdout_clip="head",
            stdout_sha256=None,
        )
    return tool(cid, **fields)


# Eight spans with known numbers; in four buckets of two:
#   bucket 1: 100 + 100 bytes, nothing hidden, no failure
#   bucket 2: 1000 bytes with 600 hidden (failed) + 200 bytes
#   bucket 3: 400 + 400 bytes, 400 hidden on one, both failed
#   bucket 4: 50 + 50 bytes
RUN = [
    span("s1", 100, at="2026-11-02T09:00:00Z"),
    span("s2", 100, at="2026-11-02T09:01:00Z"),
    span("s3", 1000, 600, exit_code=1, at="2026-11-02T09:02:00Z"),
    span("s4", 200, at="2026-11-02T09:03:00Z"),
    span("s5", 400, 400, exit_code=2),
    span("s6", 400, exit_code=1),
    span("s7", 50, at="2026-11-02T09:06:00Z"),
    span("s8", 50, at="2026-11-02T09:07:00Z"),
]


def index_of(make_run: Any, records: list[Any], sidecar: list[Any] | None = None) -> Any:
    members: dict[str, list[Any]] = {"B.jsonl": records}
    if sidecar:
        members["B.jsonl.reruns.jsonl"] = sidecar
    root = make_run(members)
    return build_index(open_path(str(root / "B.jsonl"))[0])


def test_trend_figures_on_known_numbers(make_run: Any) -> None:
    # A bad line and a sidecar re-run are not spans of the trace: they move no bucket.
    ix = index_of(
        make_run, [*RUN[:4], "{not json\n", *RUN[4:]], sidecar=[span("r1", 9999, exit_code=1)]
    )
    got = trends.trend_summary(ix, buckets=4)
    assert got == {
        "buckets": 4,
        "by": "position",
        "spans": [2, 2, 2, 2],
        "start": ["2026-11-02T09:00:00Z", "2026-11-02T09:02:00Z", None, "2026-11-02T09:06:00Z"],
        "end": ["2026-11-02T09:01:00Z", "2026-11-02T09:03:00Z", None, "2026-11-02T09:07:00Z"],
        "failed": [0, 1, 2, 0],
        "truncated": [0, 1, 1, 0],
        "hidden_bytes": [0, 600, 400, 0],
        "produced_bytes": [200, 1200, 800, 100],
        "hidden_share": [0.0, 0.5, 0.5, 0.0],
        "mean_response_bytes": [100, 600, 400, 50],
        "produced_exact": True,
        "sparklines": {"hidden_share": "▁▅▅▁", "failed": "▁▅█▁", "response_bytes": "▃█▆▃"},
    }


def test_fewer_spans_than_buckets_and_empty_run(make_run: Any) -> None:
    ix = index_of(make_run, RUN[:3])
    got = trends.trend_summary(ix, buckets=40)
    assert got["buckets"] == 3 and got["spans"] == [1, 1, 1]
    assert got["sparklines"]["failed"] == "▁▁█"
    empty = index_of(make_run, ["{bad\n"])
    got = trends.trend_summary(empty)
    assert got["buckets"] == 0 and got["sparklines"] == {
        "hidden_share": "",
        "failed": "",
        "response_bytes": "",
    }


def test_sampled_bytes_above_the_exact_limit(
    make_run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(trends, "EXACT_LIMIT", 4)
    monkeypatch.setattr(trends, "SAMPLE_PER_BUCKET", 1)
    ix = index_of(make_run, RUN)
    got = trends.trend_summary(ix, buckets=2)
    # One span read per bucket of four (the first), its size times four.
    assert got["produced_exact"] is False
    assert got["produced_bytes"] == [400, 1600]
    # Hidden bytes stay exact (an index column); the share is taken over the sample alone.
    assert got["hidden_bytes"] == [600, 400]
    assert got["hidden_share"] == [0.0, 1.0]


def test_several_runs_share_the_buckets(make_run: Any) -> None:
    a = index_of(make_run, RUN[:6])
    b = build_index(open_path(str(make_run({"C.jsonl": RUN[6:]}, folder="other") / "C.jsonl"))[0])
    got = trends.trend_summary([a, b], buckets=4)
    # Six spans get three of the four buckets, two spans the last one.
    assert got["spans"] == [2, 2, 2, 2]
    assert got["failed"] == [0, 1, 2, 0]


@pytest.mark.parametrize(
    ("values", "top", "want"),
    [
        ([0, 1, 2, 4], None, "▁▄▅█"),
        ([0.0, 0.5, 1.0], 1.0, "▁▅█"),
        ([0, 0, 0], None, "▁▁▁"),
        ([None, 3, 0], None, " █▁"),
        ([1, 1000], None, "▂█"),
        ([], None, ""),
    ],
    ids=[
        "linear",
        "fixed-top",
        "all-zero",
        "unknown-is-space",
        "small-nonzero-still-shows",
        "empty",
    ],
)
def test_sparkline(values: list[Any], top: float | None, want: str) -> None:
    assert trends.sparkline(values, top) == want
