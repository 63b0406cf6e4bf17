"""Hostile values in other agents' traces (issue 13's standard, applied to the issue 14 formats).

An absurd exit code (past 64 bits, or thousands of digits) must still read as a failure, and must
not stop a conversion; an event file of an OpenHands ``events/`` folder that is a FIFO or a link
to a device is one problem, never a hang or an unbounded read; a Claude Code sub-agent file named
by many Task calls (itself included) is read once, not once per naming (an 11-line file gave
11,111 rows at depth 4, 100 Task lines would give 10^8), and never through a link; a call id used
again while an earlier call with it waits keeps both calls; a new Claude Code turn walks only the
calls still waiting. The text-side cases are in test_hostile_formats_v2.py.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import private_temp, run_cli

from tracetui.importers import ImportProblem, convert
from tracetui.importers._common import EXIT_MAX, EXIT_MIN, Problems, as_int
from tracetui.importers.claude_code import SessionFeeder
from tracetui.model.spans import judge_exit

__all__ = ["private_temp"]  # autouse fixture: each test gets its own TMPDIR

BIG = "9" * 5000  # past Python's 4,300-digit limit for int("…")
SID = "5f0c1e2a-0000-4000-8000-000000000001"


def _write_lines(path: Path, lines: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def _codex(path: Path, codes: list[Any]) -> str:
    lines: list[dict[str, Any]] = [
        {"timestamp": "2025-09-10T09:00:00Z", "type": "session_meta", "payload": {"id": "s"}}
    ]
    for i, code in enumerate(codes):
        call = {"type": "function_call", "name": "shell", "call_id": f"c{i}"}
        call["arguments"] = json.dumps({"command": ["ls"]})
        out = json.dumps({"output": "hi", "metadata": {"exit_code": code}})
        lines.append(
            {"timestamp": "2025-09-10T09:00:01Z", "type": "response_item", "payload": call}
        )
        lines.append(
            {
                "timestamp": "2025-09-10T09:00:02Z",
                "type": "response_item",
                "payload": {"type": "function_call_output", "call_id": f"c{i}", "output": out},
            }
        )
    return _write_lines(path, lines)


def _claude(path: Path, text: str) -> str:
    call = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": text}
    return _write_lines(
        path,
        [
            {"sessionId": SID, "uuid": "u1", "type": "assistant", "message": {"content": [call]}},
            {"sessionId": SID, "uuid": "u2", "type": "user", "message": {"content": [result]}},
        ],
    )


def _openhands_v1(path: Path, code: Any) -> str:
    action = {
        "kind": "ActionEvent",
        "id": "a1",
        "source": "agent",
        "action": {"kind": "TerminalAction", "command": "ls"},
        "tool_name": "terminal",
        "tool_call_id": "t1",
    }
    obs = {
        "kind": "ObservationEvent",
        "id": "o1",
        "source": "environment",
        "tool_name": "terminal",
        "tool_call_id": "t1",
        "action_id": "a1",
        "observation": {
            "kind": "TerminalObservation",
            "content": [{"type": "text", "text": "out"}],
            "exit_code": code,
        },
    }
    path.write_text(json.dumps([action, obs]))
    return str(path)


def _mini(path: Path, code: str) -> str:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "bash", "arguments": '{"command": "false"}'},
    }
    doc = {
        "info": {"mini_version": "2.0.0", "exit_status": "LimitsExceeded"},
        "trajectory_format": "mini-swe-agent-1.1",
        "messages": [
            {"role": "system", "content": "sys"},
            {
                "role": "assistant",
                "content": "run",
                "tool_calls": [call],
                "extra": {"actions": [{"command": "false", "tool_call_id": "c1"}]},
            },
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": f"<returncode>{code}</returncode>\n<output>\nno\n</output>",
            },
        ],
    }
    path.write_text(json.dumps(doc))
    return str(path)


EXIT_CASES = [
    ("codex-30-digits", "codex", lambda p: _codex(p, [10**30]), EXIT_MAX),
    ("codex-1e300", "codex", lambda p: _codex(p, [1e300]), EXIT_MAX),
    ("codex-5000-digit-text", "codex", lambda p: _codex(p, [BIG]), EXIT_MAX),
    ("codex-negative-text", "codex", lambda p: _codex(p, ["-" + "9" * 30]), EXIT_MIN),
    ("claude-30-digits", "claude-code", lambda p: _claude(p, "Exit code " + "9" * 30), EXIT_MAX),
    ("claude-5000-digits", "claude-code", lambda p: _claude(p, f"Exit code {BIG}\nx"), EXIT_MAX),
    ("openhands-v1-2^100", "openhands-v1", lambda p: _openhands_v1(p, 2**100), EXIT_MAX),
    ("mini-5000-digits", "mini-swe-agent", lambda p: _mini(p, BIG), EXIT_MAX),
]


@pytest.mark.parametrize(
    ("fmt", "make", "code"), [c[1:] for c in EXIT_CASES], ids=[c[0] for c in EXIT_CASES]
)
def test_absurd_exit_code_is_a_failure(tmp_path: Path, fmt: str, make: Any, code: int) -> None:
    # Before: kept as text past 64 bits (read as no exit: "exit unknown", the failure hidden),
    # or a ValueError ("Exceeds the limit (4300 digits)") that lost the call or the whole file.
    [rec] = list(convert(make(tmp_path / "trace"), fmt))
    assert (rec["exit_code"], rec["error"]) == (code, None)
    assert judge_exit(rec["exit_code"], rec["error"]) is True


def test_codex_digits_stop_nothing_after_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the entry point: a 5,000-digit exit code among good calls (before: 'nothing
    imported; stopped reading: ValueError', every call lost)."""
    path = _codex(tmp_path / "rollout.jsonl", [0, BIG, 2])
    rc, out, err = run_cli(capsys, "summary", "--json", path)
    got = json.loads(out)
    assert (rc, err) == (0, "")
    assert (got["spans"], got["failed"], got["exit_unknown"]) == (3, 2, 0)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("12", 12),
        (" -7 ", -7),
        (BIG, EXIT_MAX),
        ("-" + BIG, EXIT_MIN),
        (1e300, EXIT_MAX),
        (-(2**70), EXIT_MIN),
        (float("inf"), None),
        (float("nan"), None),
        (True, None),
        ("1e3", None),
    ],
    ids=[
        "text",
        "spaced",
        "5000-digits",
        "minus-5000",
        "1e300",
        "-2^70",
        "inf",
        "nan",
        "bool",
        "exp",
    ],
)
def test_as_int_is_bounded(text: Any, want: int | None) -> None:
    assert as_int(text) == want


