"""The footer shows "n Next match" only while a search is active (with none, n is next failure)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets._footer import FooterKey
from viewer_helpers import settle

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.footer import ViewerFooter

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "flaky-billing"


def footer_keys(app: TraceApp) -> list[str]:
    footer = app.screen.query_one(ViewerFooter)
    return [f"{k.key_display} {k.description}" for k in footer.query(FooterKey)]


async def test_next_match_is_shown_only_during_a_search() -> None:
    app = TraceApp(open_paths([str(SAMPLE)]), follow=False)
    async with app.run_test(size=(240, 40)) as pilot:
        await settle(pilot)
        before = footer_keys(app)
        assert "n Next match" not in before
        assert "e Next failure" in before and "/ Search" in before
        await pilot.press("slash", *"pytest", "enter")
        await settle(pilot)
        assert app.search.active
        during = footer_keys(app)
        assert "n Next match" in during
        assert [k for k in during if k != "n Next match"] == before
        await pilot.press("escape")
        await settle(pilot)
        assert not app.search.active
        assert footer_keys(app) == before


async def test_at_80_columns_a_search_leaves_postmortem_out() -> None:
    app = TraceApp(open_paths([str(SAMPLE)]), follow=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert footer_keys(app)[:6] == [
            "r Re-run",
            "e Next failure",
            "/ Search",
            "P Postmortem",
            "? Help",
            "q Quit",
        ]
        await pilot.press("slash", *"pytest", "enter")
        await settle(pilot)
        # Whole keys only: n takes the room, Postmortem goes, Help stays.
        assert footer_keys(app)[:6] == [
            "r Re-run",
            "n Next match",
            "e Next failure",
            "/ Search",
            "? Help",
            "q Quit",
        ]
