"""`kill -9` of `tracetui rerun` while its child runs: the child dies with it (parent-death signal).

Before, nothing could run in tracetui after a SIGKILL, so the re-run's child slept on. Linux only
(``prctl(PR_SET_PDEATHSIG)``). Waits are bounded counts of short sleeps, never timed assertions.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from records import tool

PY = sys.executable
SCRIPT = Path(PY).parent / "tracetui"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [PY, "-m", "tracetui"]
SLEEPER = "import os, time\nopen('child.pid', 'w').write(str(os.getpid()))\ntime.sleep(120)\n"

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")


def _state(pid: int) -> str | None:
    """The process state letter from /proc, None once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def _gone(pid: int) -> bool:
    for _ in range(200):  # SIGKILL is delivered asynchronously: a bounded number of looks
        if _state(pid) in (None, "Z", "X"):
            return True
        time.sleep(0.05)
    return False


# The viewer runs a re-run in a worker thread: the signal follows the thread that forked, which
# waits for the child, so the child lives while the thread does and dies with the process.
IN_A_THREAD = [
    PY,
    "-c",
    "import sys, threading\n"
    "from tracetui.rerun import runner\n"
    "t = threading.Thread(target=runner.run_spooled, args=([sys.executable, 'sleeper.py'], '.'))\n"
    "t.start()\nt.join()\n",
]
CASES = [
    ("text", [*ENTRY, "rerun", ".", "--id", "x1", "--yes", "--no-sidecar"]),
    ("json", [*ENTRY, "rerun", ".", "--id", "x1", "--yes", "--no-sidecar", "--json"]),
    ("worker-thread", IN_A_THREAD),
]


@pytest.mark.parametrize(("name", "command"), CASES, ids=[c[0] for c in CASES])
def test_sigkill_of_tracetui_kills_the_reruns_child(
    tmp_path: Path, name: str, command: list[str]
) -> None:
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    rec = tool("x1", argv=[PY, "sleeper.py"], cwd=str(tmp_path))
    (tmp_path / "run.jsonl").write_text(json.dumps(rec) + "\n")
    proc = subprocess.Popen(
        command,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    child = 0
    try:
        pid_file = tmp_path / "child.pid"
        for _ in range(1200):
            if pid_file.exists() and pid_file.read_text():
                break
            time.sleep(0.05)
        child = int(pid_file.read_text())
        assert _state(child) not in (None, "Z", "X")
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
        assert _gone(child), f"the re-run's child {child} outlived tracetui"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if child:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