# ------------------------------------------------------------------------- OpenHands events/
def _events_folder(tmp_path: Path) -> Path:
    conv = tmp_path / "conv"
    events = conv / "events"
    events.mkdir(parents=True)
    action, obs = json.loads(Path(_openhands_v1(tmp_path / "doc.json", 0)).read_text())
    (events / "event-00000-a0000001.json").write_text(json.dumps(action))
    (events / "event-00001-o0000001.json").write_text(json.dumps(obs))
    return events


@pytest.mark.parametrize(
    ("kind", "plant", "said"),
    [
        ("fifo", lambda p: os.mkfifo(p), "not a regular file (a FIFO)"),
        (
            "dev-zero",
            lambda p: os.symlink("/dev/zero", p),
            "not a regular file (a character device)",
        ),
        ("folder", lambda p: os.mkdir(p), "not a regular file (a directory)"),
    ],
    ids=["fifo", "dev-zero", "folder"],
)
def test_openhands_event_file_not_regular(tmp_path: Path, kind: str, plant: Any, said: str) -> None:
    # Before: a FIFO blocked the open for ever, /dev/zero was read until memory ran out
    # ("stopped reading: MemoryError", every call lost).
    events = _events_folder(tmp_path)
    plant(str(events / "event-00002-zzzzzzzz.json"))
    got: list[dict[str, Any]] = []
    error: list[BaseException] = []

    def work() -> None:
        try:
            got.extend(convert(str(events), "openhands-v1"))
        except BaseException as exc:
            error.append(exc)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(30)  # a generous bound on a hang, not a timing assertion
    assert not worker.is_alive(), "the conversion blocked on the planted file"
    assert [r["command_id"] for r in got] == ["t1"]
    assert [str(e) for e in error] == [
        f"1 tool call(s) imported; 1 problem(s): event-00002-zzzzzzzz.json: {said}, skipped"
    ]
    assert isinstance(error[0], ImportProblem)


# ------------------------------------------------------------------------- Claude sub-agents
def _task_lines(n: int, tid: str, agent: str, side: bool) -> list[dict[str, Any]]:
    use = {"type": "tool_use", "id": tid, "name": "Task", "input": {"prompt": "go"}}
    res = {"type": "tool_result", "tool_use_id": tid, "content": "done"}
    common = {"sessionId": SID, "isSidechain": side}
    return [
        {
            **common,
            "uuid": f"a{n}",
            "type": "assistant",
            "message": {"id": f"m{n}", "content": [use]},
        },
        {
            **common,
            "uuid": f"r{n}",
            "type": "user",
            "message": {"content": [res]},
            "toolUseResult": {"agentId": agent, "status": "completed"},
        },
    ]


