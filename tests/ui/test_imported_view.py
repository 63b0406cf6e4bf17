"""Another agent's trace in the viewer: its format in the header, its source in the detail."""

from __future__ import annotations

from pathlib import Path

from viewer_helpers import settle

AGENTS = Path(__file__).resolve().parents[1] / "data" / "agents"


async def test_swe_agent_trace_opens_on_its_latest_failure() -> None:
    from tracetui.store.runset import open_paths
    from tracetui.ui.app import TraceApp
    from tracetui.ui.widgets.detail import DetailPane
    from tracetui.ui.widgets.run_header import RunHeader

    app = TraceApp(open_paths([str(AGENTS / "swe_agent.traj")]), follow=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        header = app.query_one(RunHeader)
        # Followed live now, the header has less room: the format may be named in its short form.
        assert "· swe-agent" in str(header.render())
        assert app.index is not None and app.index.ids[app.selected_row] == "step-5"
        detail = app.query_one(DetailPane).body.content.plain
        assert "swe-agent trace, step 4" in detail
        assert "SWE-agent records no exit code" in detail
