"""Small lies of issue 16 (part a), through the real entry point: what docs/viewer.md promises
about the paths the viewer refuses."""

from __future__ import annotations

import json
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


def _record(folder: Path, names: list[str]) -> None:
    folder.mkdir()
    lines = [
        json.dumps(
            {"schema": "tracetui/1", "span_type": "tool", "command_id": n, "argv": ["true"]}
            | {"cwd": ".", "exit_code": 0, "started_at": "2026-11-02T09:14:03.120Z"}
        )
        for n in names
    ]
    (folder / "feedback_record.jsonl").write_text("\n".join(lines) + "\n")


def test_folder_of_run_folders_opens_its_sub_folders(tmp_path: Path) -> None:
    _record(tmp_path / "one", ["a", "b"])
    _record(tmp_path / "two", ["c"])
    (tmp_path / "three").mkdir()  # a sub-folder without a run is passed over
    out = _tracetui("summary", str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    summary = json.loads(out.stdout)
    assert summary["files"] == [
        str(tmp_path / "one" / "feedback_record.jsonl"),
        str(tmp_path / "two" / "feedback_record.jsonl"),
    ]
    assert summary["spans"] == 3


def test_folder_without_runs_below_still_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    out = _tracetui("view", str(tmp_path))
    assert out.returncode == 2
    assert out.stderr == (
        f"tracetui: {tmp_path}: no run files (*.jsonl, or another agent's trace) in this"
        " directory or its sub-folders\n"
    )
