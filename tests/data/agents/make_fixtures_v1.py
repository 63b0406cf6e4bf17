"""Write the OpenHands V1 and SWE-agent 1.x fixtures in this folder (output is fixed).

Built from the formats as docs/importers.md describes them (the SDK's typed events; SWE-agent's
1.x trajectory with ``replay_config``), in our own words and values. Expected spans are asserted
in tests/unit/test_import_openhands_v1.py and tests/unit/test_import_swe_agent_v1.py.

    python tests/data/agents/make_fixtures_v1.py
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
CLIP = (
    "<response clipped><NOTE>Due to the max output limit, only part of the full response has "
    "been shown to you.</NOTE>"
)
SAVED_CLIP = (
    "<response clipped><NOTE>Due to the max output limit, only part of the full response has "
    "been shown to you. The complete output has been saved to "
    "/home/dev/.openhands/conv1/observations/bash_output_20250901_100010_123.txt - you can use "
    "other tools to view the full content (truncated part starts around line 41).</NOTE>"
)
FILE_CLIP = (
    "<response clipped><NOTE>Due to the max output limit, only part of this file has been shown "
    "to you. You should retry this tool after you have searched inside the file with `grep -n` "
    "in order to find the line numbers of what you are looking for.</NOTE>"
)
SAVE_DIR = "/home/dev/.openhands/conv1/observations"


def ts(sec: int) -> str:
    return f"2025-09-01T10:{sec // 60:02d}:{sec % 60:02d}.000000"


def text(t: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": t, "cache_prompt": False}]


def action(
    n: int, sec: int, tool: str, act: dict[str, Any] | None, thought: str = ""
) -> dict[str, Any]:
    args = {k: v for k, v in (act or {}).items() if k != "kind"}
    return {
        "kind": "ActionEvent",
        "id": f"a{n:04d}-0000-4000-8000-00000000000{n % 10}",
        "timestamp": ts(sec),
        "source": "agent",
        "thought": text(thought) if thought else [],
        "action": act,
        "tool_name": tool,
        "tool_call_id": f"toolu_{n:02d}",
        "tool_call": {
            "id": f"toolu_{n:02d}",
            "name": tool,
            "arguments": json.dumps(args),
            "origin": "completion",
        },
        "llm_response_id": f"resp-{n}",
        "security_risk": "LOW",
    }


def terminal(cmd: str, *, is_input: bool = False) -> dict[str, Any]:
    return {"kind": "TerminalAction", "command": cmd, "is_input": is_input, "timeout": None}


def meta(code: int, *, prefix: str = "", suffix: str | None = None) -> dict[str, Any]:
    return {
        "exit_code": code,
        "pid": -1,
        "username": "dev",
        "hostname": "box",
        "working_dir": "/workspace/shop" if code != -1 else None,
        "py_interpreter_path": "/usr/bin/python3",
        "prefix": prefix,
        "suffix": suffix
        if suffix is not None
        else f"\n[The command completed with exit code {code}.]",
    }


def observed(
    n: int,
    sec: int,
    tool: str,
    obs: dict[str, Any],
) -> dict[str, Any]:
    return {
        "kind": "ObservationEvent",
        "id": f"o{n:04d}-0000-4000-8000-00000000000{n % 10}",
        "timestamp": ts(sec),
        "source": "environment",
        "tool_name": tool,
        "tool_call_id": f"toolu_{n:02d}",
        "observation": obs,
        "action_id": f"a{n:04d}-0000-4000-8000-00000000000{n % 10}",
    }


def term_obs(
    out: str,
    code: int | None,
    *,
    cmd: str,
    md: dict[str, Any],
    is_error: bool = False,
    timeout: bool = False,
    save_dir: str | None = None,
) -> dict[str, Any]:
    return {
        "kind": "TerminalObservation",
        "content": text(out),
        "is_error": is_error,
        "command": cmd,
        "exit_code": code,
        "timeout": timeout,
        "metadata": md,
        "full_output_save_dir": save_dir,
    }


def numbered(prefix: str, n: int) -> str:
    return "".join(f"{prefix} {i:04d}\n" for i in range(n))


def openhands_v1() -> list[dict[str, Any]]:
    long_head = numbered("build step", 40)
    long_tail = numbered("linking", 10)
    waiting = "[The command has no new output after 30 seconds. You may wait longer to see "
    waiting += "additional output by sending empty command '', send other commands to interact "
    waiting += "with the current process, or send keys to interrupt/kill the command.]"
    ev: list[dict[str, Any]] = [
        {
            "kind": "SystemPromptEvent",
            "id": "s0",
            "timestamp": ts(0),
            "source": "agent",
            "system_prompt": {"type": "text", "text": "You are a helpful agent."},
            "tools": [],
        },
        {
            "kind": "MessageEvent",
            "id": "m0",
            "timestamp": ts(1),
            "source": "user",
            "llm_message": {"role": "user", "content": text("Fix the checkout tests.")},
        },
        action(1, 2, "terminal", terminal("ls"), "Look around first."),
        observed(1, 3, "terminal", term_obs("README.md\nsrc\ntests", 0, cmd="ls", md=meta(0))),
        action(2, 4, "terminal", terminal("pytest -q tests/test_checkout.py")),
        observed(
            2,
            9,
            "terminal",
            term_obs("F.\n1 failed, 1 passed", 1, cmd="pytest -q", md=meta(1)),
        ),
        action(3, 10, "terminal", terminal("npm start")),
        observed(
            3,
            40,
            "terminal",
            term_obs(
                "listening on :3000",
                -1,
                cmd="npm start",
                md=meta(-1, suffix="\n" + waiting),
            ),
        ),
        action(4, 41, "terminal", terminal("C-c", is_input=True)),
        observed(
            4,
            42,
            "terminal",
            term_obs(
                "^C",
                130,
                cmd="C-c",
                md=meta(
                    130,
                    prefix="[Below is the output of the previous command.]\n",
                    suffix="\n[The command completed with exit code 130. CTRL+C was sent.]",
                ),
            ),
        ),
        action(5, 50, "terminal", terminal("make build")),
        observed(
            5,
            80,
            "terminal",
            term_obs(
                long_head + SAVED_CLIP + long_tail,
                0,
                cmd="make build",
                md=meta(0),
                save_dir=SAVE_DIR,
            ),
        ),
        action(
            6,
            81,
            "file_editor",
            {"kind": "FileEditorAction", "command": "view", "path": "/workspace/shop/big.py"},
        ),
        observed(
            6,
            82,
            "file_editor",
            {
                "kind": "FileEditorObservation",
                "content": text("     1\timport os\n" + FILE_CLIP + "   900\tmain()\n"),
                "is_error": False,
                "command": "view",
                "path": "/workspace/shop/big.py",
            },
        ),
        action(
            7,
            83,
            "file_editor",
            {"kind": "FileEditorAction", "command": "view", "path": "/workspace/shop/gone.py"},
        ),
        observed(
            7,
            84,
            "file_editor",
            {
                "kind": "FileEditorObservation",
                "content": text("The path /workspace/shop/gone.py does not exist."),
                "is_error": True,
                "command": "view",
                "path": "/workspace/shop/gone.py",
            },
        ),
        action(8, 85, "terminal", None),
        {
            "kind": "AgentErrorEvent",
            "id": "e0008",
            "timestamp": ts(86),
            "source": "agent",
            "tool_name": "terminal",
            "tool_call_id": "toolu_08",
            "error": 'Error validating args {"cmd": "ls"} for tool \'terminal\': command missing',
        },
        action(9, 87, "terminal", terminal("rm -rf /tmp/cache")),
        {
            "kind": "UserRejectObservation",
            "id": "r0009",
            "timestamp": ts(88),
            "source": "user",
            "tool_name": "terminal",
            "tool_call_id": "toolu_09",
            "action_id": action(9, 0, "terminal", None)["id"],
            "rejection_reason": "Not in my home directory, please.",
            "rejection_source": "user",
        },
        {
            "kind": "Condensation",
            "id": "c0",
            "timestamp": ts(89),
            "source": "environment",
            "forgotten_event_ids": [action(1, 0, "t", None)["id"], observed(1, 0, "t", {})["id"]],
            "summary": "The agent listed the files and ran the tests.",
            "llm_response_id": "resp-c",
        },
        action(10, 90, "think", {"kind": "ThinkAction", "thought": "Maybe a fixture issue."}),
        observed(10, 90, "think", {"kind": "ThinkObservation", "content": text("ok")}),
        action(11, 91, "terminal", terminal("git status")),
        observed(
            11,
            92,
            "terminal",
            term_obs(
                "No previous running command to interact with.",
                None,
                cmd="git status",
                md=meta(-1, suffix=""),
                is_error=True,
            ),
        ),
        action(12, 100, "terminal", terminal("python -m pytest")),
        {
            "kind": "ConversationErrorEvent",
            "id": "x0",
            "timestamp": ts(130),
            "source": "environment",
            "code": "LLMBadRequestError",
            "detail": "The model refused the request.",
        },
    ]
    return ev


def write_conversation_folder(events: list[dict[str, Any]]) -> None:
    """The SDK's own layout: a conversation folder with ``events/event-NNNNN-<id>.json``."""
    root = os.path.join(HERE, "openhands_v1_conv")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "events"))
    with open(os.path.join(root, "base_state.json"), "w", encoding="utf-8") as fh:
        json.dump({"id": "conv1", "execution_status": "error", "max_iterations": 50}, fh)
    for i, ev in enumerate(events[:8]):
        name = f"event-{i:05d}-{ev['id'].ljust(8, '0')}.json"
        with open(os.path.join(root, "events", name), "w", encoding="utf-8") as fh:
            fh.write(json.dumps(ev, separators=(",", ":")))


