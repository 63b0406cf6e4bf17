"""Small lies of issue 16, through the real entry point: what the CLI prints must still be true
when the command returns."""

from __future__ import annotations

import subprocess
import sys


def test_demo_no_ui_does_not_name_the_removed_folder() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tracetui", "demo", "--no-ui"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    # The temporary folder is removed on the way out: the line says so and names no path.
    assert out.stderr == (
        "tracetui demo: recorded 11 spans in a temporary run (removed; --keep DIR keeps it)\n"
    )
