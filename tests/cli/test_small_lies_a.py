"""Small lies of issue 16 (part a), through the real entry point: what docs/viewer.md promises
about the paths the viewer refuses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _tracetui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tracetui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("command", [[], ["view"]], ids=["bare-path", "view"])
def test_empty_file_exits_2_with_one_line(tmp_path: Path, command: list[str]) -> None:
    empty = tmp_path / "feedback_record.jsonl"
    empty.write_bytes(b"")
    out = _tracetui(*command, str(empty))
    assert out.returncode == 2
    assert out.stderr == f"tracetui: {empty}: empty file (0 bytes): nothing to view yet\n"
    assert out.stdout == ""
