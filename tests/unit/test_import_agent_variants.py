"""Claude Code and Codex variants (issue 14): Claude's ``--output-format stream-json``, a plain
string ``toolUseResult``, the ``subagents/agent-*.jsonl`` layout, ``[N lines truncated]``; Codex
``exec_command`` output headers (``Original token count`` kept as a lower bound) and
``write_stdin`` continuing its session. Each trace is written here, small, from the formats as
docs/importers.md describes them, and read through open_path → build_index."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tracetui.store import build as build_mod
from tracetui.store import runset

B = ["bash", "-lc"]
SID = "5f0c1e2a-0000-4000-8000-0000000000aa"


def write(path: Path, *objs: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


def spans(path: Path, fmt: str) -> tuple[list[Any], list[str]]:
    (run,) = runset.open_path(str(path))
    assert run.source_format == fmt
    ix = build_mod.build_index(run)
    out = [ix.span(r) for r in range(len(ix))]
    assert all(s is not None for s in out)
    return out, run.notes


# ------------------------------------------------------------------------------ Claude Code
def use(mid: str, cid: str, name: str, inp: dict[str, Any], **extra: Any) -> dict[str, Any]:
    msg = {
        "id": mid,
        "role": "assistant",
        "content": [{"type": "tool_use", "id": cid, "name": name, "input": inp}],
    }
    return {"type": "assistant", "message": msg, **extra}


def result(cid: str, text: str, *, is_error: bool | None = False, **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "tool_result", "tool_use_id": cid, "content": text}
    if is_error is not None:
        item["is_error"] = is_error
    return {"type": "user", "message": {"role": "user", "content": [item]}, **extra}


def session(**extra: Any) -> dict[str, Any]:
    return {"sessionId": SID, "uuid": "u", "timestamp": "2025-07-01T10:00:00.000Z", **extra}


def stream_json(tmp: Path) -> Path:
    """``claude -p --output-format stream-json --verbose``: snake_case, no timestamps, the cwd
    in the first (system) line; a Task's sub-agent lines name it in parent_tool_use_id."""
    s = {"session_id": SID}
    return write(
        tmp / "stream.jsonl",
        {"type": "system", "subtype": "init", "cwd": "/home/dev/shop", "tools": ["Bash"], **s},
        use("m1", "toolu_1", "Bash", {"command": "ls"}, parent_tool_use_id=None, **s),
        result(
            "toolu_1",
            "README.md",
            parent_tool_use_id=None,
            tool_use_result={"stdout": "README.md", "stderr": "", "interrupted": False},
            **s,
        ),
        use(
            "m2",
            "toolu_2",
            "Task",
            {"description": "look", "prompt": "p"},
            parent_tool_use_id=None,
            **s,
        ),
        use("m3", "toolu_3", "Bash", {"command": "pytest -q"}, parent_tool_use_id="toolu_2", **s),
        result(
            "toolu_3", "Exit code 1\n1 failed", is_error=True, parent_tool_use_id="toolu_2", **s
        ),
        result(
            "toolu_2", "done", parent_tool_use_id=None, tool_use_result={"status": "completed"}, **s
        ),
        {"type": "result", "subtype": "success", "is_error": False, **s},
    )


def plain_string_results(tmp: Path) -> Path:
    return write(
        tmp / "s.jsonl",
        session(type="user", message={"role": "user", "content": "go"}),
        use("m1", "toolu_1", "Bash", {"command": "rm -rf build"}, **session()),
        result(
            "toolu_1",
            "Permission to use Bash has been denied. IMPORTANT: you may try other tools.",
            is_error=True,
            toolUseResult="Error: Permission to use Bash has been denied. IMPORTANT: …",
            **session(),
        ),
        use("m2", "toolu_2", "Read", {"file_path": "/x"}, **session()),
        result("toolu_2", "x", is_error=None, toolUseResult="Error: nope", **session()),
        use("m3", "toolu_3", "Bash", {"command": "seq 500"}, **session()),
        result(
            "toolu_3",
            "1\n2\n\n... [497 lines truncated] ...\n\n500",
            toolUseResult={"stdout": "1\n2\n\n... [497 lines truncated] ...\n\n500", "stderr": ""},
            **session(),
        ),
    )


def subagent_layout(tmp: Path) -> Path:
    """A session whose Task ran a sub-agent; the sub-agent's lines in its own file."""
    main = write(
        tmp / f"{SID}.jsonl",
        use("m1", "toolu_1", "Task", {"description": "Explore", "prompt": "p"}, **session()),
        result(
            "toolu_1",
            "Found it.\nagentId: a1b2c3",
            toolUseResult={"status": "completed", "agentId": "a1b2c3", "totalDurationMs": 900},
            **session(),
        ),
        use("m2", "toolu_4", "Bash", {"command": "git status"}, **session()),
        result("toolu_4", "clean", **session()),
    )
    side = {"isSidechain": True, "agentId": "a1b2c3"}
    write(
        tmp / SID / "subagents" / "agent-a1b2c3.jsonl",
        use("s1", "toolu_2", "Grep", {"pattern": "total"}, **session(**side)),
        result("toolu_2", "src/cart.py:3", **session(**side)),
        use("s2", "toolu_3", "Bash", {"command": "cat src/cart.py"}, **session(**side)),
        result("toolu_3", "x = 1", **session(**side)),
    )
    return main


