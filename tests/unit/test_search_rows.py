"""Search matching, row views (filters as arrays of rows) and list-cell formatting."""

from __future__ import annotations

import os

import pytest

from tracetui.analysis.rows import (
    RowView,
    banner,
    fmt_duration,
    fmt_size,
    fmt_time,
    items_note,
    never_shown,
    row_cells,
    share,
)
from tracetui.analysis.search import matcher
from tracetui.model.flags import FAILED, TRUNCATED
from tracetui.model.spans import normalize
from tracetui.store.build import build_index
from tracetui.store.reader import BadLine
from tracetui.store.runset import open_paths

FLAKY = os.path.join(os.path.dirname(__file__), "..", "ui", "data", "flaky")


@pytest.fixture(scope="module")
def index():  # type: ignore[no-untyped-def]
    return build_index(open_paths([FLAKY])[0])


SIZES = [
    ("zero", 0, "0"),
    ("small", 999, "999"),
    ("kib", 1000, "1.0K"),
    ("9.8k", 10_000, "9.8K"),
    ("16k", 16_384, "16K"),
    ("mib", 1_500_000, "1.4M"),
    ("unknown", None, "?"),
]


@pytest.mark.parametrize(("n", "want"), [c[1:] for c in SIZES], ids=[c[0] for c in SIZES])
def test_fmt_size(n: int | None, want: str) -> None:
    assert fmt_size(n) == want


DURS = [
    ("ms", 41, "41ms"),
    ("secs", 3060, "3.1s"),
    ("tens", 14210, "14s"),
    ("minutes", 600_000, "10m00"),
    ("hours", 7_500_000, "2h05"),
    ("unknown", None, "?"),
]


@pytest.mark.parametrize(("ms", "want"), [c[1:] for c in DURS], ids=[c[0] for c in DURS])
def test_fmt_duration(ms: float | None, want: str) -> None:
    assert fmt_duration(ms) == want


TIMES = [
    ("rfc3339", "2026-03-14T09:06:00.000Z", "09:06:00"),
    ("space", "2026-03-14 09:06:01", "09:06:01"),
    ("none", None, "?"),
    ("escape", "2026-03-14T\x1b[2J:00", "␛[2J:00"),
]


@pytest.mark.parametrize(("value", "want"), [c[1:] for c in TIMES], ids=[c[0] for c in TIMES])
def test_fmt_time(value: str | None, want: str) -> None:
    assert fmt_time(value) == want


def test_share() -> None:
    assert [share(15926, 24118), share(1, 1000), share(0, 10), share(5, None)] == [
        "66%",
        "<1%",
        "",
        "",
    ]


def _span(**extra):  # type: ignore[no-untyped-def]
    base = {
        "schema": "tracetui/1",
        "argv": ["pytest"],
        "exit_code": 1,
        "stdout_bytes": 24118,
        "stdout_cap": 8192,
        "stdout_truncated": True,
        "stderr_bytes": 0,
        "stderr_cap": 8192,
        "stderr_truncated": False,
        "preview_stdout": "x\n…[truncated 15926 bytes]…\n",
        "agent_note": "expect green",
    }
    base.update(extra)
    return normalize(base)


def test_stream_verdicts() -> None:
    span = _span(stdout_items=50, preview_stdout_items=20)
    assert never_shown(span.stdout) == "15,926 bytes (66%) never shown"
    assert banner(span.stdout) == "15,926 bytes the agent never saw"
    assert items_note(span.stdout) == "50 items at source, 20 shown"
    assert never_shown(span.stderr) == "none: all bytes shown"
    feedback = normalize({"command": ["make"], "stdout_tail": "ok", "exit_code": 0})
    assert never_shown(feedback.stdout) == "truncation unknown (no byte counts in this dialect)"


QUERIES = [
    ("argv", "pytest", True),
    ("note-lower", "EXPECT", False),
    ("note-smart-case", "expect", True),
    ("preview", "truncated 15926", True),
    ("miss", "rounding", False),
    ("empty", "", False),
]


@pytest.mark.parametrize(("query", "hit"), [c[1:] for c in QUERIES], ids=[c[0] for c in QUERIES])
def test_matcher(query: str, hit: bool) -> None:
    assert matcher(query)(_span()) is hit


