"""Small lies of issue 16 (part h): silent-json's detail flags its ok_preview claim; a followed
run's first span is selected as it arrives (the demo's first frame)."""

from __future__ import annotations

import os
from pathlib import Path

from records import tool
from test_live import BASE, start, until, write
from textual.color import Color
from viewer_helpers import make_app, settle

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
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


async def test_a_followed_run_selects_its_first_span_and_does_not_say_no_spans(
    tmp_path: Path,
) -> None:
    # The demo's first frame: a LATEST FAILURE badge in the list, "No row selected." in the
    # detail and a toast "this run has no spans yet" while spans were arriving.
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / BASE).write_text("")
    app = TraceApp(open_paths([str(folder)]), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(pilot)
        detail = app.query_one(DetailPane)
        assert detail.body.render().plain == "No spans yet."  # type: ignore[union-attr]
        write(folder, [tool("c1", exit_code=1, ok_preview=False)])
        await until(pilot, lambda: app.index is not None and len(app.index) == 1)
        await until(pilot, lambda: app.selected_row == 0)
        # The panes redraw after a live move within a tenth of a second (ui/app.py): wait for it.
        shown = lambda: str(detail.body.render().plain)  # type: ignore[union-attr]  # noqa: E731
        await until(pilot, lambda: shown() != "No spans yet.")
        assert shown().startswith("echo hi\n")
        assert "this run has no spans yet" not in [n.message for n in app._notifications]
