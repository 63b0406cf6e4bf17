"""Sniffing by content (bounded, never raising), odd shapes inside a sniffed file, and the
truncation marker families of every agent."""

from __future__ import annotations

import gzip
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tracetui.importers import ImportProblem, convert, sniff
from tracetui.model.markers import find_marker
from tracetui.store import build as build_mod
from tracetui.store import runset

AGENTS = os.path.join(os.path.dirname(__file__), os.pardir, "data", "agents")

CLAUDE_LINE = {
    "type": "user",
    "uuid": "u1",
    "sessionId": "s",
    "message": {"role": "user", "content": "hi"},
}

SNIFF_CASES: list[tuple[str, bytes, str | None]] = [
    (
        "tracetui-1",
        json.dumps({"schema": "tracetui/1", "span_type": "tool", "argv": ["ls"]}).encode() + b"\n",
        None,
    ),
    (
        "imported-copy",
        json.dumps({"schema": "import/codex", "argv": ["ls"]}).encode() + b"\n",
        None,
    ),
    (
        "feedback-record",
        json.dumps({"command": ["ls"], "stdout_tail": "", "exit_code": 0}).encode() + b"\n",
        None,
    ),
    (
        "truncation-span",
        json.dumps({"span_type": "tool", "argv": ["ls"], "returncode": 0}).encode() + b"\n",
        None,
    ),
    (
        "ours-even-named-like-a-rollout",
        json.dumps({"schema": "tracetui/1", "type": "event_msg"}).encode() + b"\n",
        None,
    ),
    ("empty", b"", None),
    ("plain-text", b"hello\nworld\n", None),
    ("binary", bytes(range(256)) * 10, None),
    ("json-number", b"42\n", None),
    ("unrelated-json", b'{"name": "x", "items": [1, 2]}\n', None),
    ("zip-not-inspect", b"PK\x03\x04" + b"\0" * 60, None),
    ("claude", json.dumps(CLAUDE_LINE).encode() + b"\n", "claude-code"),
    (
        "claude-after-summary",
        b'{"type": "summary", "summary": "s", "leafUuid": "u"}\n'
        + json.dumps(CLAUDE_LINE).encode()
        + b"\n",
        "claude-code",
    ),
    ("codex-exec", b'{"type": "thread.started", "thread_id": "t"}\n', "codex"),
    ("codex-wrapped", b'{"ts": "x", "data": {"type": "item.started", "item": {}}}\n', "codex"),
    (
        "codex-rollout",
        b'{"timestamp": "t", "type": "session_meta", "payload": {"cwd": "/"}}\n',
        "codex",
    ),
    (
        "codex-old-exec",
        b'{"id": "0", "msg": {"type": "exec_command_begin", "call_id": "c"}}\n',
        "codex",
    ),
    (
        "openhands-event-line",
        b'{"id": 1, "source": "agent", "action": "run", "args": {}}\n',
        "openhands",
    ),
    (
        "openhands-long-first-line",
        b'{"instance_id": "a", "history": [' + b'{"x": 1},' * 9000,
        "openhands",
    ),
    ("openhands-event-list", b'[{"id": 0, "source": "user", "action": "message"}]', "openhands"),
    ("swe-agent", b'{"trajectory": [{"action": "ls", "observation": ""}]}', "swe-agent"),
    ("mini-v2", b'{"info": {"mini_version": "2.0"}, "messages": []}', "mini-swe-agent"),
    (
        "mini-v1-bare-list",
        b'[{"role": "user", "content": "<returncode>0</returncode>"}]',
        "mini-swe-agent",
    ),
    (
        "inspect-json",
        b'{"version": 2, "status": "success", "eval": {"task": "t"}, "samples": []}',
        "inspect-ai",
    ),
    ("bom-then-claude", b"\xef\xbb\xbf" + json.dumps(CLAUDE_LINE).encode() + b"\n", "claude-code"),
]


@pytest.mark.parametrize(("name", "data", "want"), SNIFF_CASES, ids=[c[0] for c in SNIFF_CASES])
def test_sniff_by_content(tmp_path: Path, name: str, data: bytes, want: str | None) -> None:
    path = tmp_path / "trace.jsonl"  # the same name for all: the name never decides
    path.write_bytes(data)
    assert sniff(str(path)) == want


