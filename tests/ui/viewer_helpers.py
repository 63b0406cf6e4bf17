"""Shared helpers for the viewer's Pilot tests: open a run and wait for its index."""

from __future__ import annotations

import os

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
FLAKY = os.path.join(DATA, "flaky")
MULTI = os.path.join(DATA, "multi")


def make_app(path: str = FLAKY) -> TraceApp:
    return TraceApp(open_paths([path]), follow=False)


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    """Wait for every worker (indexing, search) and the messages they posted."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