def nested_subagents(tmp: Path) -> Path:
    """A sub-agent that ran a sub-agent: both files sit in the session's subagents folder."""
    main = write(
        tmp / f"{SID}.jsonl",
        use("m1", "toolu_1", "Agent", {"description": "Plan", "prompt": "p"}, **session()),
        result("toolu_1", "planned", toolUseResult={"agentId": "outer"}, **session()),
    )
    side = {"isSidechain": True}
    folder = tmp / SID / "subagents"
    write(
        folder / "agent-outer.jsonl",
        use("s1", "toolu_2", "Agent", {"description": "Dig", "prompt": "q"}, **session(**side)),
        result("toolu_2", "dug", toolUseResult={"agentId": "inner"}, **session(**side)),
    )
    write(
        folder / "agent-inner.jsonl",
        use("s2", "toolu_3", "Bash", {"command": "ls"}, **session(**side)),
        result("toolu_3", "a", **session(**side)),
    )
    return main


def unsafe_agent_id(tmp: Path) -> Path:
    """An agentId naming a path outside the subagents folder is not followed."""
    write(tmp / "evil.jsonl", use("m", "toolu_9", "Bash", {"command": "boom"}, **session()))
    return write(
        tmp / f"{SID}.jsonl",
        use("m1", "toolu_1", "Task", {"description": "x", "prompt": "p"}, **session()),
        result("toolu_1", "ok", toolUseResult={"agentId": "../../evil"}, **session()),
    )


def missing_subagent_file(tmp: Path) -> Path:
    return write(
        tmp / f"{SID}.jsonl",
        use("m1", "toolu_1", "Task", {"description": "x", "prompt": "p"}, **session()),
        result("toolu_1", "ok", toolUseResult={"agentId": "gone"}, **session()),
    )


# (case, builder, [(id, argv head, exit, error, parent, cwd)])
CLAUDE: list[tuple[str, Any, list[tuple[Any, ...]]]] = [
    (
        "stream-json",
        stream_json,
        [
            ("toolu_1", [*B, "ls"], 0, None, None, "/home/dev/shop"),
            ("toolu_2", ["Task"], 0, None, None, "/home/dev/shop"),
            ("toolu_3", [*B, "pytest -q"], 1, None, "toolu_2", "/home/dev/shop"),
        ],
    ),
    (
        "plain-string-tool-use-result",
        plain_string_results,
        [
            (
                "toolu_1",
                [*B, "rm -rf build"],
                None,
                "not run: permission to use the tool was denied",
                None,
                None,
            ),
            (
                "toolu_2",
                ["Read"],
                None,
                "tool reported an error (no exit code recorded): Error: nope",
                None,
                None,
            ),
            ("toolu_3", [*B, "seq 500"], 0, None, None, None),
        ],
    ),
    (
        "subagents-folder",
        subagent_layout,
        [
            ("toolu_1", ["Task"], 0, None, None, None),
            ("toolu_2", ["Grep"], 0, None, "toolu_1", None),
            ("toolu_3", [*B, "cat src/cart.py"], 0, None, "toolu_1", None),
            ("toolu_4", [*B, "git status"], 0, None, None, None),
        ],
    ),
    (
        "nested-subagents",
        nested_subagents,
        [
            ("toolu_1", ["Agent"], 0, None, None, None),
            ("toolu_2", ["Agent"], 0, None, "toolu_1", None),
            ("toolu_3", [*B, "ls"], 0, None, "toolu_2", None),
        ],
    ),
    ("unsafe-agent-id", unsafe_agent_id, [("toolu_1", ["Task"], 0, None, None, None)]),
    ("missing-subagent-file", missing_subagent_file, [("toolu_1", ["Task"], 0, None, None, None)]),
]


@pytest.mark.parametrize(("build", "want"), [c[1:] for c in CLAUDE], ids=[c[0] for c in CLAUDE])
def test_claude_code_variants(tmp_path: Path, build: Any, want: list[tuple[Any, ...]]) -> None:
    got, notes = spans(build(tmp_path), "claude-code")
    assert notes == []
    assert [
        (s.command_id, list(s.argv)[: len(w[1])], s.exit_code, s.error, s.parent_command_id, s.cwd)
        for s, w in zip(got, want, strict=False)
    ] == want
    assert len(got) == len(want)


def test_a_session_opening_with_newer_line_types_is_claude_code(tmp_path: Path) -> None:
    head = [session(type="queue-operation", operation="enqueue") for _ in range(40)]
    path = write(
        tmp_path / "s.jsonl",
        *head,
        use("m1", "toolu_1", "Bash", {"command": "ls"}, **session()),
        result("toolu_1", "a", **session()),
    )
    got, notes = spans(path, "claude-code")
    assert ([s.command_id for s in got], notes) == (["toolu_1"], [])


