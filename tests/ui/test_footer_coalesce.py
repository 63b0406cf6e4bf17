"""The footer lays its keys out again only when what it shows changes, once for many requests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widget import Widget
from textual.widgets._footer import FooterKey
from viewer_helpers import settle

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.footer import ViewerFooter

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "flaky-billing"


@pytest.fixture
def composed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the footer's compositions (one entry each)."""
    calls: list[int] = []
    compose = ViewerFooter.compose

    def counted(self: ViewerFooter) -> Iterator[Widget]:
        calls.append(1)
        return compose(self)

    monkeypatch.setattr(ViewerFooter, "compose", counted)
    return calls


def keys(app: TraceApp) -> list[str]:
    return [f"{k.key_display} {k.description}" for k in app.screen.query(FooterKey)]


async def test_requests_that_change_nothing_compose_nothing(composed: list[int]) -> None:
    app = TraceApp(open_paths([str(SAMPLE)]), follow=False)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        before, shown = len(composed), keys(app)
        assert shown, "the footer shows keys"
        for _ in range(5):
            app.screen.refresh_bindings()
        await settle(pilot)
        assert len(composed) == before
        assert keys(app) == shown


async def test_many_changes_in_one_refresh_compose_once(composed: list[int]) -> None:
    app = TraceApp(open_paths([str(SAMPLE)]), follow=False)
    async with app.run_test(size=(200, 40)) as pilot:
        await pilot.press("slash", *"pytest", "enter")
        await settle(pilot)
        assert "n Next match" in keys(app)
        before = len(composed)
        app.search.clear()  # the search ends: "n Next match" goes (it asks the footer once)
        for _ in range(4):
            app.screen.refresh_bindings()
        await settle(pilot)
        assert len(composed) == before + 1
        assert "n Next match" not in keys(app)


async def test_a_new_width_lays_the_keys_out_again(composed: list[int]) -> None:
    app = TraceApp(open_paths([str(SAMPLE)]), follow=False)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        wide, before = keys(app), len(composed)
        await pilot.resize_terminal(50, 24)
        await settle(pilot)
        narrow = keys(app)
        assert len(composed) > before
        assert len(narrow) < len(wide) and "? Help" in narrow
        assert sum(len(k) + 2 for k in narrow) <= 50
