"""Every lint rule, with a passing and a failing case each, asserting the exact findings."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from records import imported, tool

from tracetui.analysis.lint import RULES, lint_index
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

CUT = {
    "stdout_bytes": 9000,
    "stdout_cap": 8192,
    "stdout_truncated": True,
    "stdout_clip": "head",
    "stdout_sha256": None,
    "stdout_head_bytes": 8192,
    "ok_preview": False,
    "preview_stdout": "x" * 100 + "\n…[truncated 808 bytes]…\n",
}
FEED = {"command": ["make"], "stdout_tail": "", "stderr_tail": "", "exit_code": 0}

# (case id, records or raw lines, expected [(line, code)])
CASES: list[tuple[str, list[Any], list[tuple[int, str]]]] = [
    ("clean", [tool("a"), tool("b", parent_command_id="a")], []),
    (
        "TT001-missing",
        [{k: v for k, v in tool("a", exit_code=1).items() if k != "stderr_cap"}],
        [(1, "TT001")],
    ),
    (
        "TT001-only-that",
        [{**{k: v for k, v in tool("a").items() if k != "stdout_bytes"}, "exit_code": None}],
        [(1, "TT001")],
    ),
    ("TT001-not-for-feedback", [FEED], []),
    ("TT002-clipped-no-flag", [tool("a", stdout_bytes=9000, ok_preview=False)], [(1, "TT002")]),
    ("TT002-uncapped-is-fine", [tool("a", stdout_bytes=9000, stdout_cap=None)], []),
    (
        "TT003-flag-under-cap",
        [tool("a", stdout_truncated=True, stdout_sha256=None, ok_preview=False)],
        [(1, "TT003")],
    ),
    (
        "TT004-full-hash-on-clipped",
        [tool("a", **{**CUT, "stdout_sha256": "ab" * 32})],
        [(1, "TT004")],
    ),
    ("TT004-clipped-ok", [tool("a", **CUT)], []),
    ("TT005-ok-preview-truncated", [tool("a", **{**CUT, "ok_preview": True})], [(1, "TT005")]),
    ("TT006-ok-preview-failed", [tool("a", exit_code=2)], [(1, "TT006")]),
    ("TT006-null-exit", [tool("a", exit_code=None, error="x")], [(1, "TT006")]),
    ("TT007-null-exit-no-error", [tool("a", exit_code=None, ok_preview=False)], [(1, "TT007")]),
    (
        "TT007-null-exit-with-error",
        [tool("a", exit_code=None, error="not found", ok_preview=False)],
        [],
    ),
    (
        "TT008-preview-over-cap",
        [tool("a", stdout_cap=2, stdout_bytes=2, preview_stdout="hello")],
        [(1, "TT008"), (1, "TT009")],
    ),
    (
        "TT008-marker-not-counted",
        [tool("a", **{**CUT, "preview_stdout": "x" * 8192 + "\n…[truncated 808 bytes]…\n"})],
        [],
    ),
    (
        "TT009-bytes-below-preview",
        [tool("a", stdout_bytes=1, preview_stdout="hello")],
        [(1, "TT009")],
    ),
    (
        "TT009-binary-skipped",
        [tool("a", stdout_bytes=1, preview_stdout="\\x00\\x01", encoding="binary")],
        [],
    ),
    ("TT010-parent-not-in-set", [tool("b", parent_command_id="gone")], [(1, "TT010")]),
    (
        "TT011-cycle",
        [tool("a", parent_command_id="b"), tool("b", parent_command_id="a")],
        [(1, "TT011")],
    ),
    ("TT012-duplicate-id", [tool("a"), tool("a")], [(2, "TT012")]),
    ("TT013-bad-json", [tool("a"), "{nope\n"], [(2, "TT013")]),
    ("TT014-wrong-type", [tool("a", duration_ms="12")], [(1, "TT014")]),
    (
        "TT015-secret",
        [tool("a", preview_stdout="Authorization: Bearer abcdefgh12345678\n", stdout_bytes=39)],
        [(1, "TT015")],
    ),
    (
        "TT015-redacted-is-fine",
        [tool("a", preview_stdout="token=Bearer [REDACTED]\n", stdout_bytes=24, redacted=1)],
        [],
    ),
    (
        "TT016-invalid-utf8",
        [
            json.dumps(tool("a", preview_stdout="ab"))
            .replace('"ab"', '"a\udcff"')
            .encode("utf-8", "surrogateescape")
            + b"\n"
        ],
        [(1, "TT016")],
    ),
    (
        "TT017-marker-flag-false",
        [tool("a", preview_stdout="x\n…[truncated 5 bytes]…\n")],
        [(1, "TT017")],
    ),
    ("TT018-empty-run", [], [(0, "TT018")]),
    # The incident rules: one firing case each here, their twins in test_lint_incidents.py.
    ("TT019-failure-past-head", [tool("a", exit_code=1, **CUT)], [(1, "TT019")]),
    (
        "TT020-cut-of-unknown-size",
        [{**FEED, "stdout_tail": "...truncated 9 lines...\nok\n"}],
        [(1, "TT020")],
    ),
    (
        "TT021-blind-retry",
        [tool("a", **CUT), tool("b", parent_command_id="a", **CUT)],
        [(2, "TT021")],
    ),
    (
        "TT022-note-predicted-green",
        [tool("a", exit_code=1, ok_preview=False, agent_note="expect green")],
        [(1, "TT022")],
    ),
    (
        "TT023-no-result",
        [imported("a", exit_code=None, error="gone", result_missing=True)],
        [(1, "TT023")],
    ),
    (
        "TT024-marker-written",
        [
            imported(
                "a",
                tool_name="Write",
                argv=[
                    "Write",
                    json.dumps({"file_path": "f", "content": "x\n…[truncated 5 bytes]…\n"}),
                ],
            )
        ],
        [(1, "TT024")],
    ),
    (
        "TT025-failure-recorded-as-success",
        [imported("a", exit_code=2, source_ok=True, source_ok_field="is_error: false")],
        [(1, "TT025")],
    ),
]


@pytest.mark.parametrize(("lines", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rule(make_run: Any, lines: list[Any], expected: list[tuple[int, str]]) -> None:
    root = make_run({"B.jsonl": lines})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    assert [(i.line, i.code) for i in lint_index(ix)] == expected


def test_every_rule_has_a_failing_case() -> None:
    covered = {c[0].split("-")[0] for c in CASES}
    assert set(RULES) <= covered


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tracetui", "lint", *args], capture_output=True, text=True
    )


def test_cli_text_output_and_exit_codes(make_run: Any) -> None:
    root = make_run(
        {
            "B.jsonl": [
                tool("a", stdout_bytes=9000, ok_preview=False),
                tool("b", parent_command_id="zz"),
            ]
        }
    )
    path = str(root / "B.jsonl")
    out = run_cli(path)
    assert out.returncode == 1
    assert out.stdout.splitlines() == [
        f"{path}:1: TT002 stdout clipped without flag (stdout_bytes 9000 > stdout_cap 8192, stdout_truncated false)",
        f"{path}:2: TT010 parent 'zz' not in set (rotated away?)",
        "issues=2",
    ]


def test_cli_warnings_fail_only_with_strict(make_run: Any) -> None:
    root = make_run({"B.jsonl": [tool("b", parent_command_id="zz")]})
    assert run_cli(str(root)).returncode == 0
    assert run_cli(str(root), "--strict").returncode == 1


def test_cli_json(make_run: Any) -> None:
    root = make_run({"B.jsonl": [tool("a"), "oops\n"]})
    out = run_cli(str(root), "--format", "json")
    doc = json.loads(out.stdout)
    assert out.returncode == 1
    assert (doc["count"], doc["errors"], doc["warnings"]) == (1, 1, 0)
    assert doc["issues"][0]["code"] == "TT013" and doc["issues"][0]["line"] == 2


def test_cli_unusable_input_exits_2(tmp_path: Any) -> None:
    out = run_cli(str(tmp_path / "missing.jsonl"))
    assert out.returncode == 2
    assert "no such file or directory" in out.stderr and "Traceback" not in out.stderr
    assert run_cli().returncode == 2
