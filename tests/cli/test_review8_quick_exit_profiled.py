"""Review (session 8): a command run under a profiler or a tracer ends through the
interpreter's exit, so that the tool around it gets to write what it gathered.

``python -m cProfile -o FILE -m tracetui summary RUN`` wrote no FILE (and ``-s`` printed no
table): the profiler writes after the module's code returns, and summary's quick exit
(tracetui/quick_exit.py) ended the process before that."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "flaky-billing"


@pytest.mark.parametrize("args", [["summary"], ["summary", "--json"], ["lint"]], ids=" ".join)
def test_a_profile_is_written(args: list[str], tmp_path: Path) -> None:
    out = tmp_path / "profile.out"
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "tracetui", *args, str(SAMPLE)],
        capture_output=True,
        env=env,
        check=False,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    assert out.exists() and out.stat().st_size > 0
