"""Write the agent-trace fixtures in this folder (run it again after changing it; output is fixed).

Each fixture is built from the documented structure of its format (docs/importers.md), with
failing commands and truncated outputs: every marker family of that agent at least once. The
expected spans are asserted in tests/unit/test_importers.py.

    python tests/data/agents/make_fixtures.py
"""

from __future__ import annotations

import json
import os
import zipfile
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))


def _lines(name: str, objs: list[Any]) -> None:
    with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as fh:
        for obj in objs:
            fh.write(json.dumps(obj, ensure_ascii=False) + "\n")


def _doc(name: str, obj: Any) -> None:
    with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as fh:
        json.dump(obj, fh, indent=1, ensure_ascii=False)
        fh.write("\n")


def numbered(prefix: str, n: int) -> str:
    """``n`` characters of recognisable, ASCII filler (so characters and bytes agree)."""
    text = "".join(f"{prefix}{i:05d}\n" for i in range(n // (len(prefix) + 6) + 1))
    return text[:n]


# ------------------------------------------------------------------------------ Claude Code
def claude() -> list[Any]:
    sid = "5f0c1e2a-0000-4000-8000-000000000001"
    base = {
        "sessionId": sid,
        "cwd": "/home/dev/shop",
        "version": "1.0.61",
        "gitBranch": "main",
        "userType": "external",
        "isSidechain": False,
    }
    lines: list[Any] = [
        {"type": "summary", "summary": "Fix failing checkout tests", "leafUuid": "u-99"}
    ]
    n = 0

    def msg(kind: str, content: Any, ts: str, **extra: Any) -> None:
        nonlocal n
        n += 1
        role = "assistant" if kind == "assistant" else "user"
        lines.append(
            {
                **base,
                "parentUuid": f"u-{n - 1}" if n > 1 else None,
                "uuid": f"u-{n}",
                "type": kind,
                "timestamp": ts,
                "message": {"role": role, "content": content},
                **extra,
            }
        )

    def call(tid: str, name: str, inp: dict[str, Any], ts: str) -> None:
        msg(
            "assistant",
            [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": tid, "name": name, "input": inp},
            ],
            ts,
        )

    def result(tid: str, content: Any, ts: str, is_error: bool, tur: Any = None) -> None:
        extra = {"toolUseResult": tur} if tur is not None else {}
        msg(
            "user",
            [{"type": "tool_result", "tool_use_id": tid, "content": content, "is_error": is_error}],
            ts,
            **extra,
        )

    msg("user", "the checkout tests fail, fix them", "2025-07-01T10:00:00.000Z")
    # 1. A failure with the newer `Exit code N` prefix.
    call(
        "toolu_01",
        "Bash",
        {"command": "pytest -q tests/test_checkout.py", "description": "Run the checkout tests"},
        "2025-07-01T10:00:01.000Z",
    )
    out = "F.\nFAILED tests/test_checkout.py::test_total - AssertionError: 90 != 100\n1 failed, 1 passed"
    result(
        "toolu_01",
        "Exit code 1\n" + out,
        "2025-07-01T10:00:03.500Z",
        True,
        "Error: Exit code 1\n" + out,
    )
    # 2. An older failure: is_error alone, no code.
    call(
        "toolu_02",
        "Bash",
        {"command": "npm run build", "description": "Build the bundle"},
        "2025-07-01T10:00:04.000Z",
    )
    result(
        "toolu_02",
        "sh: 1: tsc: not found",
        "2025-07-01T10:00:04.800Z",
        True,
        "Error: sh: 1: tsc: not found",
    )
    # 3. A middle cut: the model read head and tail; toolUseResult keeps the whole output.
    head, middle, tail = (
        numbered("log-head-", 600),
        numbered("log-mid-", 6645),
        numbered("log-tail-", 400),
    )
    call(
        "toolu_03",
        "Bash",
        {"command": "cat logs/checkout.log", "description": "Read the log"},
        "2025-07-01T10:00:05.000Z",
    )
    result(
        "toolu_03",
        [{"type": "text", "text": head + "\n\n... [6645 characters truncated] ...\n\n" + tail}],
        "2025-07-01T10:00:05.250Z",
        False,
        {"stdout": head + middle + tail, "stderr": "", "interrupted": False, "isImage": False},
    )
    # 4. A persisted output (newer versions): only a 2 KB preview was read.
    preview = numbered("hit-", 2048)
    call(
        "toolu_04",
        "Bash",
        {"command": "grep -rn total src/", "description": "Find totals"},
        "2025-07-01T10:00:06.000Z",
    )
    result(
        "toolu_04",
        "<persisted-output>\nOutput too large (85.4KB). Full output saved to: "
        "/home/dev/.claude/tool-results/toolu_04.txt\n\nPreview (first 2KB):\n"
        + preview
        + "\n</persisted-output>",
        "2025-07-01T10:00:07.000Z",
        False,
    )
    # 5. A non-shell tool.
    call(
        "toolu_05", "Read", {"file_path": "/home/dev/shop/src/cart.py"}, "2025-07-01T10:00:08.000Z"
    )
    result(
        "toolu_05",
        "     1\tdef total(items):\n     2\t    return sum(items)",
        "2025-07-01T10:00:08.100Z",
        False,
        {"type": "text", "file": {"filePath": "/home/dev/shop/src/cart.py", "numLines": 2}},
    )
    # 6. A call whose result never came (the session was cut).
    call(
        "toolu_06",
        "Bash",
        {"command": "sleep 600", "description": "Wait for the server"},
        "2025-07-01T10:00:09.000Z",
    )
    return lines


# ------------------------------------------------------------------------------ SWE-agent
def swe_agent() -> dict[str, Any]:
    steps = [
        ("ls", "README.md\nsrc\ntests\n", "Let me look around."),
        (
            "python reproduce.py",
            'Traceback (most recent call last):\n  File "reproduce.py", line 3, in <module>\n'
            "    print(1 / 0)\nZeroDivisionError: division by zero\n",
            "Reproduce the bug first.",
        ),
        (
            "open src/big.py",
            "[File: /repo/src/big.py (500 lines total)]\n"
            + "".join(f"{i}:x = {i}\n" for i in range(1, 101))
            + "(400 more lines below)",
            "Open the file.",
        ),
        ("cat data.json", numbered("rec-", 120), "Check the data."),
        (
            "pytest tests/",
            "....F\n========= 1 failed, 4 passed in 0.12s =========\n",
            "Run the tests.",
        ),
        ("submit", "diff --git a/src/big.py b/src/big.py\n", "Done."),
    ]
    clipped = (
        numbered("rec-", 120)[:100]
        + "<response clipped><NOTE>Observations should not exceeded 100 characters. "
        "20 characters were elided. Please try a different command that produces less output.</NOTE>"
    )
    history: list[Any] = [
        {"role": "system", "content": "You are a helpful assistant.", "agent": "main"},
        {"role": "user", "content": "Fix the bug.", "agent": "main"},
    ]
    trajectory = []
    for i, (action, obs, thought) in enumerate(steps):
        history.append(
            {
                "role": "assistant",
                "content": f"{thought}\n```\n{action}\n```",
                "thought": thought,
                "action": action,
                "agent": "main",
                "message_type": "action",
            }
        )
        history.append(
            {
                "role": "user",
                "content": clipped if i == 3 else obs,
                "agent": "main",
                "message_type": "observation",
            }
        )
        trajectory.append(
            {
                "action": action,
                "observation": obs,
                "response": f"{thought}\n```\n{action}\n```",
                "thought": thought,
                "execution_time": 0.25 * (i + 1),
                "state": json.dumps({"open_file": "n/a", "working_dir": "/repo"}),
            }
        )
    return {
        "trajectory": trajectory,
        "history": history,
        "info": {
            "exit_status": "submitted",
            "submission": "diff --git ...",
            "swe_agent_version": "1.0.1",
        },
        "environment": "swe_main",
    }


# ------------------------------------------------------------------------------ mini-swe-agent
MINI_HEAD, MINI_MID, MINI_TAIL = numbered("h-", 5000), numbered("m-", 12000), numbered("t-", 5000)


def _mini_long(code: int) -> str:
    return (
        f"<returncode>{code}</returncode>\n<warning>\nThe output of your last command was too long.\n"
        "Please try a different command that produces less output.\n</warning>"
        f"<output_head>\n{MINI_HEAD}\n</output_head>\n<elided_chars>\n{len(MINI_MID)} characters elided\n"
        f"</elided_chars>\n<output_tail>\n{MINI_TAIL}\n</output_tail>"
    )


def mini_v2() -> dict[str, Any]:
    def call(cid: str, cmd: str, text: str, ts: float) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": text,
            "tool_calls": [
                {
                    "id": cid,
                    "type": "function",
                    "function": {"name": "bash", "arguments": json.dumps({"command": cmd})},
                }
            ],
            "extra": {"actions": [{"command": cmd, "tool_call_id": cid}], "timestamp": ts},
        }

    def tool(cid: str, content: str, code: int, raw: str, ts: float) -> dict[str, Any]:
        return {
            "role": "tool",
            "tool_call_id": cid,
            "content": content,
            "extra": {"returncode": code, "raw_output": raw, "timestamp": ts},
        }

    return {
        "info": {"mini_version": "2.0.0", "exit_status": "Submitted", "submission": ""},
        "messages": [
            {
                "role": "system",
                "content": "You are a helpful assistant that can interact with a computer.",
            },
            {"role": "user", "content": "Please fix the failing test."},
            call("call_1", "ls -la", "List the files.", 1751364000.0),
            tool(
                "call_1",
                "<returncode>0</returncode>\n<output>\ntotal 8\nsetup.py\n</output>",
                0,
                "total 8\nsetup.py\n",
                1751364000.5,
            ),
            call("call_2", "python gen.py", "Generate the data.", 1751364001.0),
            tool("call_2", _mini_long(0), 0, MINI_HEAD + MINI_MID + MINI_TAIL, 1751364003.0),
            call("call_3", "make test", "Run the tests.", 1751364004.0),
            tool(
                "call_3",
                "<returncode>2</returncode>\n<output>\nmake: *** [test] Error 2\n</output>",
                2,
                "make: *** [test] Error 2\n",
                1751364004.25,
            ),
            {"role": "exit", "content": "Submitted", "extra": {"exit_status": "Submitted"}},
        ],
        "trajectory_format": "mini-swe-agent-1.1",
    }


def mini_v1() -> list[Any]:
    return [
        {
            "role": "system",
            "content": "You are a helpful assistant that can interact with a computer.",
        },
        {"role": "user", "content": "Please fix the failing test."},
        {"role": "assistant", "content": "THOUGHT: list the files.\n\n```bash\nls\n```"},
        {"role": "user", "content": "<returncode>0</returncode>\n<output>\na.py\nb.py\n</output>"},
        {
            "role": "assistant",
            "content": "THOUGHT: read the big file.\n\n```mswea_bash_command\ncat huge.txt\n```",
        },
        {"role": "user", "content": _mini_long(0)},
        {"role": "assistant", "content": "THOUGHT: wait for it.\n\n```bash\nsleep 999\n```"},
        {
            "role": "user",
            "content": "The last command <command>sleep 999</command> timed out and has been killed.\n"
            "The output of the command was:\n <output>\n\n</output>\nPlease try another command.",
        },
        {"role": "assistant", "content": "THOUGHT: search.\n\n```bash\ngrep -r foo .\n```"},
        {"role": "user", "content": "<returncode>1</returncode>\n<output>\n</output>"},
        {"role": "assistant", "content": "Two blocks: ```bash\nls\n``` and ```bash\npwd\n```"},
        {
            "role": "user",
            "content": "Please always provide EXACTLY ONE action in triple backticks.",
        },
    ]


# ------------------------------------------------------------------------------ OpenHands
def openhands() -> list[Any]:
    def run(
        eid: int, cmd: str, ts: str, thought: str = "", is_input: bool = False
    ) -> dict[str, Any]:
        return {
            "id": eid,
            "timestamp": ts,
            "source": "agent",
            "message": f"Running command: {cmd}",
            "action": "run",
            "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": f"call_{eid}"},
            "args": {"command": cmd, "is_input": is_input, "thought": thought, "blocking": False},
        }

    def obs(eid: int, cause: int, content: str, code: int, ts: str) -> dict[str, Any]:
        return {
            "id": eid,
            "timestamp": ts,
            "source": "agent",
            "message": f"Command finished ({code})",
            "cause": cause,
            "observation": "run",
            "content": content,
            "tool_call_metadata": {
                "function_name": "execute_bash",
                "tool_call_id": f"call_{cause}",
            },
            "extras": {
                "command": "",
                "metadata": {
                    "exit_code": code,
                    "pid": -1,
                    "working_dir": "/workspace/django",
                    "suffix": f"\n[The command completed with exit code {code}.]",
                },
            },
        }

    h1 = [
        {
            "id": 0,
            "timestamp": "2025-05-01T12:00:00.000000",
            "source": "user",
            "message": "Fix it",
            "action": "message",
            "args": {"content": "Fix it"},
        },
        run(1, "ls", "2025-05-01T12:00:01.000000", "Look at the repo."),
        obs(
            2,
            1,
            "manage.py\ndjango\n[The command completed with exit code 0.]",
            0,
            "2025-05-01T12:00:01.500000",
        ),
        run(3, "python -m pytest tests/forms", "2025-05-01T12:00:02.000000", "Run the form tests."),
        obs(
            4,
            3,
            "E   AssertionError\nFAILED tests/forms/test_a.py::test_clean\n[The command completed with exit code 1.]",
            1,
            "2025-05-01T12:00:09.000000",
        ),
        run(5, "python -m http.server 8000", "2025-05-01T12:00:10.000000", "Serve the docs."),
        obs(
            6,
            5,
            "Serving HTTP on 0.0.0.0 port 8000 ...\n[The command has no new output after 30 seconds. "
            "You may wait longer to see additional output by sending empty command '', send other commands to interact "
            "with the current process, or send keys to interrupt/kill the command.]",
            -1,
            "2025-05-01T12:00:40.000000",
        ),
        run(7, "C-c", "2025-05-01T12:00:41.000000", "Stop the server.", is_input=True),
        obs(
            8,
            7,
            "[Previous command outputs are truncated. Showing the last 3 lines of the output below.]\n"
            "GET /a 200\nGET /b 200\n^C\n[The command completed with exit code 130.]",
            130,
            "2025-05-01T12:00:41.200000",
        ),
        {
            "id": 9,
            "timestamp": "2025-05-01T12:00:42.000000",
            "source": "agent",
            "message": "Reading file: big.py",
            "action": "read",
            "args": {"path": "/workspace/django/big.py", "thought": "Read the module."},
        },
        {
            "id": 10,
            "timestamp": "2025-05-01T12:00:42.100000",
            "source": "agent",
            "message": "I read the file",
            "cause": 9,
            "observation": "read",
            "content": "line 1\nline 2\n<response clipped><NOTE>Due to the max output "
            "limit, only part of this file has been shown to you. You should retry this tool after you have searched "
            "inside the file with `grep -n`.</NOTE>",
            "extras": {"path": "/workspace/django/big.py"},
        },
        {
            "id": 11,
            "timestamp": "2025-05-01T12:00:43.000000",
            "source": "agent",
            "message": "All done",
            "action": "finish",
            "args": {"outputs": {}, "thought": ""},
        },
    ]
    older = [
        [
            {
                "id": 1,
                "timestamp": "2024-08-01T09:00:00",
                "source": "agent",
                "action": "run",
                "args": {"command": "cat build.log", "thought": "Read the build log."},
            },
            {
                "id": 2,
                "timestamp": "2024-08-01T09:00:01",
                "source": "agent",
                "observation": "run",
                "cause": 1,
                "content": "step 1 ok\n[... Observation truncated due to length ...]\nstep 99 failed",
                "extras": {"command_id": -1, "command": "cat build.log", "exit_code": 0},
            },
        ],
        [
            {
                "id": 3,
                "timestamp": "2024-08-01T09:00:02",
                "source": "agent",
                "action": "run",
                "args": {"command": "false", "thought": ""},
            },
            {
                "id": 4,
                "timestamp": "2024-08-01T09:00:02",
                "source": "agent",
                "observation": "run",
                "cause": 3,
                "content": "",
                "extras": {"command_id": -1, "command": "false", "exit_code": 1},
            },
        ],
        [
            {
                "id": 5,
                "timestamp": "2024-08-01T09:00:03",
                "source": "agent",
                "action": "edit",
                "args": {"path": "/workspace/missing.py", "content": "x = 1\n"},
            },
            {
                "id": 6,
                "timestamp": "2024-08-01T09:00:03",
                "source": "agent",
                "observation": "error",
                "cause": 5,
                "content": "File not found: /workspace/missing.py",
                "extras": {},
            },
        ],
    ]
    return [
        {
            "instance_id": "django__django-11099",
            "instruction": "Fix it",
            "history": h1,
            "metrics": {},
            "error": None,
            "test_result": {"git_patch": ""},
        },
        {
            "instance_id": "astropy__astropy-12907",
            "instruction": "Fix it",
            "history": older,
            "metrics": {},
            "error": None,
        },
    ]


