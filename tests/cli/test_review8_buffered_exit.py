"""Review (session 8): what a batch command printed to a pipe or a file that cannot take it is
told as any other write's failure, also when it was still in stdout's buffer at the end.

With stdout block-buffered (a pipe or a file, and no ``PYTHONUNBUFFERED``, which this suite's
shell sets) a short summary is only written when the process ends; a reader gone or a full disk
then reached the interpreter's teardown, which printed ``Exception ignored in: <_io.TextIOWrapper
...>`` and a ``BrokenPipeError``/``OSError`` line and exited 120, where a long output (written at
once) exits 0 for a reader gone and 2 with one line for a full disk. A reader gone after the
command ended leaves the command's own status (lint's verdict)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "flaky-billing"
COMMANDS = [["summary"], ["summary", "--json"], ["lint"], ["lint", "--format", "json"]]
STATUS = [
    (["lint", "--strict"], 1),
    (["lint", "--strict", "--format", "json"], 1),
    (["lint", "--strict", "--format", "sarif"], 1),  # over 8 KiB: written at once, in lint
    (["summary"], 0),
]
"""A command's status as it ends with nothing in the way (lint --strict: this run's warnings)."""


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    env.pop("PYTHONUNBUFFERED", None)  # the buffering a user's shell has
    env.pop("TRACETUI_DEBUG", None)
    return env


def _tracetui(args: list[str], stdout: int, tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "tracetui", *args, str(SAMPLE)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=_env(tmp_path),
        check=False,
        timeout=60,
    )


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_reader_gone_is_no_error(args: list[str], tmp_path: Path) -> None:
    read, write = os.pipe()
    os.close(read)
    try:
        for _ in range(2):  # cold, then warm (a kept summary's own way out)
            done = _tracetui(args, write, tmp_path)
            assert (done.returncode, done.stderr) == (0, b"")
    finally:
        os.close(write)


@pytest.mark.parametrize(("args", "status"), STATUS, ids=[" ".join(a) for a, _s in STATUS])
def test_a_reader_gone_keeps_the_status(args: list[str], status: int, tmp_path: Path) -> None:
    """lint's verdict is its status: a reader gone does not turn it into 0, whether lint's
    output was still in the buffer at the end (it was 120 before, and 0 with the flush alone)
    or was written at once by lint (SARIF of this run: it was 0)."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = _tracetui(args, write, tmp_path)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (status, b"")
    assert _tracetui(args, subprocess.DEVNULL, tmp_path).returncode == status


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_full_disk_is_one_line(args: list[str], tmp_path: Path) -> None:
    for _ in range(2):
        with open("/dev/full", "wb") as full:
            done = _tracetui(args, full.fileno(), tmp_path)
        assert (done.returncode, done.stderr) == (2, b"tracetui: No space left on device\n")