def test_a_denied_call_never_ran(tmp_path: Path) -> None:
    got, _ = spans(plain_string_results(tmp_path), "claude-code")
    assert got[0].raw["not_executed"] is True
    assert got[1].raw["tool_use_result_text"] == "Error: nope"


def test_lines_truncated_marker(tmp_path: Path) -> None:
    got, _ = spans(plain_string_results(tmp_path), "claude-code")
    m = got[2].stdout.marker
    assert (got[2].stdout.truncated, got[2].stdout.clip) == (True, "head_tail")
    assert m is not None and (m.family, m.count, m.unit) == ("claude-code", 497, "lines")


def test_subagent_calls_name_their_file(tmp_path: Path) -> None:
    got, _ = spans(subagent_layout(tmp_path), "claude-code")
    assert got[1].raw["subagent_file"] == str(tmp_path / SID / "subagents" / "agent-a1b2c3.jsonl")
    # Its line in its own file; the run's location is the Task call's line in the session.
    assert [(s.raw["subagent_line"], s.raw["source_line"]) for s in got[1:3]] == [(1, 1), (3, 1)]
    assert "_agent_id" not in got[0].raw


# ------------------------------------------------------------------------------ Codex
def rollout(*lines: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"timestamp": f"2025-09-10T09:00:{i:02d}.000Z", "type": kind, "payload": payload}
        for i, (kind, payload) in enumerate(lines)
    ]


def call(cid: str, name: str, args: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    return (
        "response_item",
        {"type": "function_call", "name": name, "arguments": json.dumps(args), "call_id": cid},
    )


def output(cid: str, text: str) -> tuple[str, dict[str, Any]]:
    return ("response_item", {"type": "function_call_output", "call_id": cid, "output": text})


def header(
    body: str, *, code: int | None = None, session: int | None = None, tokens: int = 5
) -> str:
    parts = ["Chunk ID: 0a1b2c", "Wall time: 1.2500 seconds"]
    if code is not None:
        parts.append(f"Process exited with code {code}")
    if session is not None:
        parts.append(f"Process running with session ID {session}")
    parts += [f"Original token count: {tokens}", "Output:", body]
    return "\n".join(parts)


CODEX_LINES = rollout(
    ("session_meta", {"id": "t", "cwd": "/home/dev/parser"}),
    call("c1", "exec_command", {"cmd": "cargo test | tail -3", "workdir": "/home/dev/parser"}),
    output("c1", header("test result: FAILED", code=101, tokens=48213)),
    call("c2", "exec_command", {"cmd": "npm run dev", "yield_time_ms": 1000}),
    output("c2", header("ready on :3000", session=7)),
    call("c3", "write_stdin", {"session_id": 7, "chars": "\u0003"}),
    output("c3", header("^C", code=130)),
    call("c4", "exec_command", {"cmd": "cat big.log"}),
    output("c4", header("a\n…9000 tokens truncated…\nz", code=0, tokens=9400)),
)

# (id, argv, exit, exit_note, parent, duration, original tokens)
CODEX: list[tuple[Any, ...]] = [
    ("c1", [*B, "cargo test | tail -3"], 101, None, None, 1250.0, 48213),
    (
        "c2",
        [*B, "npm run dev"],
        None,
        "still running (session 7) when Codex returned its output",
        None,
        1250.0,
        5,
    ),
    ("c3", ["write_stdin", '{"chars": "\\u0003", "session_id": 7}'], 130, None, "c2", 1250.0, 5),
    ("c4", [*B, "cat big.log"], 0, None, None, 1250.0, 9400),
]


def test_codex_exec_command_headers(tmp_path: Path) -> None:
    got, notes = spans(write(tmp_path / "rollout-x.jsonl", *CODEX_LINES), "codex")
    assert notes == []
    assert [
        (
            s.command_id,
            list(s.argv),
            s.exit_code,
            s.raw.get("exit_note"),
            s.parent_command_id,
            s.duration_ms,
            s.raw.get("original_tokens"),
        )
        for s in got
    ] == CODEX


def test_the_token_count_is_a_lower_bound_not_a_byte_count(tmp_path: Path) -> None:
    got, _ = spans(write(tmp_path / "rollout-x.jsonl", *CODEX_LINES), "codex")
    cut = got[3]
    assert cut.raw["stdout_bytes_at_least"] == 9400
    assert cut.stdout.bytes is None  # never an exact byte count
    m = cut.stdout.marker
    assert (cut.stdout.truncated, m and (m.family, m.count, m.unit)) == (
        True,
        ("codex", 9000, "tokens"),
    )
    assert got[2].raw.get("rerunnable") is False  # typing into a session is no command


def test_codex_header_only_at_the_start(tmp_path: Path) -> None:
    text = "some output\nWall time: 9 seconds\nProcess exited with code 3\nOutput:\n"
    lines = rollout(call("c1", "exec_command", {"cmd": "echo"}), output("c1", text))
    got, _ = spans(write(tmp_path / "rollout-y.jsonl", *lines), "codex")
    assert (got[0].exit_code, got[0].raw.get("original_tokens")) == (None, None)