# ------------------------------------------------------------------------------ Codex
def codex_exec() -> list[Any]:
    def item(
        kind: str, iid: str, cmd: str, out: str, code: int | None, status: str
    ) -> dict[str, Any]:
        return {
            "type": kind,
            "item": {
                "id": iid,
                "type": "command_execution",
                "command": cmd,
                "aggregated_output": out,
                "exit_code": code,
                "status": status,
            },
        }

    return [
        {"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"},
        {"type": "turn.started"},
        item("item.started", "item_0", "/bin/bash -lc 'ls -la'", "", None, "in_progress"),
        item(
            "item.completed",
            "item_0",
            "/bin/bash -lc 'ls -la'",
            "total 0\nCargo.toml\n",
            0,
            "completed",
        ),
        # A wrapper that nests each event under `data`, with its own timestamps.
        {
            "timestamp": "2025-09-10T08:00:00.000Z",
            "data": item(
                "item.started", "item_1", "/bin/bash -lc 'cargo test'", "", None, "in_progress"
            ),
        },
        {
            "timestamp": "2025-09-10T08:00:04.250Z",
            "data": item(
                "item.completed",
                "item_1",
                "/bin/bash -lc 'cargo test'",
                "test parse ... FAILED\nerror: test failed\n",
                101,
                "failed",
            ),
        },
        item("item.started", "item_2", "/bin/bash -lc 'sleep 600'", "", None, "in_progress"),
        {
            "type": "item.completed",
            "item": {"id": "item_3", "type": "agent_message", "text": "Stopped waiting."},
        },
        {"type": "turn.completed", "usage": {"input_tokens": 1200, "output_tokens": 80}},
    ]


