"""The viewer marks spans an incident rule flags (issue 17): a glyph before ARGV in the list,
the rule's reason in the detail, and ``w``/``W`` to walk them (lnav's keys for warnings)."""

from __future__ import annotations

from pathlib import Path

from viewer_helpers import settle

from tracetui.analysis.rows import SUSPICION_GLYPH, row_cells
from tracetui.analysis.suspicions import suspicions_at
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.detail import DetailPane

FLAKY = str(Path(__file__).resolve().parents[2] / "sample_runs" / "flaky-billing")


def suspicious(app: TraceApp) -> list[int]:
    assert app.index is not None
    return [r for r in range(len(app.index)) if suspicions_at(app.index, r)]


async def test_list_detail_and_keys_show_the_incident_rules() -> None:
    app = TraceApp(open_paths([FLAKY]), follow=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        index = app.index
        assert index is not None
        rows = suspicious(app)
        assert rows, "flaky-billing's 'expect green' attempts are TT022 (docs/sample-runs.md)"
        # The list: the glyph before ARGV exactly on the rows a rule fires on.
        marked = [
            r
            for r in range(len(index))
            if row_cells(index, r, index.get(r))[-1].text.startswith(SUSPICION_GLYPH)
        ]
        assert marked == rows
        # w from before the first suspicious row walks them in order; W walks back.
        app.select_row(0)
        await pilot.pause()
        walked = []
        for _ in rows:
            await pilot.press("w")
            await pilot.pause()
            walked.append(app.selected_row)
        assert walked == [r for r in rows if r > 0] + ([rows[-1]] if rows[0] == 0 else [])
        await pilot.press("W")
        await pilot.pause()
        assert app.selected_row == (rows[-2] if len(rows) > 1 else rows[-1])
        # The detail: each rule's code and reason, as lint words it.
        app.select_row(rows[-1])
        await pilot.pause()
        text = app.query_one(DetailPane).body.render().plain  # type: ignore[union-attr]
        for code, reason in suspicions_at(index, rows[-1]):
            assert f"{code} {reason}"[:60] in " ".join(text.split()), code
