"""peek_index: the newest rows of a run, quickly, matching the full index row for row."""

from __future__ import annotations

from typing import Any

from records import tool

from tracetui.store.build import build_index, peek_index
from tracetui.store.runset import open_path


def test_peek_matches_the_tail_of_the_full_index(make_run: Any) -> None:
    recs = [tool(f"r{i}", exit_code=i % 7, preview_stdout="z" * (i % 300)) for i in range(2000)]
    root = make_run({"B.jsonl.1": recs[:1000], "B.jsonl": recs[1000:]})
    run = open_path(str(root / "B.jsonl"))[0]
    peek = peek_index(run, tail_bytes=20_000)
    full = build_index(run)
    assert peek is not None and peek.partial and 0 < len(peek) < 1000
    tail = range(len(full) - len(peek), len(full))
    assert peek.ids == [full.ids[r] for r in tail]
    assert list(peek.offset) == [full.offset[r] for r in tail]
    assert list(peek.flags) == [full.flags[r] for r in tail]
    assert peek.ids[peek.latest_failure] == full.ids[full.latest_failure]


def test_small_run_peeks_whole(make_run: Any) -> None:
    root = make_run({"B.jsonl": [tool("a"), tool("b")]})
    peek = peek_index(open_path(str(root / "B.jsonl"))[0])
    assert peek is not None and peek.ids == ["a", "b"]


def test_no_peek_into_gzip_or_imported(make_run: Any) -> None:
    root = make_run({"B.jsonl.gz": [tool("a")]})
    assert peek_index(open_path(str(root / "B.jsonl.gz"))[0]) is None


def test_row_at_carries_a_peek_selection_to_the_full_index(make_run: Any) -> None:
    recs = [tool(f"r{i}") for i in range(300)]
    root = make_run({"B.jsonl.2": recs[:100], "B.jsonl.1": recs[100:200], "B.jsonl": recs[200:]})
    run = open_path(str(root / "B.jsonl"))[0]
    peek, full = peek_index(run, tail_bytes=5000), build_index(run)
    assert peek is not None
    for prow in (0, len(peek) - 1):
        path, _ = peek.location(prow)
        row = full.row_at(path, peek.offset[prow])
        assert row is not None and full.ids[row] == peek.ids[prow]
    assert full.row_at(str(root / "B.jsonl"), 1) is None
    assert full.row_at("elsewhere.jsonl", 0) is None
