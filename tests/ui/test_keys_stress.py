"""Stress: random keys for 20 seconds in a followed 50,000-span run that keeps growing (issue 12).

Users following a 200k-span run crashed the viewer within seconds (chains refreshed while the
follower appended; ``index.flags[row]`` out of range in the chain pane after ``f``, ``/``,
Enter). Here a writer thread appends about 1,500 spans a second (failures, truncated spans,
retries naming parents, bad lines) and rotates the base by rename now and then, while keys
drawn from the app's own bindings are pressed at random. The app must still be running at
the end, with no exception recorded and no worker failed, and once the writer stops it must
count every span written.

The key sequence comes from a seed (``TRACETUI_KEYS_SEED`` to replay another), printed in
every failure message together with the last keys pressed.
"""

from __future__ import annotations

import os
import random
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from stress_writer import Writer, plan, spans_of, write_all
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from tracetui.store.build import build_index
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.live import LiveUpdate
from tracetui.ui.messages import IndexProgress
from tracetui.ui.screens.help import HelpScreen
from tracetui.ui.screens.stats import StatsScreen
from tracetui.ui.widgets.run_header import RunHeader

SEED = int(os.environ.get("TRACETUI_KEYS_SEED", "1212"))
BASE = "feedback_record.jsonl"
OLDER, NEWER = 22_000, 30_000
"""Spans in ``B.1`` and in ``B`` at the start: whole records, about 36 MB (past the size at
which the viewer opens on a peek of the newest rows while it reads the run)."""
RATE = 1_500
"""Spans a second the writer appends while keys are pressed."""
KEY_SECONDS = 20.0
DEADLINE = 90.0
"""Seconds before a wait gives up; the assertions after it say what was missing."""

AVOID = {"quit_app", "rerun", "export_report", "copy_argv"}
"""Actions not pressed: leaving, running a command, writing a file, the clipboard."""
REQUIRED = {"F", "f", "slash", "enter", "escape", "G", "L", "left_square_bracket"}
REQUIRED |= {"right_square_bracket", "j", "k", "X", "n", "N", "t", "T", "g", "end"}
REQUIRED |= {"pagedown", "tab", "question_mark", "text"}
EARLY = ["f"]
OPENING = ["slash", "7", "enter", "escape", "f"]
WORDS = ["fail", "ls", "7", "g00", "zzz", "1", "make 4"]
"""Typed into the search bar (only while it has focus: elsewhere letters are keys)."""


def key_pool(app: TraceApp) -> list[str]:
    """Every key of the app's bindings but those in AVOID, plus Tab, Enter and typed text."""
    keys: set[str] = {"tab", "enter", "escape", "text"}
    for b in app.BINDINGS:
        if isinstance(b, Binding) and b.action not in AVOID:
            keys.update(k.strip() for k in b.key.split(","))
    return sorted(keys)


CHARS = {"slash": "/", "question_mark": "?", "space": " "}
CHARS |= {"left_square_bracket": "[", "right_square_bracket": "]"}


class Watch:
    """Sees every message of the app: failed workers and the follower's notes are kept.

    ``early`` keys are pressed when the first progress report of the opening read arrives: a
    user's first keys, while the newest rows are shown and the run is still being read.
    """

    def __init__(self, app: TraceApp, early: list[str]) -> None:
        self.app, self.early = app, early
        self.failures: list[str] = []
        self.notes: list[str] = []

    def hook(self, msg: Message) -> None:
        if isinstance(msg, Worker.StateChanged) and msg.state == WorkerState.ERROR:
            self.failures.append(f"worker {msg.worker.name!r}: {msg.worker.error!r}")
        elif isinstance(msg, LiveUpdate) and msg.note:
            self.notes.append(msg.note)
        elif isinstance(msg, IndexProgress) and self.early:
            for key in self.early:
                self.app.post_message(events.Key(key, CHARS.get(key, key)))
            self.early = []


async def until(pilot: Any, done: Callable[[], bool], app: TraceApp) -> None:
    """Let the app run until ``done()``, it stops, or the deadline."""
    end = time.monotonic() + DEADLINE
    while not done() and app.is_running and time.monotonic() < end:
        await pilot.pause(0.02)


def modal(app: TraceApp) -> bool:
    return isinstance(app.screen, ModalScreen)


def search_focused(app: TraceApp) -> bool:
    return isinstance(app.focused, Input)


async def send(pilot: Any, *keys: str) -> None:
    """Press keys the way the terminal driver delivers them.

    ``pilot.press`` also waits for the process to go idle after each key, which it never does
    while a writer and a follower run: a key a second. This waits for the screen's messages
    only, so a few hundred keys fit in the test.
    """
    for key in keys:
        char = CHARS.get(key, key if len(key) == 1 else None)
        pilot.app.post_message(events.Key(key, char))
        await pilot.pause(0.005)


