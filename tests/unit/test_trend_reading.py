"""The trend reads byte counts and start times without building spans: exactly the span's.

``trends._produced`` and ``trends._start`` read a row's line and take its fields through
``model.facts.produced_and_start``; the reference is what they replaced, the whole span
(``RunIndex.span``). Both are compared row by row on the sample runs, the agents' fixtures,
the scanner's edge lines and a generated hostile set (odd types in every field, bad lines,
escapes, invalid UTF-8), which makes every bucket equal too.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import test_lint_fast
import test_scan
from records import encode_line, tool

from tracetui.analysis import trends
from tracetui.analysis.raw_lines import RawLines
from tracetui.model.facts import produced_and_start
from tracetui.model.spans import NotASpan
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path


def reference(index: RunIndex, row: int) -> tuple[tuple[int, int] | None, str | None]:
    """What the trend read before: the whole span."""
    span = index.span(row)
    if span is None:
        return None, None
    known = [s.bytes for s in span.streams if s.bytes is not None]
    produced = (sum(known), span.hidden_bytes or 0) if known else None
    return produced, span.started_at


def assert_rows_alike(index: RunIndex) -> int:
    rows = trends.span_rows(index)
    assert trends._span_count(index) == len(rows)
    with RawLines(index) as raw:
        for row in rows:
            got = (trends._produced(index, raw, row), trends._start(raw, row))
            assert got == reference(index, row), f"row {row}"
    return len(rows)


def index_of(path: Path) -> RunIndex:
    return build_index(open_path(str(path))[0])


@pytest.mark.parametrize(
    "path", test_lint_fast.FIXTURE_PATHS, ids=[p.name for p in test_lint_fast.FIXTURE_PATHS]
)
def test_fixtures_read_alike(path: Path) -> None:
    assert_rows_alike(index_of(path))


def test_edge_lines_read_alike(tmp_path: Path) -> None:
    path = tmp_path / "B.jsonl"
    path.write_bytes(b"".join(encode_line(x) for x in test_scan.EDGE_LINES))
    assert assert_rows_alike(index_of(path)) > 0


def test_hostile_set_reads_alike(tmp_path: Path) -> None:
    rng = random.Random(1801)
    odd: list[Any] = [None, 0, 7, -1, 2.5, 3.0, 2**63, 2**70, 1e300, True, "12", [], {}]
    lines = []
    for i in range(1500):
        line = test_lint_fast.hostile_line(rng, i)
        if rng.random() < 0.3:  # odd byte counts and start times, as text after the record
            rec: dict[str, Any] = tool(f"o{i}")
            rec["stdout_bytes"] = rng.choice(odd)
            rec["stderr_bytes"] = rng.choice(odd)
            rec["started_at"] = rng.choice([*odd, "2026-11-02T09:00:00Z"])
            line = encode_line(rec)
        lines.append(line)
    (tmp_path / "B.jsonl.1").write_bytes(b"".join(lines[:700]))
    (tmp_path / "B.jsonl").write_bytes(b"".join(lines[700:]))
    assert assert_rows_alike(index_of(tmp_path / "B.jsonl")) > 1000


def test_a_line_changed_on_disk_reads_as_nothing(tmp_path: Path) -> None:
    path = tmp_path / "B.jsonl"
    path.write_bytes(encode_line(tool("a", stdout_bytes=5)) + encode_line(tool("b")))
    index = index_of(path)
    size = path.stat().st_size
    path.write_bytes(b"x" * size)  # same size, no longer JSON
    with RawLines(index) as raw:
        assert trends._produced(index, raw, 0) is None
        assert trends._start(raw, 0) is None


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"command": ["make"], "stdout_tail": "ok", "started_at": "t"}, (None, "t")),
        (tool("a", stdout_bytes=5, stderr_bytes=None, started_at=None), (5, None)),
        (tool("a", stdout_bytes=5, stderr_bytes=7, started_at=None), (12, None)),
        (tool("a", stdout_bytes="5", stderr_bytes=3.0, started_at=9), (3, "9")),
        (tool("a", stdout_bytes=True, stderr_bytes=2.5, started_at=None), (None, None)),
    ],
    ids=["feedback-no-counts", "one-stream", "both-streams", "odd-types", "no-integers"],
)
def test_produced_and_start(record: dict[str, Any], expected: tuple[Any, Any]) -> None:
    assert produced_and_start(record) == expected


@pytest.mark.parametrize("value", [None, [], "x", 3], ids=["null", "list", "str", "int"])
def test_not_a_span_is_refused_like_normalize(value: Any) -> None:
    with pytest.raises(NotASpan):
        produced_and_start(value)
