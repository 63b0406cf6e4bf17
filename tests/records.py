"""Record builders shared by the tests (import as `from records import tool`)."""

from __future__ import annotations

import json
from typing import Any

Line = dict[str, Any] | str | bytes


def encode_line(item: Line) -> bytes:
    """A record dict becomes one JSON line; str/bytes are written verbatim (for bad lines)."""
    if isinstance(item, dict):
        return (json.dumps(item) + "\n").encode()
    if isinstance(item, str):
        return item.encode()
    return item


def tool(cid: str | None = None, **fields: Any) -> dict[str, Any]:
    """A valid tracetui/1 record; keyword arguments override fields."""
    rec: dict[str, Any] = {
        "schema": "tracetui/1",
        "span_type": "tool",
        "command_id": cid,
        "parent_command_id": None,
        "tool_name": "echo",
        "argv": ["echo", "hi"],
        "cwd": ".",
        "started_at": "2026-11-02T09:00:00Z",
        "duration_ms": 12,
        "exit_code": 0,
        "error": None,
        "agent_note": None,
        "stdout_bytes": 3,
        "stdout_cap": 8192,
        "stdout_truncated": False,
        "stdout_clip": None,
        "stdout_sha256": "ab" * 32,
        "preview_stdout": "hi\n",
        "stderr_bytes": 0,
        "stderr_cap": 8192,
        "stderr_truncated": False,
        "stderr_clip": None,
        "stderr_sha256": "cd" * 32,
        "preview_stderr": "",
        "encoding": "utf-8",
        "ok_preview": True,
        "redacted": 0,
    }
    rec.update(fields)
    return rec


def imported(cid: str | None = None, **fields: Any) -> dict[str, Any]:
    """A record as an importer writes it (``import/claude-code``, a Bash call that exited 0);
    keyword arguments override fields."""
    rec: dict[str, Any] = {
        "schema": "import/claude-code",
        "span_type": "tool",
        "source_format": "claude-code",
        "source_file": "session.jsonl",
        "command_id": cid,
        "parent_command_id": None,
        "tool_name": "Bash",
        "argv": ["bash", "-lc", "true"],
        "rerunnable": True,
        "cwd": None,
        "started_at": None,
        "duration_ms": None,
        "exit_code": 0,
        "error": None,
        "agent_note": None,
        "preview_stdout": "",
        "preview_stderr": "",
        "stdout_bytes": None,
        "stderr_bytes": None,
        "stdout_cap": None,
        "stderr_cap": None,
        "stdout_truncated": False,
        "stderr_truncated": False,
    }
    rec.update(fields)
    return rec