def test_subagent_file_named_again_is_read_once(tmp_path: Path) -> None:
    # Before: each Task naming agent-a read it again, to depth 4: 1 + 10 + 100 + 1,000 + 10,000
    # rows from a 20-line file (and a cycle through the file itself did the same).
    session = _write_lines(tmp_path / "sess.jsonl", _task_lines(0, "root", "a", False))
    folder = tmp_path / "sess" / "subagents"
    folder.mkdir(parents=True)
    sub: list[dict[str, Any]] = []
    for i in range(10):
        sub += _task_lines(i + 1, f"t{i}", "a", True)
    _write_lines(folder / "agent-a.jsonl", sub)
    got: list[dict[str, Any]] = []
    with pytest.raises(ImportProblem) as caught:
        got.extend(convert(session, "claude-code"))
    assert [r["command_id"] for r in got] == ["root"] + [f"t{i}" for i in range(10)]
    assert {r["parent_command_id"] for r in got[1:]} == {"root"}
    assert str(caught.value) == (
        "11 tool call(s) imported; 10 problem(s): "
        + "; ".join(
            f"agent-a.jsonl: line {2 * i + 2}: sub-agent a named again (by call t{i}): "
            "its calls are shown once, under call root"
            for i in range(10)
        )
    )


def test_subagent_problems_past_the_first_few_are_counted(tmp_path: Path) -> None:
    # Before: a sub-agent file's problems past the first 20 were dropped, count and all
    # ("20 problem(s)" for 25).
    session = _write_lines(tmp_path / "sess.jsonl", _task_lines(0, "root", "a", False))
    folder = tmp_path / "sess" / "subagents"
    folder.mkdir(parents=True)
    (folder / "agent-a.jsonl").write_text("{broken\n" * 25)
    with pytest.raises(ImportProblem) as caught:
        list(convert(session, "claude-code"))
    said = str(caught.value)
    assert said.startswith("1 tool call(s) imported; 25 problem(s): agent-a.jsonl: line 1: ")
    assert said.endswith(" (and 5 more)")


@pytest.mark.parametrize("target", ["../../sess.jsonl", "/dev/zero"], ids=["parent", "device"])
def test_subagent_file_that_is_a_link_is_not_read(tmp_path: Path, target: str) -> None:
    # Before: a link to the session itself read the session again under its own Task call, to
    # depth 4 (the call 'root' five times, each its own parent).
    session = _write_lines(tmp_path / "sess.jsonl", _task_lines(0, "root", "a", False))
    folder = tmp_path / "sess" / "subagents"
    folder.mkdir(parents=True)
    (folder / "agent-a.jsonl").symlink_to(target)
    got: list[dict[str, Any]] = []
    with pytest.raises(ImportProblem) as caught:
        got.extend(convert(session, "claude-code"))
    assert [r["command_id"] for r in got] == ["root"]
    assert str(caught.value) == (
        "1 tool call(s) imported; 1 problem(s): agent-a.jsonl: cannot read: it is a symbolic "
        "link (a sub-agent's file is never reached through one)"
    )


