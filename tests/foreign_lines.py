"""Lines of other agents' sessions, built for the live-following tests
(import as ``from foreign_lines import cc_call, cc_result, …``).

Shapes follow what tracetui's importers read (docs/importers.md): a Claude Code session puts a
call in an assistant line's ``message.content[]`` and its result in a later user line; Codex
``exec --json`` pairs ``item.started`` / ``item.completed`` by ``item.id``.
"""

from __future__ import annotations

import json
from typing import Any

SESSION = "5f0c1e2a-0000-4000-8000-00000000beef"


def line(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj) + "\n").encode()


def cc_prompt(text: str = "fix the checkout tests") -> dict[str, Any]:
    """The user's first line of a session (what makes a new file read as Claude Code)."""
    return {
        "sessionId": SESSION,
        "uuid": "p-0",
        "type": "user",
        "timestamp": "2026-12-01T09:59:59.000Z",
        "message": {"role": "user", "content": text},
    }


def cc_call(
    n: int,
    command: str,
    *,
    message: str | None = None,
    sidechain: bool = False,
    second: int = 0,
) -> dict[str, Any]:
    """An assistant line holding one Bash ``tool_use`` with id ``toolu_<n>``."""
    msg: dict[str, Any] = {
        "role": "assistant",
        "content": [
            {
                "type": "tool_use",
                "id": f"toolu_{n:02d}",
                "name": "Bash",
                "input": {"command": command, "description": f"step {n}"},
            }
        ],
    }
    if message is not None:
        msg["id"] = message
    return {
        "sessionId": SESSION,
        "uuid": f"a-{n}",
        "type": "assistant",
        "isSidechain": sidechain,
        "cwd": "/work/shop",
        "timestamp": f"2026-12-01T10:00:{second:02d}.000Z",
        "message": msg,
    }


def cc_result(n: int, text: str, *, error: bool = False, second: int = 1) -> dict[str, Any]:
    """The user line carrying the result of ``toolu_<n>``."""
    return {
        "sessionId": SESSION,
        "uuid": f"u-{n}",
        "type": "user",
        "timestamp": f"2026-12-01T10:00:{second:02d}.000Z",
        "message": {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{n:02d}", "content": text}
                | ({"is_error": True} if error else {})
            ],
        },
    }


def cc_text(n: int, text: str, *, message: str) -> dict[str, Any]:
    """An assistant line with text only (a new turn when ``message`` is new)."""
    return {
        "sessionId": SESSION,
        "uuid": f"t-{n}",
        "type": "assistant",
        "timestamp": "2026-12-01T10:01:00.000Z",
        "message": {
            "id": message,
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
        },
    }


def cx_started(n: int, command: str) -> dict[str, Any]:
    """``codex exec --json``: a command starts."""
    return {
        "type": "item.started",
        "item": {
            "id": f"item_{n}",
            "type": "command_execution",
            "command": f"/bin/bash -lc '{command}'",
            "aggregated_output": "",
            "exit_code": None,
            "status": "in_progress",
        },
    }


def cx_completed(n: int, command: str, output: str, code: int) -> dict[str, Any]:
    """``codex exec --json``: the command ``item_<n>`` ended."""
    return {
        "type": "item.completed",
        "item": {
            "id": f"item_{n}",
            "type": "command_execution",
            "command": f"/bin/bash -lc '{command}'",
            "aggregated_output": output,
            "exit_code": code,
            "status": "completed" if code == 0 else "failed",
        },
    }


def wrapped(obj: dict[str, Any], second: int = 0) -> dict[str, Any]:
    """One event as a logger writes it: under ``data``, with its own timestamp."""
    return {"timestamp": f"2026-12-01T10:00:{second:02d}.000Z", "data": obj}


def oh_run(eid: int, command: str) -> dict[str, Any]:
    """An OpenHands event stream line: the agent runs a shell command."""
    return {
        "id": eid,
        "timestamp": "2026-12-01T10:00:00",
        "source": "agent",
        "action": "run",
        "args": {"command": command, "thought": f"step {eid}"},
    }


def oh_obs(eid: int, cause: int, output: str, code: int) -> dict[str, Any]:
    """The observation answering the action ``cause``, with its exit code."""
    return {
        "id": eid,
        "timestamp": "2026-12-01T10:00:02",
        "source": "environment",
        "cause": cause,
        "observation": "run",
        "content": output,
        "extras": {"command": "", "metadata": {"exit_code": code}},
    }