def test_matcher_on_bad_lines() -> None:
    bad = BadLine("run.jsonl", 3, 0, "invalid JSON: unexpected end", '{"argv": [')
    assert matcher("unexpected")(bad) and matcher("run.jsonl:3")(bad) and not matcher("zzz")(bad)


VIEWS = [
    ("all", 0, list(range(12))),
    ("failed", FAILED, [1, 2, 6, 8, 10]),
    ("truncated", TRUNCATED, [1, 2, 3, 7, 8, 10]),
]


@pytest.mark.parametrize(("mask", "rows"), [c[1:] for c in VIEWS], ids=[c[0] for c in VIEWS])
def test_row_view(index, mask: int, rows: list[int]) -> None:  # type: ignore[no-untyped-def]
    view = RowView(index, mask)
    assert [view.row_at(p) for p in range(len(view))] == rows
    assert view.pos_of(rows[-1]) == len(rows) - 1
    assert view.nearest_pos(rows[-1]) == len(rows) - 1


FINDS = [
    ("failed-next", FAILED, 0, 1, 1),
    ("failed-prev", FAILED, 10, -1, 8),
    ("failed-none-after", FAILED, 10, 1, None),
    ("trunc-next", TRUNCATED, 3, 1, 7),
]


@pytest.mark.parametrize(
    ("mask", "start", "step", "want"), [c[1:] for c in FINDS], ids=[c[0] for c in FINDS]
)
def test_find_in_all_rows(index, mask, start, step, want) -> None:  # type: ignore[no-untyped-def]
    assert RowView(index).find(start, mask, step) == want


def test_find_and_search_in_a_filter(index) -> None:  # type: ignore[no-untyped-def]
    view = RowView(index, FAILED)  # rows 1, 2, 6, 8, 10
    assert view.find(0, TRUNCATED, 1) == 1  # position 1 is row 2
    assert view.find(4, TRUNCATED, 1, wrap=True) == 0
    assert view.pos_of(3) is None and view.nearest_pos(3) == 2
    hits = view.search(4, lambda row: row in (2, 8))
    assert hits == 1


def test_row_cells(index) -> None:  # type: ignore[no-untyped-def]
    cells = row_cells(index, 10, index.get(10))
    assert [c.text for c in cells] == [
        "09:06:00",
        "0010",
        "1",
        "3.0s",
        "6.6K/2.0K",
        "0/2.0K",
        "✂",
        "python -m pytest tests/billing/test_rounding.py",
    ]
    assert cells[2].style == "failed"
    null = row_cells(index, 8, index.get(8))
    assert (null[2].text, null[2].style, null[4].text) == ("ERR", "null", "?")
    bad = row_cells(index, 4, index.get(4))
    assert bad[2].text == "BAD" and bad[-1].text.startswith("feedback_record.jsonl:1  ")
    esc = row_cells(index, 9, index.get(9))
    assert esc[-1].text == "echo ␛]0;pwned␇"


ROW_QUERIES = [
    ("argv-ascii", "rounding", [0, 1, 10, 11]),
    ("argv-across-elements", "pytest tests/billing -x -q --lf", [6]),
    ("argv-element-boundary", "m pyt", [1, 2, 5, 6, 10]),
    ("smart-case", "ROUNDING", []),
    ("note-with-slash", "tests/billing/test_rounding.py", [10]),
    ("non-ascii-marker", "…[truncated", [1, 2, 7, 10]),
    ("escaped-title", "␛]0;pwned", []),
    ("bad-line-reason", "malformed", [4]),
]


@pytest.mark.parametrize(
    ("query", "rows"), [c[1:] for c in ROW_QUERIES], ids=[c[0] for c in ROW_QUERIES]
)
def test_row_matcher_raw_prefilter_agrees_with_parsing(index, query, rows) -> None:  # type: ignore[no-untyped-def]
    from tracetui.analysis.search import row_matcher

    found = [r for r in range(len(index)) if row_matcher(index, query)(r)]
    assert found == rows
    assert found == [r for r in range(len(index)) if matcher(query)(index.get(r))]
