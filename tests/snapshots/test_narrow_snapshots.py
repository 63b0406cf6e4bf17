"""Snapshots at 80×24 (issue 16): the compact detail header, in the dark and the light theme.

Regenerate after a deliberate change: ``pytest tests/snapshots --snapshot-update``.
"""

from __future__ import annotations

import os
import shutil

import pytest
from test_snapshots import prepare

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ui", "data", "flaky")
FIXED = "/tmp/tracetui-snapshots/flaky"  # not TMPDIR: the path is on screen


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
def test_compact_detail_header_at_80x24(snap_compare, theme: str) -> None:  # type: ignore[no-untyped-def]
    # The detail shows the span's cwd, resolved against the run's folder: a copy of the run at
    # a fixed place keeps the screen the same wherever the checkout lives.
    shutil.copytree(DATA, FIXED, dirs_exist_ok=True)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        pilot.app.theme = theme
        await prepare(row=8)(pilot)  # two cut streams, one of unknown size: both verdicts shown

    app = TraceApp(open_paths([FIXED]), follow=False)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
