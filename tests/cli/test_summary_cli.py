"""`tracetui summary` through the real entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from records import tool


def summary(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tracetui", "summary", *args], capture_output=True, text=True
    )


def test_summary_json_facts(make_run: Any) -> None:
    cut = {
        "stdout_bytes": 24000,
        "stdout_truncated": True,
        "stdout_sha256": None,
        "stdout_clip": "head",
        "ok_preview": False,
    }
    root = make_run(
        {
            "B.jsonl.2.gz": [tool("a", exit_code=1, **cut)],
            "B.jsonl.1": [tool("b", parent_command_id="a", exit_code=1, **cut), "not json\n"],
            "B.jsonl": [
                tool("c", parent_command_id="b"),
                tool("d", exit_code=None, error="spawn failed", ok_preview=False),
                {"command": ["make"], "stdout_tail": "x\n", "exit_code": 0},
            ],
        }
    )
    out = summary(str(root), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    error = doc["bad_lines"][0].pop("error")
    trend = doc.pop("trend")  # its figures are tested in tests/unit/test_trends.py
    assert trend["sparklines"].keys() == {"hidden_share", "failed", "response_bytes"}
    assert error.startswith("malformed JSON at column 1: ")  # the detail is the JSON parser's own
    base = str(root / "B.jsonl")
    assert doc == {
        "files": [base + ".2.gz", base + ".1", base],
        "spans": 5,
        "bad_lines": [{"file": base + ".1", "line": 2}],
        "failed": 3,
        "exit_unknown": 0,
        "truncated": 2,
        "hidden_bytes": 2 * (24000 - 8192),
        # The feedback record (no marker, no byte counts): whether it was cut cannot be told.
        "truncation_unknown": 1,
        "hidden_bytes_unknown_spans": 1,
        "latest_failure": {
            "command_id": "d",
            "argv": ["echo", "hi"],
            "exit_code": None,
            "file": base,
            "line": 2,
        },
        "chains": [{"root": "a", "attempts": ["a", "b", "c"], "final_exit_code": 0}],
        # a and b failed with only the head of their output seen; b retried a blind.
        "suspicions": {
            "TT019": 2,
            "TT020": 0,
            "TT021": 1,
            "TT022": 0,
            "TT023": 0,
            "TT024": 0,
            "TT025": 0,
        },
    }


def test_summary_missing_path_is_exit_2_without_traceback(tmp_path: Any) -> None:
    out = summary(str(tmp_path / "nope"), "--json")
    assert out.returncode == 2
    assert out.stderr.strip() == f"tracetui: {tmp_path / 'nope'}: no such file or directory"


def test_summary_text(make_run: Any) -> None:
    root = make_run({"B.jsonl": [tool("a", exit_code=2, ok_preview=False)]})
    out = summary(str(root))
    assert "failed      1" in out.stdout
    assert "latest failure  exit 2  echo hi" in out.stdout
