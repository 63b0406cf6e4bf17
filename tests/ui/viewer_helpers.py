"""Shared helpers for the viewer's Pilot tests: open a run and wait for its index."""

from __future__ import annotations

import os

from textual import events
from textual.keys import _character_to_key

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


async def type_text(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    """Type ``text`` into the focused input the way a fast typist does: each character is one
    key event, as ``pilot.press(*text)`` sends it, all sent at once, then the app is left to
    take them in (queued in order, they are handled in order).

    ``pilot.press`` waits for the process to look idle twice after each key, ~60 ms a key
    where the key's own work is ~5 ms: most of a search test's time went on it."""
    app = pilot.app
    for char in text:
        event = events.Key(_character_to_key(char), char)
        event.set_sender(app)
        app.post_message(event)
    await pilot.pause()
    await pilot.pause()
