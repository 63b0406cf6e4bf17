"""Other agents' traces through the public path: open_path → build_index → span(row).

Fixtures are in tests/data/agents (built by make_fixtures.py from each documented format). Each
case lists every span expected, in order: (command id, argv, exit, truncated, clip, hidden bytes).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from tracetui.importers import sniff
from tracetui.store import build as build_mod
from tracetui.store import index as index_mod
from tracetui.store import runset

AGENTS = os.path.join(os.path.dirname(__file__), os.pardir, "data", "agents")
ROLLOUT = "rollout-2025-09-10T09-00-00-0199a300.jsonl"
B = ["bash", "-lc"]
IB = ["bash", "--login", "-c"]

# (fixture, format, [(id, argv, exit, truncated, clip, hidden stdout bytes)]): None = unknown
CASES: list[
    tuple[str, str, list[tuple[str, list[str], int | None, bool | None, str | None, int | None]]]
] = [
    (
        "claude_session.jsonl",
        "claude-code",
        [
            ("toolu_01", [*B, "pytest -q tests/test_checkout.py"], 1, False, None, 0),
            ("toolu_02", [*B, "npm run build"], None, False, None, 0),
            ("toolu_03", [*B, "cat logs/checkout.log"], 0, True, "head_tail", 6645),
            ("toolu_04", [*B, "grep -rn total src/"], 0, True, "head", 85401),
            (
                "toolu_05",
                ["Read", '{"file_path": "/home/dev/shop/src/cart.py"}'],
                0,
                False,
                None,
                0,
            ),
            ("toolu_06", [*B, "sleep 600"], None, None, None, None),
        ],
    ),
    (
        "swe_agent.traj",
        "swe-agent",
        [
            # SWE-agent records no exit codes: a step without a failure sign is exit unknown
            ("step-1", [*B, "ls"], None, False, None, 0),
            ("step-2", [*B, "python reproduce.py"], None, False, None, 0),
            ("step-3", [*B, "open src/big.py"], None, True, "head", None),
            ("step-4", [*B, "cat data.json"], None, True, "head", 20),
            ("step-5", [*B, "pytest tests/"], None, False, None, 0),
            ("step-6", [*B, "submit"], None, False, None, 0),
        ],
    ),
    (
        "mini_v2.traj.json",
        "mini-swe-agent",
        [
            ("call_1", [*B, "ls -la"], 0, False, None, 0),
            ("call_2", [*B, "python gen.py"], 0, True, "head_tail", 12000),
            ("call_3", [*B, "make test"], 2, False, None, 0),
        ],
    ),
    (
        "mini_v1.traj.json",
        "mini-swe-agent",
        [
            ("step-1", [*B, "ls"], 0, False, None, 0),
            (
                "step-2",
                [*B, "cat huge.txt"],
                0,
                True,
                "head_tail",
                12000,
            ),  # "12000 characters elided": a lower bound
            ("step-3", [*B, "sleep 999"], None, False, None, 0),
            ("step-4", [*B, "grep -r foo ."], 1, False, None, 0),
        ],
    ),
    (
        "openhands_output.jsonl",
        "openhands",
        [
            ("django__django-11099:1", [*B, "ls"], 0, None, None, None),
            ("django__django-11099:3", [*B, "python -m pytest tests/forms"], 1, None, None, None),
            ("django__django-11099:5", [*B, "python -m http.server 8000"], None, None, None, None),
            ("django__django-11099:7", [*B, "C-c"], 130, True, "tail", None),
            (
                "django__django-11099:9",
                ["read", '{"path": "/workspace/django/big.py", "thought": "Read the module."}'],
                0,
                True,
                "head",
                None,
            ),
            ("astropy__astropy-12907:1", [*B, "cat build.log"], 0, True, "head_tail", None),
            ("astropy__astropy-12907:3", [*B, "false"], 1, None, None, None),
            (
                "astropy__astropy-12907:5",
                ["edit", '{"content": "x = 1\\n", "path": "/workspace/missing.py"}'],
                None,
                None,
                None,
                None,
            ),
        ],
    ),
    (
        "codex_exec.jsonl",
        "codex",
        [
            ("item_0", ["/bin/bash", "-lc", "ls -la"], 0, None, None, None),
            ("item_1", ["/bin/bash", "-lc", "cargo test"], 101, None, None, None),
            ("item_2", ["/bin/bash", "-lc", "sleep 600"], None, None, None, None),
        ],
    ),
    (
        ROLLOUT,
        "codex",
        [
            ("call_1", [*B, "cargo test"], 101, True, "head_tail", 1234),
            ("call_2", [*B, "git status --short"], 0, False, None, 0),
            ("call_3", [*B, "cat big.txt"], 0, True, "head_tail", 1079),
            ("call_4", [*B, "cat dump.json"], 0, True, "head", 4999),
            ("call_5", [*B, "rg TODO"], 0, True, "head", 9759),
            ("call_6", [*B, "cargo doc"], 0, True, "head_tail", 3500),
        ],
    ),
    (
        "inspect_log.json",
        "inspect-ai",
        [
            ("task-1/1/call_1", [*IB, "ls"], 0, False, None, 0),
            ("task-1/1/call_2", [*IB, "cat big.log"], 0, True, "head_tail", 23616),
            ("task-1/1/call_3", [*IB, "pytest -q"], None, False, None, 0),
            ("task-1/1/call_4", [*IB, "grep -q needle haystack"], 2, False, None, 0),
            (
                "task-1/1/call_5",
                ["text_editor", '{"command": "view", "path": "/repo/a.py"}'],
                0,
                False,
                None,
                0,
            ),
        ],
    ),
]
CASES.append(("inspect_log.eval", "inspect-ai", CASES[-1][2]))


def _load(name: str) -> tuple[runset.Run, index_mod.RunIndex]:
    runs = runset.open_path(os.path.join(AGENTS, name))
    assert len(runs) == 1
    return runs[0], build_mod.build_index(runs[0])


@pytest.mark.parametrize(("name", "fmt", "expected"), CASES, ids=[c[0] for c in CASES])
def test_spans_found(name: str, fmt: str, expected: list[Any]) -> None:
    run, ix = _load(name)
    assert run.source_format == fmt
    assert run.notes == []
    got = []
    for row in range(len(ix)):
        span = ix.span(row)
        assert span is not None, ix.get(row)
        assert span.dialect == fmt
        got.append(
            (
                span.command_id,
                list(span.argv),
                span.exit_code,
                span.stdout.truncated,
                span.stdout.clip,
                span.stdout.hidden_bytes,
            )
        )
    assert got == [
        (cid, argv, code, trunc, clip, hidden) for cid, argv, code, trunc, clip, hidden in expected
    ]


# (fixture, command id, facts on the span that say where the numbers came from)
DETAILS = [
    (
        "claude_session.jsonl",
        "toolu_01",
        {
            "error": None,
            "cwd": "/home/dev/shop",
            "duration_ms": 2500.0,
            "agent_note": "Run the checkout tests",
        },
    ),
    (
        "claude_session.jsonl",
        "toolu_02",
        {"error": "tool reported an error (no exit code recorded): sh: 1: tsc: not found"},
    ),
    (
        "claude_session.jsonl",
        "toolu_03",
        {"stdout_bytes": 7645, "marker": ("claude-code", 6645, "chars")},
    ),
    ("claude_session.jsonl", "toolu_04", {"marker": ("claude-code", 85401, "bytes")}),
    (
        "claude_session.jsonl",
        "toolu_06",
        {
            "error": None,
            "exit_unknown": True,
            "exit_note": "no result recorded (the session ended before the tool returned?)",
        },
    ),
    (
        "swe_agent.traj",
        "step-2",
        {
            "error": "SWE-agent records no exit code; the output shows a failure: "
            "Traceback (most recent call last):",
            "cwd": "/repo",
        },
    ),
    ("swe_agent.traj", "step-3", {"marker": ("swe-agent", 400, "lines")}),
    ("swe_agent.traj", "step-4", {"stdout_bytes": 120, "marker": ("swe-agent", 20, "chars")}),
    (
        "mini_v2.traj.json",
        "call_2",
        {
            "stdout_bytes": 22000,
            "marker": ("mini-swe-agent", 12000, "chars"),
            "duration_ms": 2000.0,
            "started_at": "2025-07-01T10:00:01Z",
        },
    ),
    (
        "mini_v1.traj.json",
        "step-3",
        {"error": "timed out: mini-swe-agent killed the command (no exit code)"},
    ),
    (
        "openhands_output.jsonl",
        "django__django-11099:5",
        {
            "error": None,
            "exit_unknown": True,
            "exit_note": "no exit code: the command had not finished (still running or timed out)",
            "cwd": "/workspace/django",
        },
    ),
    (
        "openhands_output.jsonl",
        "django__django-11099:7",
        {"parent_command_id": "django__django-11099:5", "marker": ("openhands", None, None)},
    ),
    ("openhands_output.jsonl", "astropy__astropy-12907:1", {"marker": ("openhands", None, None)}),
    ("openhands_output.jsonl", "django__django-11099:9", {"marker": ("openhands", None, None)}),
    (
        "codex_exec.jsonl",
        "item_1",
        {"duration_ms": 4250.0, "started_at": "2025-09-10T08:00:00.000Z"},
    ),
    (
        "codex_exec.jsonl",
        "item_2",
        {
            "error": None,
            "exit_unknown": True,
            "exit_note": "no end event (still running, or the stream was cut)",
        },
    ),
    (
        ROLLOUT,
        "call_1",
        {"cwd": "/home/dev/parser", "duration_ms": 2500.0, "marker": ("codex", 1234, "chars")},
    ),
    (ROLLOUT, "call_3", {"marker": ("codex", 120, "lines")}),
    (ROLLOUT, "call_4", {"marker": ("codex", None, None)}),
    (ROLLOUT, "call_5", {"marker": ("codex", None, None)}),
    (ROLLOUT, "call_6", {"marker": ("codex", 3000, "tokens")}),
    (
        "inspect_log.json",
        "task-1/1/call_2",
        {
            "stdout_bytes": 40000,
            "stdout_cap": 16384,
            "marker": ("inspect-ai", None, None),
            "duration_ms": 500.0,
        },
    ),
    (
        "inspect_log.json",
        "task-1/1/call_3",
        {"error": "tool reported an error (no exit code recorded): unknown: 1 failed, 3 passed"},
    ),
]


@pytest.mark.parametrize(("name", "cid", "facts"), DETAILS, ids=[f"{d[0]}:{d[1]}" for d in DETAILS])
def test_span_details(name: str, cid: str, facts: dict[str, Any]) -> None:
    _run, ix = _load(name)
    span = ix.span(ix.id_rows[cid])
    assert span is not None
    for key, want in facts.items():
        if key == "marker":
            m = span.stdout.marker
            assert (None if m is None else (m.family, m.count, m.unit)) == want
        elif key == "stdout_bytes":
            assert span.stdout.bytes == want
        elif key == "stdout_cap":
            assert span.stdout.cap == want
        else:
            assert getattr(span, key) == want, key


def test_full_output_kept_beside_the_cut_one() -> None:
    _run, ix = _load("mini_v2.traj.json")
    span = ix.span(ix.id_rows["call_2"])
    assert span is not None
    assert len(span.raw["full_stdout"]) == 22000
    assert span.stdout.preview.startswith("<returncode>0</returncode>")


@pytest.mark.parametrize(
    ("name", "note"),
    [
        (
            "claude_broken.jsonl",
            "claude-code import: 2 tool call(s) imported; 1 problem(s): "
            "line 4: malformed JSON, skipped",
        ),
        ("swe_agent_cut.traj", "swe-agent import: not valid JSON: unexpected end of data"),
    ],
    ids=["claude-bad-line", "swe-agent-cut-file"],
)
def test_broken_inside_keeps_what_it_can_with_a_note(name: str, note: str) -> None:
    run, ix = _load(name)
    assert run.notes == [note]
    assert ix.stats.spans == (2 if name.startswith("claude") else 0)


def test_unknown_file_is_read_as_jsonl_with_bad_lines() -> None:
    run, ix = _load("not_a_trace.txt")
    assert run.source_format is None
    assert (ix.stats.spans, ix.stats.bad_lines) == (0, 2)


SUMMARY = [
    ("claude_session.jsonl", 6, 2, 2, 92046, "toolu_02"),  # toolu_06 has no result: unknown
    ("swe_agent.traj", 6, 2, 2, 20, "step-5"),
    ("mini_v2.traj.json", 3, 1, 1, 12000, "call_3"),
    ("mini_v1.traj.json", 4, 2, 1, 12000, "step-4"),
    ("openhands_output.jsonl", 8, 4, 3, 0, "astropy__astropy-12907:5"),
    ("codex_exec.jsonl", 3, 1, 0, 0, "item_1"),  # item_2 never ended: exit unknown
    (ROLLOUT, 6, 1, 5, 20571, "call_1"),
    ("inspect_log.json", 5, 2, 1, 23616, "task-1/1/call_4"),
    ("inspect_log.eval", 5, 2, 1, 23616, "task-1/1/call_4"),
]


@pytest.mark.parametrize(
    ("name", "spans", "failed", "truncated", "hidden", "latest"),
    SUMMARY,
    ids=[s[0] for s in SUMMARY],
)
def test_summary_cli(
    name: str, spans: int, failed: int, truncated: int, hidden: int, latest: str
) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tracetui", "summary", os.path.join(AGENTS, name), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    facts = json.loads(out.stdout)
    assert (facts["spans"], facts["failed"], facts["truncated"], facts["hidden_bytes"]) == (
        spans,
        failed,
        truncated,
        hidden,
    )
    assert facts["latest_failure"]["command_id"] == latest
    assert facts["bad_lines"] == []


def test_summary_cli_openhands_input_continues_the_running_command() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tracetui",
            "summary",
            os.path.join(AGENTS, "openhands_output.jsonl"),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(out.stdout)["chains"] == [
        {
            "root": "django__django-11099:5",
            "attempts": ["django__django-11099:5", "django__django-11099:7"],
            "final_exit_code": 130,
        }
    ]


def test_summary_cli_broken_file_notes_without_traceback() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tracetui",
            "summary",
            os.path.join(AGENTS, "swe_agent_cut.traj"),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0
    assert "Traceback" not in out.stderr
    assert "swe-agent import: not valid JSON" in out.stderr
    assert json.loads(out.stdout)["spans"] == 0


def test_sniff_names_every_fixture() -> None:
    assert {name: sniff(os.path.join(AGENTS, name)) for name, _fmt, _ in CASES} == {
        name: fmt for name, fmt, _ in CASES
    }
