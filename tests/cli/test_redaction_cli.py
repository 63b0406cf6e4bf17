"""Secrets never land on disk, through the real entry point: `tracetui run` redacts the argv,
the note and the error as well as the output; `tracetui rerun` refuses the redacted argv; lint
finds nothing left in what was recorded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson

PY = sys.executable
REFUSAL = (
    "the argv holds 2 redacted secrets ([REDACTED] in the record): "
    "re-run it yourself with the real values"
)


def tracetui(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "tracetui", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


def test_run_redacts_argv_and_note_and_rerun_refuses(tmp_path: Path) -> None:
    p = tracetui(
        tmp_path,
        "run",
        "--log",
        "B.jsonl",
        "--note",
        "expect a login with DB_PASSWORD=hunter2",
        "--",
        PY,
        "-c",
        "print('ok')",
        "--password",
        "hunter2",
        "https://ann:s3cret@db.example.com/x",
    )
    assert (p.returncode, p.stdout, p.stderr) == (0, "ok\n", "")
    raw = (tmp_path / "B.jsonl").read_bytes()
    assert b"hunter2" not in raw and b"s3cret" not in raw
    rec = orjson.loads(raw)
    assert rec["argv"] == [
        PY,
        "-c",
        "print('ok')",
        "--password",
        "[REDACTED]",
        "https://ann:[REDACTED]@db.example.com/x",
    ]
    assert rec["argv_redacted"] == 2
    assert rec["agent_note"] == "expect a login with DB_PASSWORD=[REDACTED]"

    lint = tracetui(tmp_path, "lint", "--strict", "B.jsonl")
    assert (lint.returncode, lint.stdout) == (0, "issues=0\n")

    cid = rec["command_id"]
    r = tracetui(tmp_path, "rerun", "B.jsonl", "--id", cid, "--yes")
    assert r.returncode == 2
    assert r.stderr == f"tracetui: rerun: span {cid!r} cannot be re-run: {REFUSAL}\n"
    assert r.stdout == ""
    assert not (tmp_path / "B.jsonl.reruns.jsonl").exists()


def test_a_secret_in_a_command_that_cannot_start_is_redacted_in_the_error(tmp_path: Path) -> None:
    p = tracetui(tmp_path, "run", "--log", "B.jsonl", "--", "no-such-tool-password=hunter2")
    assert p.returncode == 127
    assert p.stderr == "tracetui run: command not found: no-such-tool-password=[REDACTED]\n"
    rec = orjson.loads((tmp_path / "B.jsonl").read_bytes())
    assert rec["error"] == "command not found: no-such-tool-password=[REDACTED]"
    assert rec["tool_name"] == "no-such-tool-password=[REDACTED]"
    assert b"hunter2" not in (tmp_path / "B.jsonl").read_bytes()


def test_lint_reports_a_secret_in_a_foreign_argv(tmp_path: Path) -> None:
    rec = {"command": ["mysql", "--password", "hunter2"], "stdout_tail": "", "exit_code": 0}
    (tmp_path / "run.jsonl").write_bytes(orjson.dumps(rec) + b"\n")
    p = tracetui(tmp_path, "lint", "--strict", "run.jsonl")
    assert p.returncode == 1
    assert p.stdout == (
        "run.jsonl:1: TT015 command holds secret-looking text (secret-flag)\nissues=1\n"
    )
