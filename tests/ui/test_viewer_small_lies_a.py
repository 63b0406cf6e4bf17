"""Small lies of issue 16 (part a), in the viewer: silent-json opens on the record that lies."""

from __future__ import annotations

import os

from tests.ui.viewer_helpers import make_app, settle

SILENT = os.path.join(os.path.dirname(__file__), "..", "..", "sample_runs", "silent-json")


async def test_silent_json_opens_on_the_lying_record() -> None:
    app = make_app(SILENT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # Line 3: clipped without a flag while ok_preview is true (nothing failed in this run).
        assert app.selected_row == 2