async def press(pilot: Any, app: TraceApp, key: str, rnd: random.Random) -> str:
    """Press one key of the pool; returns what was pressed, for the failure message."""
    if key == "text":
        if not search_focused(app):
            await send(pilot, "slash")
        if not search_focused(app):
            return "slash (search did not open)"
        word = rnd.choice(WORDS)
        await send(pilot, *["space" if c == " " else c for c in word])
        return f"slash {word!r}"
    if key == "q" and not isinstance(app.screen, (HelpScreen, StatsScreen)):
        return "-"  # q outside a modal leaves the app
    await send(pilot, key)
    return key


@pytest.fixture
def busy_switching() -> Iterator[None]:
    """Switch threads every 50 µs instead of 5 ms: the same races, seen in seconds."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(5e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


async def test_random_keys_while_the_run_grows(tmp_path: Path, busy_switching: None) -> None:
    rnd = random.Random(SEED)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    base = run_dir / BASE
    first = plan(OLDER + NEWER, SEED, full=True, bad_every=10_000)
    write_all(run_dir / f"{BASE}.1", first[:OLDER])
    write_all(base, first[OLDER:])
    # Enough for the whole test at RATE; the writer is stopped before it runs out.
    growth = plan(int(RATE * (KEY_SECONDS + 5)), SEED + 1, prefix="g", full=True, bad_every=5_000)
    writer = Writer(base, growth, SEED, rate=RATE, max_lines=40, rotate_every=8_000)
    app = TraceApp(open_paths([str(run_dir)]), follow=True)
    watch = Watch(app, EARLY)
    pressed = [f"{key} (while reading)" for key in EARLY]

    def context() -> str:
        return f"seed {SEED} (TRACETUI_KEYS_SEED), last keys: {pressed[-30:]}"

    async with app.run_test(size=(120, 40), message_hook=watch.hook) as pilot:
        # What a user did in the first second, while the newest rows were shown and the run
        # was still being read: pause (EARLY, pressed by the hook), search, resume.
        for key in OPENING:
            pressed.append(await press(pilot, app, key, rnd))
        # Whatever order the early keys landed in, end up following: the header shows the state
        # once the keys are handled, so wait for it to settle before deciding.
        await until(pilot, lambda: app.query_one(RunHeader).state in ("LIVE", "PAUSED"), app)
        await pilot.pause(0.2)
        if app.query_one(RunHeader).state == "PAUSED":
            pressed.append(await press(pilot, app, "f", rnd))
        await until(pilot, lambda: app.query_one(RunHeader).state == "LIVE", app)
        await until(pilot, lambda: app.index is not None and len(app.index) >= len(first), app)
        assert app._exception is None, f"opening: {app._exception!r}"
        assert app.index is not None and len(app.index) == len(first), context()
        assert app.query_one(RunHeader).state == "LIVE", context()
        keys = key_pool(app)
        assert set(keys) >= REQUIRED, REQUIRED - set(keys)
        writer.start()
        end = time.monotonic() + KEY_SECONDS
        try:
            while time.monotonic() < end and app.is_running and app._exception is None:
                pressed.append(await press(pilot, app, rnd.choice(keys), rnd))
                if modal(app) and rnd.random() < 0.3:
                    pressed.append(await press(pilot, app, rnd.choice(["escape", "q"]), rnd))
                if rnd.random() < 0.05:
                    await pilot.pause(0.1)  # now and then, time for the live rows to land
        finally:
            writer.stop()
        assert app._exception is None, f"{context()}: {app._exception!r}"
        assert app.is_running and app.return_code is None, context()
        assert watch.failures == [], f"{context()}: {watch.failures}"
        assert watch.notes == [], f"{context()}: follower notes {watch.notes}"
        assert writer.error is None, writer.error

        # Back to the list, following again, and let it take in what was written.
        for _ in range(6):
            if modal(app) or search_focused(app):
                await send(pilot, "escape")
        app.spans.focus()
        await pilot.pause()
        if app.query_one(RunHeader).state == "PAUSED":
            await send(pilot, "f")
        lines = first + growth[: writer.written]
        spans = len(spans_of(lines))
        await until(pilot, lambda: app.index is not None and len(app.index) >= len(lines), app)
        await pilot.pause(0.2)
        index = app.index
        assert index is not None, context()
        assert (len(index), index.stats.spans) == (len(lines), spans), context()
        assert f"{spans:,} spans" in str(app.query_one(RunHeader).render()), context()
        assert app._exception is None, f"{context()}: {app._exception!r}"
    fresh = build_index(open_paths([str(run_dir)])[0])
    assert (len(fresh), fresh.stats.spans) == (len(lines), spans)
    assert writer.rotations >= 1
