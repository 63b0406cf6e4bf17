"""Snapshots at 80×24 (issue 16): the compact detail header, in the dark and the light theme.

Regenerate after a deliberate change: ``pytest tests/snapshots --snapshot-update``.
"""

from __future__ import annotations

import pytest
from test_snapshots import app_for, prepare


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
def test_compact_detail_header_at_80x24(snap_compare, theme: str) -> None:  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        pilot.app.theme = theme
        await prepare(row=8)(pilot)  # two cut streams, one of unknown size: both verdicts shown

    assert snap_compare(app_for(), terminal_size=(80, 24), run_before=run_before)