def test_sniff_gzipped_trace(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl.gz"
    with open(os.path.join(AGENTS, "claude_session.jsonl"), "rb") as src:
        path.write_bytes(gzip.compress(src.read()))
    assert sniff(str(path)) == "claude-code"
    ix = build_mod.build_index(runset.open_path(str(path))[0])
    assert ix.stats.spans == 6


def test_sniff_unreadable_path_is_none(tmp_path: Path) -> None:
    assert sniff(str(tmp_path / "missing.jsonl")) is None
    assert sniff(str(tmp_path)) is None


def test_sniff_eval_zip_by_entry_names(tmp_path: Path) -> None:
    path = tmp_path / "x.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("samples/1_epoch_1.json", "{}")
    assert sniff(str(path)) == "inspect-ai"


def _convert(
    tmp_path: Path, fmt: str, data: Any, *, lines: bool = False
) -> tuple[list[dict[str, Any]], str | None]:
    path = tmp_path / "trace"
    if lines:
        path.write_text("".join(json.dumps(x) + "\n" for x in data))
    else:
        path.write_text(json.dumps(data))
    records: list[dict[str, Any]] = []
    try:
        for rec in convert(str(path), fmt):
            records.append(rec)
    except ImportProblem as exc:
        return records, str(exc)
    return records, None


ODD_SHAPES: list[tuple[str, str, Any, bool, int, str | None]] = [
    (
        "claude-content-not-list",
        "claude-code",
        [{"type": "assistant", "message": {"content": "text"}}],
        True,
        0,
        "no tool calls found in this claude-code trace",
    ),
    (
        "claude-input-not-dict",
        "claude-code",
        [
            {
                "type": "assistant",
                "message": {
                    "content": [{"type": "tool_use", "id": "t", "name": "Bash", "input": "ls"}]
                },
            }
        ],
        True,
        1,
        None,
    ),
    (
        "claude-orphan-result",
        "claude-code",
        [
            {
                "type": "user",
                "message": {
                    "content": [{"type": "tool_result", "tool_use_id": "nope", "content": "x"}]
                },
            }
        ],
        True,
        0,
        "nothing imported; 1 problem(s): line 1: result for a call not in the file (nope)",
    ),
    (
        "swe-trajectory-not-list",
        "swe-agent",
        {"trajectory": "x"},
        False,
        0,
        "nothing imported; 1 problem(s): no trajectory[] list at the top level",
    ),
    (
        "swe-step-not-object",
        "swe-agent",
        {"trajectory": [1, {"action": "ls", "observation": None}]},
        False,
        1,
        "1 tool call(s) imported; 1 problem(s): trajectory[0]: not an object, skipped",
    ),
    (
        "mini-arguments-not-json",
        "mini-swe-agent",
        {
            "messages": [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "c", "function": {"arguments": "{oops"}}],
                }
            ]
        },
        False,
        0,
        "nothing imported; 1 problem(s): messages[0].tool_calls[0]: skipped, unexpected shape (JSONDecodeError: Expecting property name "
        "enclosed in double quotes: line 1 column 2 (char 1))",
    ),
    (
        "openhands-history-not-list",
        "openhands",
        [{"instance_id": "a", "history": 5}],
        True,
        0,
        "nothing imported; 1 problem(s): line 1: history is not a list",
    ),
    (
        "codex-item-without-command",
        "codex",
        [{"type": "item.completed", "item": {"id": "i", "type": "command_execution"}}],
        True,
        1,
        None,
    ),
    (
        "inspect-no-samples",
        "inspect-ai",
        {"version": 2, "status": "error", "eval": {}},
        False,
        0,
        "nothing imported; 1 problem(s): the log holds no samples (eval status 'error')",
    ),
    (
        "inspect-event-args-odd",
        "inspect-ai",
        {
            "samples": [
                {
                    "id": 1,
                    "events": [
                        {
                            "event": "tool",
                            "id": "c",
                            "function": "bash",
                            "arguments": [1],
                            "truncated": ["a", 1],
                        }
                    ],
                }
            ]
        },
        False,
        1,
        None,
    ),
]


@pytest.mark.parametrize(
    ("name", "fmt", "data", "lines", "count", "note"), ODD_SHAPES, ids=[c[0] for c in ODD_SHAPES]
)
def test_odd_shapes_never_raise(
    tmp_path: Path, name: str, fmt: str, data: Any, lines: bool, count: int, note: str | None
) -> None:
    records, problem = _convert(tmp_path, fmt, data, lines=lines)
    assert len(records) == count
    assert problem == note


