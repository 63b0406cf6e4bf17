"""Every command whose stdout cannot be written (``> /dev/full``: ENOSPC on each write) says so in
one line and exits nonzero: a report, a lint verdict or a summary that never reached its file is
never reported as done (exit 0), and no traceback reaches the user."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

RUN = os.path.join(os.path.dirname(__file__), "..", "..", "sample_runs", "flaky-billing")

COMMANDS = [
    ("summary-json", ["summary", RUN, "--json"]),
    ("summary-text", ["summary", RUN]),
    ("lint-text", ["lint", RUN]),
    ("lint-sarif", ["lint", RUN, "--format", "sarif"]),
    ("tail-once", ["tail", "--once", "--json", RUN]),
    ("export-otlp", ["export", RUN, "--otlp-json", "-"]),
    ("show-unseen", ["show", RUN, "--id", "cmd_3f76", "--unseen"]),
]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(("name", "args"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_stdout_on_a_full_device_is_a_failure_in_one_line(name: str, args: list[str]) -> None:
    with open("/dev/full", "wb") as full:
        out = subprocess.run(
            [sys.executable, "-m", "tracetui", *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            env={**os.environ, "TRACETUI_NO_CACHE": "1"},
        )
    assert out.returncode in (1, 2), (name, out.returncode, out.stderr)
    lines = out.stderr.splitlines()
    assert "Traceback" not in out.stderr
    assert "Exception ignored" not in out.stderr
    assert lines, "nothing said"
    assert any("No space left on device" in line for line in lines), out.stderr
    assert len(lines) <= 2, out.stderr
