"""`tracetui show` on an imported call that was never cut: the preview the agent saw is the whole
output, so it is printed (said on stderr), and `--unseen` has nothing to print."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

SESSION = Path(__file__).parents[1] / "data" / "agents" / "claude_session.jsonl"
PY = sys.executable


def tracetui(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([PY, "-m", "tracetui", *args], capture_output=True, timeout=60)


def result_text(tool_use_id: str) -> str:
    """The text the session's tool result holds for ``tool_use_id`` (what the agent saw)."""
    for line in SESSION.read_bytes().splitlines():
        for part in orjson.loads(line).get("message", {}).get("content", []):
            if isinstance(part, dict) and part.get("tool_use_id") == tool_use_id:
                content = part["content"]
                return content if isinstance(content, str) else content[0]["text"]
    raise AssertionError(tool_use_id)


def test_an_uncut_call_prints_its_preview_as_the_whole_output() -> None:
    p = tracetui("show", str(SESSION), "--id", "toolu_01")
    assert p.returncode == 0
    assert p.stdout == result_text("toolu_01").encode()
    assert p.stderr.decode() == (
        "tracetui: show: not cut: this is the preview in the claude-code trace, and it is the "
        "whole stdout (complete; not verified by a hash)\n"
    )


def test_unseen_on_an_uncut_call_prints_nothing_and_says_why() -> None:
    size = len(result_text("toolu_01").encode())
    p = tracetui("show", str(SESSION), "--id", "toolu_01", "--unseen")
    assert (p.returncode, p.stdout) == (0, b"")
    assert p.stderr.decode() == (
        f"tracetui: show: nothing unseen: the agent saw all {size:,} bytes of its stdout\n"
    )


def test_a_call_whose_cut_is_unknown_still_has_nothing_kept() -> None:
    p = tracetui("show", str(SESSION), "--id", "toolu_06")
    assert (p.returncode, p.stdout) == (1, b"")
    assert p.stderr.decode().endswith(
        "not shown: it is from an imported claude-code trace, which kept no full output\n"
    )
