"""`tracetui run`'s kept-output options through the entry point: --keep-budget, --no-keep, refusals."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

PY = sys.executable
PRINT = [PY, "-c", "print('x' * 100)"]


def tracetui(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([PY, "-m", "tracetui", *args], cwd=cwd, capture_output=True, timeout=60)


@pytest.mark.parametrize(
    "value", ["lots", "1.5G", "-3", "M"], ids=["word", "dot", "negative", "unit"]
)
def test_a_bad_budget_is_a_usage_error(tmp_path: Path, value: str) -> None:
    p = tracetui(tmp_path, "run", "--keep-budget", value, "--", *PRINT)
    assert p.returncode == 2 and p.stdout == b""
    assert b"--keep-budget: not a size in bytes (like 268435456, 256M or 1G)" in p.stderr
    assert os.listdir(tmp_path) == []  # nothing ran, nothing written


def test_no_keep_writes_no_store_and_no_fields(tmp_path: Path) -> None:
    p = tracetui(tmp_path, "run", "--no-keep", "--cap", "10", "--", *PRINT)
    assert p.returncode == 0 and p.stderr == b""
    rec = orjson.loads((tmp_path / "feedback_record.jsonl").read_bytes())
    assert "stdout_kept" not in rec
    assert not (tmp_path / "feedback_record.jsonl.kept").exists()


def test_a_small_budget_says_the_stream_was_not_kept(tmp_path: Path) -> None:
    code = [PY, "-c", "import os, sys; sys.stdout.buffer.write(os.urandom(5000))"]
    p = tracetui(tmp_path, "run", "--keep-budget", "1K", "--cap", "10", "--", *code)
    assert p.returncode == 0
    assert p.stderr.decode().splitlines() == [
        "tracetui run: stdout not kept: over the keep budget of 1024 bytes"
    ]
    assert orjson.loads((tmp_path / "feedback_record.jsonl").read_bytes())["stdout_kept"] is None


def test_a_link_planted_as_the_store_is_named_and_the_command_still_recorded(
    tmp_path: Path,
) -> None:
    (tmp_path / "target").mkdir()
    os.symlink(tmp_path / "target", tmp_path / "feedback_record.jsonl.kept")
    p = tracetui(tmp_path, "run", "--cap", "10", "--", *PRINT)
    assert (p.returncode, p.stdout.startswith(b"xxxxxxxxxx")) == (0, True)
    assert p.stderr.decode().splitlines() == [
        f"tracetui run: output not kept: {tmp_path}/feedback_record.jsonl.kept: refused, it is a "
        "symbolic link (tracetui never follows a link beside a trace)"
    ]
    assert os.listdir(tmp_path / "target") == []
    rec = orjson.loads((tmp_path / "feedback_record.jsonl").read_bytes())
    assert (rec["stdout_kept"], rec["stderr_kept"]) == (None, None)
