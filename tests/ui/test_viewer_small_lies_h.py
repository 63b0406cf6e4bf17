"""Small lies of issue 16 (part h): silent-json's detail flags its ok_preview claim."""

from __future__ import annotations

import os

from textual.color import Color
from viewer_helpers import make_app, settle

from tracetui.ui.widgets.detail import DetailPane

SILENT = os.path.join(os.path.dirname(__file__), "..", "..", "sample_runs", "silent-json")
FLAG = "record    ok_preview true  ⚠ but 11,539 bytes were never shown"


async def test_silent_json_detail_flags_its_ok_preview_claim() -> None:
    app = make_app(SILENT)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        body = app.query_one(DetailPane).body.render()
        lines = body.plain.splitlines()  # type: ignore[union-attr]
        assert FLAG in lines
        # In the warn colour of the theme (readable: ui/palette.py), beside the claim itself.
        start = body.plain.index(FLAG) + len("record    ")  # type: ignore[union-attr]
        styles = [s.style for s in body.spans if s.start <= start < s.end]  # type: ignore[union-attr]
        warn = Color.parse(app.theme_variables["tt-warning"])
        colours = [getattr(s, "foreground", None) for s in styles]
        assert warn in colours