CODEX_HEAD, CODEX_MID, CODEX_TAIL = (
    numbered("ok-", 3000),
    numbered("mid-", 1234),
    numbered("end-", 2000),
)


def codex_rollout() -> list[Any]:
    lines: list[Any] = [
        {
            "timestamp": "2025-09-10T09:00:00.000Z",
            "type": "session_meta",
            "payload": {
                "id": "0199a300-0000-7000-8000-000000000001",
                "timestamp": "2025-09-10T09:00:00.000Z",
                "cwd": "/home/dev/parser",
                "originator": "codex_cli_rs",
                "cli_version": "0.39.0",
            },
        },
        {
            "timestamp": "2025-09-10T09:00:00.100Z",
            "type": "turn_context",
            "payload": {
                "cwd": "/home/dev/parser",
                "approval_policy": "on-request",
                "model": "gpt-5",
            },
        },
    ]
    t = [0]

    def ts() -> str:
        t[0] += 1
        return f"2025-09-10T09:00:{t[0]:02d}.000Z"

    def cmd(call_id: str, argv: list[str], full: str, code: int, seen: str, secs: int) -> None:
        lines.append(
            {
                "timestamp": ts(),
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": call_id,
                    "arguments": json.dumps({"command": argv, "workdir": "/home/dev/parser"}),
                },
            }
        )
        lines.append(
            {
                "timestamp": ts(),
                "type": "event_msg",
                "payload": {
                    "type": "exec_command_begin",
                    "call_id": call_id,
                    "command": argv,
                    "cwd": "/home/dev/parser",
                },
            }
        )
        lines.append(
            {
                "timestamp": ts(),
                "type": "event_msg",
                "payload": {
                    "type": "exec_command_end",
                    "call_id": call_id,
                    "stdout": full,
                    "stderr": "",
                    "aggregated_output": full,
                    "exit_code": code,
                    "duration": {"secs": secs, "nanos": 500000000},
                    "formatted_output": seen,
                },
            }
        )
        lines.append(
            {
                "timestamp": ts(),
                "type": "response_item",
                "payload": {
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": json.dumps(
                        {
                            "output": seen,
                            "metadata": {"exit_code": code, "duration_seconds": secs + 0.5},
                        }
                    ),
                },
            }
        )

    full1 = CODEX_HEAD + CODEX_MID + CODEX_TAIL
    cmd(
        "call_1",
        ["bash", "-lc", "cargo test"],
        full1,
        101,
        CODEX_HEAD + f"…{len(CODEX_MID)} chars truncated…" + CODEX_TAIL,
        2,
    )
    cmd("call_2", ["bash", "-lc", "git status --short"], " M src/lib.rs\n", 0, " M src/lib.rs\n", 0)
    lines400 = "".join(f"line {i}\n" for i in range(400))
    cmd(
        "call_3",
        ["bash", "-lc", "cat big.txt"],
        lines400,
        0,
        "".join(f"line {i}\n" for i in range(140))
        + "[... omitted 120 of 400 lines ...]\n"
        + "".join(f"line {i}\n" for i in range(260, 400)),
        0,
    )
    cmd(
        "call_4",
        ["bash", "-lc", "cat dump.json"],
        numbered("tok-", 9000),
        0,
        "Warning: truncated output (original token count: 50000)\n" + numbered("tok-", 4000),
        0,
    )
    cmd(
        "call_5",
        ["bash", "-lc", "rg TODO"],
        numbered("todo-", 20000),
        0,
        numbered("todo-", 10240) + "\n[... output truncated to fit 10240 bytes ...]",
        1,
    )
    cmd(
        "call_6",
        ["bash", "-lc", "cargo doc"],
        numbered("doc-", 5000),
        0,
        numbered("doc-", 1000) + "…3000 tokens truncated…" + numbered("end-", 500),
        3,
    )
    return lines