def test_claude_new_turn_looks_only_at_waiting_calls(tmp_path: Path) -> None:
    # Before: every new message walked every record held behind a call that never ends (one
    # without a message id): 5,000 calls took 7 s, 20,000 took 388 s. What it walks now holds
    # only the calls still waiting: here never more than one.
    stuck = {"type": "tool_use", "id": "stuck", "name": "Bash", "input": {"command": "sleep"}}
    lines: list[dict[str, Any]] = [
        {"sessionId": SID, "uuid": "u0", "type": "assistant", "message": {"content": [stuck]}}
    ]
    for i in range(300):
        use = {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": "ls"}}
        res = {"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}
        lines.append(
            {"sessionId": SID, "type": "assistant", "message": {"id": f"m{i}", "content": [use]}}
        )
        lines.append({"sessionId": SID, "type": "user", "message": {"content": [res]}})
    feeder = SessionFeeder(str(tmp_path / "s.jsonl"), Problems())
    out: list[dict[str, Any]] = []
    waiting = 0
    for n, line in enumerate(lines, 1):
        out.extend(feeder.feed(n, line))
        waiting = max(waiting, len(feeder.message_of))
    out.extend(feeder.finish())
    assert waiting == 1
    assert [r["command_id"] for r in out] == ["stuck"] + [f"t{i}" for i in range(300)]
    assert out[0]["result_missing"] is True
    assert all(r["exit_code"] == 0 for r in out[1:])


def _use(tid: str, cmd: str, mid: str | None = None) -> dict[str, Any]:
    use = {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": cmd}}
    msg: dict[str, Any] = {"content": [use]} if mid is None else {"id": mid, "content": [use]}
    return {"sessionId": SID, "type": "assistant", "message": msg}


def _res(tid: str, code: int) -> dict[str, Any]:
    res = {"type": "tool_result", "tool_use_id": tid, "content": f"Exit code {code}\nout"}
    return {"sessionId": SID, "type": "user", "message": {"content": [res]}}


DUP_CASES = [
    (
        "two-waiting",
        [_use("dup", "ls"), _use("dup", "rm -rf build"), _res("dup", 0), _res("dup", 1)],
        [("ls", 0), ("rm -rf build", 1)],
    ),
    (
        "done-behind-a-stuck-call",
        [
            _use("stuck", "sleep"),
            _use("dup", "ls"),
            _res("dup", 0),
            _use("dup", "rm -rf build"),
            _res("dup", 1),
        ],
        [("sleep", None), ("ls", 0), ("rm -rf build", 1)],
    ),
]


@pytest.mark.parametrize(
    ("lines", "want"), [c[1:] for c in DUP_CASES], ids=[c[0] for c in DUP_CASES]
)
def test_claude_call_id_used_again_keeps_both_calls(
    tmp_path: Path, lines: list[dict[str, Any]], want: list[tuple[str, int | None]]
) -> None:
    # Before: the second call with an id overwrote the first one still held (the first lost,
    # silently), and its result was refused: 'result for a call not in the file (dup)'.
    path = _write_lines(tmp_path / "s.jsonl", lines)
    got = list(convert(path, "claude-code"))
    assert [(r["argv"][-1], r["exit_code"]) for r in got] == want


def _oh_pair(tcid: str, cmd: str, code: int) -> list[dict[str, Any]]:
    action = {
        "kind": "ActionEvent",
        "id": "a1",  # the same event id for every action
        "source": "agent",
        "action": {"kind": "TerminalAction", "command": cmd},
        "tool_name": "terminal",
        "tool_call_id": tcid,
    }
    obs = {
        "kind": "ObservationEvent",
        "id": f"o-{tcid}",
        "source": "environment",
        "tool_name": "terminal",
        "tool_call_id": tcid,
        "observation": {
            "kind": "TerminalObservation",
            "content": [{"type": "text", "text": "x"}],
            "exit_code": code,
        },
    }
    return [action, obs]


def test_openhands_v1_event_id_used_again_keeps_both_calls(tmp_path: Path) -> None:
    # Before: the second action with event id a1 overwrote the first while it waited; t1's
    # observation (exit 0) went to the second call and t2's was dropped: one row, the wrong exit.
    (a1, o1), (a2, o2) = _oh_pair("t1", "ls", 0), _oh_pair("t2", "rm -rf build", 1)
    path = tmp_path / "events.json"
    path.write_text(json.dumps([a1, a2, o1, o2]))
    got = list(convert(str(path), "openhands-v1"))
    assert [(r["command_id"], r["exit_code"], r["source_event_id"]) for r in got] == [
        ("t1", 0, "a1"),
        ("t2", 1, "a1"),
    ]


def test_codex_call_id_used_again_after_its_call_ended(tmp_path: Path) -> None:
    # Before: the second function_call c1 was taken for a late event of the first and dropped
    # (one row, exit 0; the failing 'rm -rf build' lost without a word).
    lines: list[dict[str, Any]] = [
        {"timestamp": "2025-09-10T09:00:00Z", "type": "session_meta", "payload": {"id": "s"}}
    ]
    for code, cmd in enumerate(["ls", "rm -rf build"]):
        call = {"type": "function_call", "name": "shell", "call_id": "c1"}
        call["arguments"] = json.dumps({"command": ["bash", "-lc", cmd]})
        out = json.dumps({"output": "x", "metadata": {"exit_code": code}})
        done = {"type": "function_call_output", "call_id": "c1", "output": out}
        lines.append({"type": "response_item", "payload": call})
        lines.append({"type": "response_item", "payload": done})
    path = _write_lines(tmp_path / "rollout.jsonl", lines)
    got = list(convert(path, "codex"))
    assert [(r["command_id"], r["argv"][-1], r["exit_code"]) for r in got] == [
        ("c1", "ls", 0),
        ("c1", "rm -rf build", 1),
    ]