def swe_agent_v1() -> dict[str, Any]:
    big = numbered("row", 200)
    clip = (
        "<response clipped><NOTE>Observations should not exceeded 500 characters. "
        f"{len(big) - 500} characters were elided. Please try a different command.</NOTE>"
    )
    cancelled = (
        "The command 'sleep 999' was cancelled because it took more than 30 seconds. "
        "Please try a different command that completes more quickly."
    )

    def step(act: str, obs: str, secs: float, thought: str) -> dict[str, Any]:
        return {
            "action": act + "\n",
            "observation": obs,
            "response": f"{thought}\n\n```\n{act}\n```",
            "thought": thought,
            "execution_time": secs,
            "state": {"working_dir": "/testbed", "open_file": "n/a"},
            "query": [{"role": "system", "content": "..."}],
            "extra_info": {},
        }

    traj = [
        step("ls -F", "setup.py\nsrc/\ntests/", 0.05, "List the repository."),
        step(
            "python reproduce.py",
            'Traceback (most recent call last):\n  File "reproduce.py", line 3\nValueError: bad',
            1.5,
            "Reproduce the bug.",
        ),
        # Refused before it ran (a shell syntax error): kept in the trajectory only.
        step("cat <<EOF rows.txt", "", 0.0, "Read the data."),
        step("cat rows.txt", big, 0.2, "Read the data, again."),
        step("sleep 999", cancelled, 30.0, "Wait for the server."),
        step("submit", "diff --git a/src/x.py b/src/x.py", 0.4, "Submit the fix."),
    ]
    history: list[dict[str, Any]] = [
        {
            "role": "system",
            "content": "You are an agent.",
            "agent": "main",
            "message_type": "system",
        },
        {"role": "user", "content": "Fix the bug.", "agent": "main", "message_type": "observation"},
    ]
    for i, s in enumerate(traj):
        if i == 2:
            continue  # the refused step never reached the history
        history.append(
            {
                "role": "assistant",
                "content": s["response"],
                "thought": s["thought"],
                "action": s["action"],
                "agent": "main",
                "message_type": "action",
                "tool_calls": [{"id": f"call_{i}", "function": {"name": "bash"}}],
            }
        )
        shown = big[:500] + clip if s["observation"] is big else s["observation"]
        history.append(
            {
                "role": "tool",
                "content": [{"type": "text", "text": f"OBSERVATION:\n{shown}"}],
                "agent": "main",
                "message_type": "observation",
                "tool_call_ids": [f"call_{i}"],
            }
        )
    return {
        "trajectory": traj,
        "history": history,
        "info": {
            "swe_agent_version": "1.1.0",
            "swe_rex_version": "1.2.0",
            "exit_status": "submitted",
            "submission": "diff --git a/src/x.py b/src/x.py",
            "model_stats": {"instance_cost": 0.12, "api_calls": 6},
        },
        "replay_config": json.dumps({"env": {"repo": {"path": "/testbed"}}, "agent": {}}),
        "environment": "main",
    }


def swe_agent_v1_limit() -> dict[str, Any]:
    """A run SWE-agent stopped itself at its cost limit: its last step is the autosubmission,
    which has no action (nothing the model asked to run)."""
    doc = swe_agent_v1()
    doc["trajectory"] = [
        *doc["trajectory"][:2],
        {
            "action": "",
            "observation": "Exited (autosubmitted)",
            "response": "",
            "thought": "Exit due to cost limit",
            "execution_time": 0.0,
            "state": {},
            "query": [],
            "extra_info": {},
        },
    ]
    doc["history"] = doc["history"][:6]
    doc["info"]["exit_status"] = "submitted (exit_cost)"
    return doc


def write_all() -> None:
    events = openhands_v1()
    with open(os.path.join(HERE, "openhands_v1_events.json"), "w", encoding="utf-8") as fh:
        json.dump(events, fh, indent=1)
        fh.write("\n")
    write_conversation_folder(events)
    for name, doc in (
        ("swe_agent_v1.traj", swe_agent_v1()),
        ("swe_agent_v1_limit.traj", swe_agent_v1_limit()),
    ):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=1)
            fh.write("\n")


if __name__ == "__main__":
    write_all()
