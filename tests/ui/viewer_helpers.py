"""Shared helpers for the viewer's Pilot tests: open a run and wait for its index."""

from __future__ import annotations

import contextlib
import os
import unicodedata

from textual import events
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key
from textual.worker import WorkerCancelled

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
FLAKY = os.path.join(DATA, "flaky")
MULTI = os.path.join(DATA, "multi")


def make_app(path: str = FLAKY) -> TraceApp:
    return TraceApp(open_paths([path]), follow=False)


async def settle(pilot) -> None:  # type: ignore[no-untyped-def]
    """Wait for every worker (indexing, search) and the messages they posted."""
    await workers_done(pilot.app)
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()


async def workers_done(app: TraceApp) -> None:
    """Every worker of ``app`` ended; one cancelled counts as ended (the picker's counts stop
    when its screen closes before they are done, which ``wait_for_complete`` raises for). A
    worker that failed still raises."""
    for worker in list(app.workers):
        with contextlib.suppress(WorkerCancelled):
            await worker.wait()


def key_event(key: str) -> events.Key:
    """The event ``pilot.press(key)`` sends for ``key`` (a key name or one character)."""
    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char: str | None = unicodedata.lookup(
            _get_unicode_name_from_key(REPLACED_KEYS.get(key, key))
        )
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


async def send_keys(pilot, *keys: str) -> None:  # type: ignore[no-untyped-def]
    """Press ``keys`` the way a fast typist does: each the key event ``pilot.press`` sends, all
    sent at once, then the app is left to take them in (queued in order, they are handled in
    order, each key's action done before the next key is read).

    ``pilot.press`` waits for the process to look idle twice after each key: ~60 ms a key where
    the key's own work is ~5 ms, most of a table-driven key test's time."""
    app = pilot.app
    for key in keys:
        event = key_event(key)
        event.set_sender(app)
        app.post_message(event)
    await pilot.pause()
    await pilot.pause()


async def type_text(pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    """Type ``text`` into the focused input: :func:`send_keys` of its characters."""
    await send_keys(pilot, *text)