# ------------------------------------------------------------------------------ Inspect AI
INSPECT_HEAD, INSPECT_TAIL = numbered("head-", 8192), numbered("tail-", 8192)


def inspect_sample() -> dict[str, Any]:
    big_full = INSPECT_HEAD + numbered("gone-", 40000 - 16384) + INSPECT_TAIL
    seen = (
        "The output of your call to bash was too long to be displayed.\nHere is a truncated version:\n"
        f"<START_TOOL_OUTPUT>\n{INSPECT_HEAD}{INSPECT_TAIL}\n<END_TOOL_OUTPUT>"
    )

    def asst(cid: str, fn: str, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "role": "assistant",
            "content": "",
            "source": "generate",
            "tool_calls": [{"id": cid, "function": fn, "arguments": args, "type": "function"}],
        }

    def tmsg(cid: str, fn: str, content: str, error: Any = None) -> dict[str, Any]:
        return {
            "role": "tool",
            "content": content,
            "tool_call_id": cid,
            "function": fn,
            "error": error,
        }

    def tev(
        cid: str, fn: str, args: dict[str, Any], result: str, start: str, end: str, **extra: Any
    ) -> dict[str, Any]:
        return {
            "event": "tool",
            "type": "function",
            "id": cid,
            "function": fn,
            "arguments": args,
            "result": result,
            "timestamp": start,
            "completed": end,
            "working_time": 0.5,
            "error": None,
            "truncated": None,
            **extra,
        }

    err_tests = {"type": "unknown", "message": "1 failed, 3 passed"}
    err_grep = {"type": "unknown", "message": ""}
    return {
        "id": "task-1",
        "epoch": 1,
        "input": "Fix the bug.",
        "target": "",
        "messages": [
            {"role": "system", "content": "You are an agent."},
            {"role": "user", "content": "Fix the bug."},
            asst("call_1", "bash", {"cmd": "ls"}),
            tmsg("call_1", "bash", "a.py\nb.py\n"),
            asst("call_2", "bash", {"cmd": "cat big.log"}),
            tmsg("call_2", "bash", seen),
            asst("call_3", "bash", {"cmd": "pytest -q"}),
            tmsg("call_3", "bash", "", err_tests),
            asst("call_4", "bash", {"cmd": "grep -q needle haystack"}),
            tmsg("call_4", "bash", "", err_grep),
            asst("call_5", "text_editor", {"command": "view", "path": "/repo/a.py"}),
            tmsg("call_5", "text_editor", "1\tprint('a')\n"),
        ],
        "events": [
            {"event": "sample_init", "timestamp": "2025-06-01T10:00:00+00:00"},
            tev(
                "call_1",
                "bash",
                {"cmd": "ls"},
                "a.py\nb.py\n",
                "2025-06-01T10:00:01+00:00",
                "2025-06-01T10:00:01.200000+00:00",
            ),
            tev(
                "call_2",
                "bash",
                {"cmd": "cat big.log"},
                big_full,
                "2025-06-01T10:00:02+00:00",
                "2025-06-01T10:00:02.500000+00:00",
                truncated=[40000, 16384],
            ),
            tev(
                "call_3",
                "bash",
                {"cmd": "pytest -q"},
                "",
                "2025-06-01T10:00:03+00:00",
                "2025-06-01T10:00:06+00:00",
                error=err_tests,
            ),
            tev(
                "call_4",
                "bash",
                {"cmd": "grep -q needle haystack"},
                "",
                "2025-06-01T10:00:07+00:00",
                "2025-06-01T10:00:07.100000+00:00",
                error=err_grep,
                events=[
                    {
                        "event": "sandbox",
                        "action": "exec",
                        "cmd": "bash --login -c 'grep -q needle haystack'",
                        "result": 2,
                        "output": "",
                        "timestamp": "2025-06-01T10:00:07+00:00",
                    }
                ],
            ),
            tev(
                "call_5",
                "text_editor",
                {"command": "view", "path": "/repo/a.py"},
                "1\tprint('a')\n",
                "2025-06-01T10:00:08+00:00",
                "2025-06-01T10:00:08.050000+00:00",
            ),
        ],
    }


