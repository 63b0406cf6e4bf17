"""Naming a trace's format from its content: cheap, bounded, and never raising.

Only the first :data:`SNIFF_BYTES` of a file are read (for an ``.eval`` zip, its directory of
entry names). A JSONL file whose first record is one of tracetui's own dialects is ours (None),
whatever its name; so is anything not recognised, which is then read as JSONL and its odd lines
reported as bad lines.
"""

from __future__ import annotations

import re
import zipfile
from typing import Any

import orjson

from tracetui.importers._common import read_head

_CODEX_EXEC_TYPES = {
    "thread.started",
    "turn.started",
    "item.started",
    "item.updated",
    "item.completed",
    "turn.completed",
    "turn.failed",
}
_CODEX_ROLLOUT_TYPES = {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
_CODEX_MSG_TYPES = {
    "exec_command_begin",
    "exec_command_end",
    "task_started",
    "agent_message",
    "session_configured",
    "task_complete",
    "token_count",
}
_CLAUDE_TYPES = {"user", "assistant", "summary", "system", "file-history-snapshot"}


def _key(name: str) -> re.Pattern[str]:
    return re.compile(r'"' + re.escape(name) + r'"\s*:')


_K = {
    k: _key(k)
    for k in (
        "trajectory",
        "action",
        "observation",
        "history",
        "instance_id",
        "mini_version",
        "messages",
        "samples",
        "eval",
        "version",
        "task",
        "role",
        "content",
        "tool_calls",
    )
}


def sniff(path: str) -> str | None:
    """The foreign format of ``path`` (e.g. ``claude-code``), or None when it is ours or unknown."""
    try:
        head = read_head(path)
    except (OSError, EOFError, ValueError):
        return None
    try:
        if head.startswith(b"PK\x03\x04"):
            return _sniff_zip(path)
        return _sniff_text(head)
    except Exception:
        return None


def _sniff_zip(path: str) -> str | None:
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
    if (
        "header.json" in names
        or "_journal/start.json" in names
        or any(n.startswith("samples/") and n.endswith(".json") for n in names)
    ):
        return "inspect-ai"
    return None


def _first_lines(text: str, n: int = 30) -> list[Any]:
    """Up to ``n`` complete JSON lines from the head (the last, maybe partial, line is dropped)."""
    out: list[Any] = []
    lines = text.split("\n")
    if len(lines) > 1:
        lines = lines[:-1]
    for line in lines[:n]:
        if not line.strip():
            continue
        try:
            out.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            out.append(None)
    return out


def _ours(obj: Any) -> bool:
    if not isinstance(obj, dict):
        return False
    schema = obj.get("schema")
    if isinstance(schema, str) and (schema.startswith("tracetui/") or schema.startswith("import/")):
        return True
    return any(
        k in obj for k in ("span_type", "stdout_tail", "stderr_tail", "argv", "preview_stdout")
    )


def _sniff_text(head: bytes) -> str | None:
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if not text or text[0] not in "{[":
        return None
    lines = _first_lines(text)
    if lines and _ours(lines[0]):
        return None
    for obj in lines:
        fmt = _line_format(obj)
        if fmt:
            return fmt
    return _whole_file_format(text)


def _line_format(obj: Any) -> str | None:
    """The format one JSON line belongs to, for line-oriented formats."""
    if not isinstance(obj, dict):
        return None
    kind = obj.get("type")
    if isinstance(kind, str):
        if kind in _CLAUDE_TYPES and ("uuid" in obj or "sessionId" in obj or "leafUuid" in obj):
            return "claude-code"
        if kind in _CODEX_EXEC_TYPES:
            return "codex"
        if kind in _CODEX_ROLLOUT_TYPES and "payload" in obj:
            return "codex"
    # Wrappers may nest each Codex event under a key of their own.
    for inner_key in ("data", "event", "msg", "payload"):
        inner = obj.get(inner_key)
        if isinstance(inner, dict) and isinstance(inner.get("type"), str):
            if inner["type"] in _CODEX_EXEC_TYPES or inner["type"] in _CODEX_MSG_TYPES:
                return "codex"
    if isinstance(obj.get("history"), list) and ("instance_id" in obj or "instance" in obj):
        return "openhands"
    if (
        isinstance(obj.get("id"), int)
        and ("action" in obj or "observation" in obj)
        and "source" in obj
    ):
        return "openhands"  # an event stream, one event per line
    return None


def _whole_file_format(text: str) -> str | None:
    """Formats stored as one JSON document: judged from the keys in its first bytes."""

    def has(*keys: str) -> bool:
        return all(_K[k].search(text) for k in keys)

    if has("instance_id", "history"):
        return "openhands"  # an output.jsonl whose first line is longer than the sniffed head
    if text.startswith("{") and has("trajectory") and (has("action") or has("observation")):
        return "swe-agent"
    if "mini-swe-agent" in text or has("mini_version") or "mswea_bash_command" in text:
        return "mini-swe-agent"
    if text.startswith("[") and has("role", "content") and "<returncode>" in text:
        return "mini-swe-agent"  # 1.x: a bare list of messages
    if text.startswith("{") and has("eval", "version") and (has("samples") or has("task")):
        return "inspect-ai"
    if (
        text.startswith("[")
        and has("action")
        and re.search(r'"source"\s*:\s*"(agent|user|environment)"', text)
    ):
        return "openhands"  # an event stream saved as one JSON list
    return None