MARKERS: list[tuple[str, str, str, str | None, int | None, str | None]] = [
    (
        "claude-chars",
        "a\n\n... [6645 characters truncated] ...\n\nb",
        "claude-code",
        "head_tail",
        6645,
        "chars",
    ),
    (
        "claude-lines",
        "a\n\n... [12 lines truncated] ...\n\nb",
        "claude-code",
        "head_tail",
        12,
        "lines",
    ),
    (
        "claude-persisted",
        "<persisted-output>\nOutput too large (1.0KB). Full output saved to: /x\n\n"
        "Preview (first 2KB):\n" + "p" * 24 + "\n</persisted-output>",
        "claude-code",
        "head",
        1000,  # 1,024 less the 24-byte preview (the "\n" after it is Claude Code's)
        "bytes",
    ),
    (
        "claude-glob",
        "a.py\n(Results are truncated. Consider using a more specific path or pattern.)",
        "claude-code",
        "head",
        None,
        None,
    ),
    (
        "swe-observation-limit",
        "x<response clipped><NOTE>Observations should not exceeded 100 characters. "
        "20 characters were elided. Please…</NOTE>",
        "swe-agent",
        "head",
        20,
        "chars",
    ),
    (
        "swe-file-part",
        "x<response clipped><NOTE>To save on context only part of this file has been shown to you.</NOTE>",
        "swe-agent",
        "head",
        None,
        None,
    ),
    (
        "swe-compaction",
        "Old environment output: (52 lines omitted)",
        "swe-agent",
        "tail",
        52,
        "lines",
    ),
    ("swe-window-below", "1:a\n(400 more lines below)", "swe-agent", "head", 400, "lines"),
    ("swe-window-above", "(7 more lines above)\n8:a", "swe-agent", "tail", 7, "lines"),
    (
        "mini-elided",
        "<output_head>\na\n</output_head>\n<elided_chars>\n12000 characters elided\n</elided_chars>",
        "mini-swe-agent",
        "head_tail",
        12000,
        "chars",
    ),
    (
        "openhands-file",
        "x<response clipped><NOTE>Due to the max output limit, only part of this file has been shown "
        "to you.</NOTE>",
        "openhands",
        "head",
        None,
        None,
    ),
    (
        "openhands-response",
        "x<response clipped><NOTE>Due to the max output limit, only part of the full response has "
        "been shown to you.</NOTE>",
        "openhands",
        "head",
        None,
        None,
    ),
    (
        "openhands-middle",
        "a\n[... Observation truncated due to length ...]\nb",
        "openhands",
        "head_tail",
        None,
        None,
    ),
    (
        "openhands-previous",
        "[Previous command outputs are truncated. Showing the last 10 lines of the output below.]",
        "openhands",
        "tail",
        None,
        None,
    ),
    ("codex-tokens", "a…1200 tokens truncated…b", "codex", "head_tail", 1200, "tokens"),
    ("codex-chars", "a…1234 chars truncated…b", "codex", "head_tail", 1234, "chars"),
    (
        "codex-warning",
        "Warning: truncated output (original token count: 50000)\nx",
        "codex",
        None,
        None,
        None,
    ),
    (
        "codex-omitted",
        "a\n[... omitted 120 of 400 lines ...]\nb",
        "codex",
        "head_tail",
        120,
        "lines",
    ),
    ("codex-fit", "a\n[... output truncated to fit 10240 bytes ...]", "codex", "head", None, None),
    (
        "inspect-too-long",
        "The output of your call to bash was too long to be displayed.\nHere is a truncated version:\n"
        "<START_TOOL_OUTPUT>\nab\n<END_TOOL_OUTPUT>",
        "inspect-ai",
        "head_tail",
        None,
        None,
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "family", "clip", "count", "unit"), MARKERS, ids=[m[0] for m in MARKERS]
)
def test_agent_markers(
    name: str, text: str, family: str, clip: str | None, count: int | None, unit: str | None
) -> None:
    m = find_marker(text)
    assert m is not None
    assert (m.family, m.clip, m.count, m.unit) == (family, clip, count, unit)


@pytest.mark.parametrize(
    "text",
    ["all 12 tests passed", "<response>ok</response>", "lines below this one", ""],
    ids=["plain", "tag", "below-without-count", "empty"],
)
def test_no_marker_in_plain_output(text: str) -> None:
    assert find_marker(text) is None


def _mutate(value: Any, rnd: Any) -> Any:
    odd = [None, 0, -1, 1.5, "", "x", [], {}, [1, "a"], {"a": None}, True, "Exit code 9\n", 2**70]
    if isinstance(value, dict):
        return {
            k: (rnd.choice(odd) if rnd.random() < 0.15 else _mutate(v, rnd))
            for k, v in value.items()
            if rnd.random() > 0.08
        }
    if isinstance(value, list):
        return [
            rnd.choice(odd) if rnd.random() < 0.1 else _mutate(v, rnd)
            for v in value
            if rnd.random() > 0.05
        ]
    return value


FUZZED = [
    "claude_session.jsonl",
    "swe_agent.traj",
    "mini_v2.traj.json",
    "mini_v1.traj.json",
    "openhands_output.jsonl",
    "codex_exec.jsonl",
    "rollout-2025-09-10T09-00-00-0199a300.jsonl",
    "inspect_log.json",
]


@pytest.mark.parametrize("name", FUZZED, ids=FUZZED)
def test_mutated_fixtures_convert_without_raising(tmp_path: Path, name: str) -> None:
    """Values of the wrong type anywhere: records are still plain JSON, problems are notes."""
    import random

    import orjson

    fmt = sniff(os.path.join(AGENTS, name))
    assert fmt is not None
    text = Path(AGENTS, name).read_text(encoding="utf-8")
    rnd = random.Random(name)  # seeded: the same mutations every run
    for _ in range(25):
        if name.endswith(".jsonl"):
            data = "".join(
                json.dumps(_mutate(json.loads(line), rnd)) + "\n" for line in text.splitlines()
            )
        else:
            data = json.dumps(_mutate(json.loads(text), rnd))
        path = tmp_path / name
        path.write_text(data, encoding="utf-8")
        try:
            for record in convert(str(path), fmt):
                orjson.dumps(record)
        except ImportProblem as exc:
            assert "stopped reading" not in str(exc)