def inspect_header() -> dict[str, Any]:
    return {
        "version": 2,
        "status": "success",
        "eval": {
            "eval_id": "e1",
            "run_id": "r1",
            "created": "2025-06-01T10:00:00+00:00",
            "task": "fix_bug",
            "task_id": "t1",
            "model": "openai/gpt-4o",
            "dataset": {"samples": 1},
        },
        "plan": {"name": "plan", "steps": []},
        "results": {"total_samples": 1, "completed_samples": 1},
        "stats": {
            "started_at": "2025-06-01T10:00:00+00:00",
            "completed_at": "2025-06-01T10:01:00+00:00",
        },
    }


def write_all() -> None:
    _lines("claude_session.jsonl", claude())
    broken = [json.dumps(o) for o in claude()[:6]]
    broken.insert(3, '{"type": "user", "message": {"role": "user", "content": [{"type": "tool_res')
    with open(os.path.join(HERE, "claude_broken.jsonl"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write("\n".join(broken) + "\n")
    _doc("swe_agent.traj", swe_agent())
    with open(os.path.join(HERE, "swe_agent_cut.traj"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(json.dumps(swe_agent(), indent=1)[:900])  # a file cut mid-write
    _doc("mini_v2.traj.json", mini_v2())
    _doc("mini_v1.traj.json", mini_v1())
    _lines("openhands_output.jsonl", openhands())
    _lines("codex_exec.jsonl", codex_exec())
    _lines("rollout-2025-09-10T09-00-00-0199a300.jsonl", codex_rollout())
    _doc("inspect_log.json", {**inspect_header(), "samples": [inspect_sample()]})
    with zipfile.ZipFile(os.path.join(HERE, "inspect_log.eval"), "w", zipfile.ZIP_DEFLATED) as zf:
        for name, obj in (
            ("_journal/start.json", {"version": 2, "eval": inspect_header()["eval"]}),
            ("samples/task-1_epoch_1.json", inspect_sample()),
            ("header.json", inspect_header()),
        ):
            info = zipfile.ZipInfo(
                name, date_time=(2025, 6, 1, 10, 0, 0)
            )  # fixed: the zip is reproducible
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, json.dumps(obj))
    with open(os.path.join(HERE, "not_a_trace.txt"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write("this is a plain text file\nwith two lines, neither of them JSON\n")


if __name__ == "__main__":
    write_all()
