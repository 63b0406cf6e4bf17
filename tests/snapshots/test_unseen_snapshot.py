"""Snapshots of the viewer's ``u`` screen on the bundled flaky-billing run (its streams are kept).

Regenerate after a deliberate change: ``pytest tests/snapshots/test_unseen_snapshot.py
--snapshot-update``, then look at the SVGs in ``__snapshots__``.
"""

from __future__ import annotations

import os

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp

SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "sample_runs")
ATTEMPT_1 = 2  # cmd_3f76c0c60c4e: 16,014 bytes of pytest output the agent never saw


def app() -> TraceApp:
    path = os.path.normpath(os.path.join(SAMPLE, "flaky-billing"))
    return TraceApp(open_paths([path]), follow=False)


def unseen(*keys: str):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pilot.app.select_row(ATTEMPT_1)
        await pilot.pause()
        await pilot.press("u")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
            await pilot.pause()

    return run_before


def test_unseen_first_page(snap_compare) -> None:  # type: ignore[no-untyped-def]
    assert snap_compare(app(), terminal_size=(120, 30), run_before=unseen())


def test_unseen_search_finds_the_assertion(snap_compare) -> None:  # type: ignore[no-untyped-def]
    keys = ("slash", *"AssertionError: assert", "enter")
    assert snap_compare(app(), terminal_size=(120, 30), run_before=unseen(*keys))
