"""`summary --json` says how many spans' hidden bytes are unknown (it said 0 hidden, no more).

``hidden_bytes`` sums the known amounts; ``truncation_unknown`` counts the spans whose cut cannot
be told and ``hidden_bytes_unknown_spans`` those and the cuts of no stated size. Both additive.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from records import tool

from tracetui.analysis.summary import merge, summarize
from tracetui.commands.common import load_runs

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "sample_runs"))
import samplefacts  # noqa: E402

# A cut the record flags with no byte count: the agent lost some output, nobody says how much.
CUT_NO_SIZE = {"stdout_truncated": True, "stdout_bytes": None, "ok_preview": False}
FEEDBACK = {"command": ["make"], "stdout_tail": "x\n", "exit_code": 0}
CASES: list[tuple[str, list[Any], tuple[int, int, int, int]]] = [
    ("only-cut-unknown-size", [tool("a", **CUT_NO_SIZE)], (1, 0, 0, 1)),
    ("cut-unknown-and-known", [tool("a", **CUT_NO_SIZE), tool("b")], (1, 0, 0, 1)),
    ("truncation-unknown", [FEEDBACK], (0, 0, 1, 1)),
    ("both", [tool("a", **CUT_NO_SIZE), FEEDBACK], (1, 0, 1, 2)),
    ("nothing-unknown", [tool("a")], (0, 0, 0, 0)),
]


@pytest.mark.parametrize(("name", "records", "want"), CASES, ids=[c[0] for c in CASES])
def test_unknown_hidden_bytes_are_counted(
    tmp_path: Path, name: str, records: list[Any], want: tuple[int, int, int, int]
) -> None:
    (tmp_path / "run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    doc = summarize(load_runs([str(tmp_path / "run.jsonl")])[0])
    got = (
        doc["truncated"],
        doc["hidden_bytes"],
        doc["truncation_unknown"],
        doc["hidden_bytes_unknown_spans"],
    )
    assert got == want


@pytest.mark.parametrize("run", ["flaky-billing", "silent-json", "rotated"])
def test_the_samples_agree_with_their_published_facts(run: str) -> None:
    doc = summarize(load_runs([str(REPO / "sample_runs" / run)])[0])
    facts = samplefacts.run_facts(REPO / "sample_runs" / run, "feedback_record.jsonl")
    assert doc["hidden_bytes_unknown_spans"] == facts["hidden_bytes_unknown_spans"]
    assert doc["hidden_bytes"] == facts["hidden_bytes"]


def test_merge_sums_them() -> None:
    runs = [
        summarize(load_runs([str(REPO / "sample_runs" / r)])[0]) for r in ("rotated", "silent-json")
    ]
    doc = merge(runs)
    assert (doc["truncation_unknown"], doc["hidden_bytes_unknown_spans"]) == (7, 14)
