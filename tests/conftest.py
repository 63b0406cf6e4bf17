"""Shared fixtures: building small runs on disk from records or raw lines."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

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
        "schema": "tracetui/1", "span_type": "tool", "command_id": cid, "parent_command_id": None,
        "tool_name": "echo", "argv": ["echo", "hi"], "cwd": ".", "started_at": "2026-11-02T09:00:00Z",
        "duration_ms": 12, "exit_code": 0, "error": None, "agent_note": None,
        "stdout_bytes": 3, "stdout_cap": 8192, "stdout_truncated": False, "stdout_clip": None,
        "stdout_sha256": "ab" * 32, "preview_stdout": "hi\n",
        "stderr_bytes": 0, "stderr_cap": 8192, "stderr_truncated": False, "stderr_clip": None,
        "stderr_sha256": "cd" * 32, "preview_stderr": "",
        "encoding": "utf-8", "ok_preview": True, "redacted": 0,
    }
    rec.update(fields)
    return rec


@pytest.fixture
def make_run(tmp_path: Path) -> Callable[..., Path]:
    """``make_run({"B": [...], "B.1": [...], "B.2.gz": [...]})`` → the folder holding them."""

    def build(members: dict[str, list[Line]], folder: str = "run") -> Path:
        root = tmp_path / folder
        root.mkdir(parents=True, exist_ok=True)
        for name, lines in members.items():
            data = b"".join(encode_line(x) for x in lines)
            path = root / name
            if name.endswith(".gz"):
                path.write_bytes(gzip.compress(data))
            else:
                path.write_bytes(data)
        return root

    return build
