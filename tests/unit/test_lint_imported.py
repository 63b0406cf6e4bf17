"""Lint on other agents' traces: the bundled fixtures of every format give exactly the findings
a reviewer would expect (no contract noise), and the importers' fields behind TT023 and TT025
come from the real formats."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tracetui.analysis.lint import lint_index
from tracetui.analysis.suspicions import CODES, count_suspicions
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

AGENTS = Path(__file__).resolve().parents[1] / "data" / "agents"

# (fixture, expected [(line, code)]): what lint finds in each, in order.
FIXTURES = [
    ("claude_broken.jsonl", []),
    ("claude_session.jsonl", [(13, "TT023")]),  # `sleep 600`: the session ended first
    ("codex_exec.jsonl", [(7, "TT023")]),  # `sleep 600`: no completion event
    ("rollout-2025-09-10T09-00-00-0199a300.jsonl", []),
    ("inspect_log.eval", []),
    ("inspect_log.json", []),
    ("mini_v1.traj.json", []),
    ("mini_v2.traj.json", []),
    # A marker without a count and no stored full output: two of instance 1, one of instance 2.
    ("openhands_output.jsonl", [(1, "TT020"), (1, "TT020"), (2, "TT020")]),
    ("swe_agent.traj", [(2, "TT020")]),  # "(400 more lines below)" counts lines, not bytes
    ("swe_agent_cut.traj", [(0, "TT018")]),  # not valid JSON: nothing imported
    ("openhands_v1_conv", []),  # the SDK's events/ folder: its first eight events
    # Two clip notices that state no count; the call the conversation error left unanswered.
    ("openhands_v1_events.json", [(10, "TT020"), (12, "TT020"), (25, "TT023")]),
    ("swe_agent_v1.traj", []),
    ("swe_agent_v1_limit.traj", []),
]


def lint_file(path: Path) -> tuple[list[Any], Any]:
    ix = build_index(open_path(str(path))[0])
    return lint_index(ix), ix


@pytest.mark.parametrize(("name", "expected"), FIXTURES, ids=[f[0] for f in FIXTURES])
def test_fixture_findings(name: str, expected: list[tuple[int, str]]) -> None:
    issues, ix = lint_file(AGENTS / name)
    assert [(i.line, i.code) for i in issues] == expected
    per_code = Counter(i.code for i in issues if i.code in CODES)
    assert count_suspicions(ix) == {code: per_code[code] for code in CODES}


def test_every_trace_fixture_is_listed() -> None:
    traces = {p.name for p in AGENTS.iterdir() if p.suffix not in (".py", ".txt")}
    assert traces == {f[0] for f in FIXTURES}


def claude(result: str | None, is_error: bool | None) -> list[dict[str, Any]]:
    """A Claude Code session: a Bash call (line 1) and, unless None, its result (line 2)."""
    base = {"sessionId": "s1", "cwd": "/work", "timestamp": "2026-01-01T00:00:00Z"}
    use = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "make"}}
    lines = [{**base, "type": "assistant", "uuid": "u1", "message": {"content": [use]}}]
    if result is not None:
        res: dict[str, Any] = {"type": "tool_result", "tool_use_id": "toolu_1", "content": result}
        if is_error is not None:
            res["is_error"] = is_error
        lines.append({**base, "type": "user", "uuid": "u2", "message": {"content": [res]}})
    return lines


def codex(code: int | None, status: str | None) -> list[dict[str, Any]]:
    """A Codex exec stream: one command started (line 2) and, unless status is None, done."""
    item = {"id": "item_0", "type": "command_execution", "command": "make test"}
    lines = [
        {"type": "thread.started", "thread_id": "t1"},
        {"type": "item.started", "item": {**item, "status": "in_progress"}},
    ]
    if status is not None:
        done = {**item, "aggregated_output": "x\n", "exit_code": code, "status": status}
        lines.append({"type": "item.completed", "item": done})
    return lines


# (case id, trace lines, expected [(line, code, message)])
SESSIONS = [
    (
        "claude-is-error-false-beside-exit-2",
        claude("Exit code 2\nmake: *** [all] Error 2", False),
        [(1, "TT025", "is_error: false marks the call successful, but it exited 2")],
    ),
    ("claude-is-error-true-beside-exit-2", claude("Exit code 2\nmake: *** Error 2", True), []),
    ("claude-no-is-error", claude("Exit code 2\nmake: *** Error 2", None), []),
    (
        "claude-no-result",
        claude(None, None),
        [(1, "TT023", "the Bash call has no result (the session ended or it was lost)")],
    ),
    (
        "codex-completed-exit-1",
        codex(1, "completed"),
        [(2, "TT025", "status: completed marks the call successful, but it exited 1")],
    ),
    ("codex-failed-exit-1", codex(1, "failed"), []),
    (
        "codex-no-completion",
        codex(None, None),
        [(2, "TT023", "the shell call has no result (the session ended or it was lost)")],
    ),
]


@pytest.mark.parametrize(
    ("lines", "expected"), [s[1:] for s in SESSIONS], ids=[s[0] for s in SESSIONS]
)
def test_session_findings(
    make_run: Any, lines: list[dict[str, Any]], expected: list[tuple]
) -> None:
    root = make_run({"session.jsonl": lines})
    issues, ix = lint_file(root / "session.jsonl")
    assert ix.run.source_format is not None  # read through its importer
    assert [(i.line, i.code, i.message) for i in issues] == expected
