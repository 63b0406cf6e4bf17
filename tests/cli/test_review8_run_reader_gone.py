"""Review (session 8): ``tracetui run`` exits with the command's status (its help says so), also
when its stdout's reader has gone away; it exits 0 then (run_cmd re-raises BrokenPipeError to
cli.main, whose answer for a reader gone is 0), so under ``set -o pipefail`` a failing command
piped to a reader that stops early passed. Now the record is written, what is left of the view
goes nowhere and the command's status stands."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_a_reader_gone_keeps_the_commands_status(tmp_path: Path) -> None:
    read, write = os.pipe()
    os.close(read)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    argv = [sys.executable, "-m", "tracetui", "run", "--log", str(tmp_path / "log.jsonl")]
    try:
        done = subprocess.run(
            [*argv, "--", sys.executable, "-c", "print('hi'); raise SystemExit(3)"],
            stdout=write,
            stderr=subprocess.PIPE,
            env=env,
            check=False,
            timeout=60,
        )
    finally:
        os.close(write)
    assert done.returncode == 3, done.stderr
    assert b"Traceback" not in done.stderr and b"Exception ignored" not in done.stderr
    log = (tmp_path / "log.jsonl").read_text()
    assert '"exit_code":3' in log.replace(" ", "")
