"""Pilot tests: a followed session's running calls in the header ("N running") and the failure
keys walking back from a running call (ui/widgets/run_header.py, ui/navigate.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from foreign_lines import cc_call, cc_prompt, cc_result, line
from viewer_helpers import settle

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.run_header import RunHeader


async def until(pilot: Any, done: Callable[[], bool], *, pauses: int = 500) -> None:
    for _ in range(pauses):
        if done():
            return
        await pilot.pause(0.01)
    assert done(), "the app never got there"


def header_text(app: TraceApp) -> str:
    return app.query_one(RunHeader).content.plain  # type: ignore[union-attr]


def session(path: Path, running: int) -> None:
    """Call 1 failed, call 2 passed (two rows), then ``running`` calls of one turn with no result yet."""
    data = line(cc_prompt())
    data += line(cc_call(1, "pytest -q", message="m1"))
    data += line(cc_result(1, "Exit code 1\nFAILED", error=True))
    data += line(cc_call(2, "ls", message="m2"))
    data += line(cc_result(2, "README.md"))
    for n in range(3, 3 + running):
        data += line(cc_call(n, f"sleep {n}", message="m3"))  # one turn: parallel calls
    path.write_bytes(data)


async def test_the_header_counts_the_running_calls(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    session(path, 3)
    app = TraceApp(open_paths([str(path)]), follow=True)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: len(app.spans.running) == 3)
        await until(pilot, lambda: "3 running" in header_text(app))
        assert "2 spans · 3 running · 1 failed" in header_text(app)
        with open(path, "ab") as fh:
            fh.write(line(cc_result(3, "done")))
        await until(pilot, lambda: "2 running" in header_text(app))
        assert "3 spans · 2 running" in header_text(app)
        with open(path, "ab") as fh:
            fh.write(line(cc_result(4, "done")) + line(cc_result(5, "done")))
        await until(pilot, lambda: app.spans.running == () and "5 spans" in header_text(app))
        assert "running" not in header_text(app)


@pytest.mark.parametrize("key", ["E", "N"], ids=["E", "N"])
@pytest.mark.parametrize("call", [0, 1, 2], ids=["first-call", "second-call", "third-call"])
async def test_previous_failure_from_a_running_call(tmp_path: Path, call: int, key: str) -> None:
    path = tmp_path / "session.jsonl"
    session(path, 3)
    app = TraceApp(open_paths([str(path)]), follow=True)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: len(app.spans.running) == 3 and len(app.spans.view or ()) == 2)
        app.spans.move_to(2 + call)
        await pilot.pause()
        assert app.spans.running_call() is not None
        await pilot.press(key)
        await until(pilot, lambda: app.selected_row == 0)
        assert app.spans.cursor == 0  # the failed call 1


@pytest.mark.parametrize("call", [0, 2], ids=["first-call", "third-call"])
async def test_next_failure_from_a_running_call_finds_none_below(tmp_path: Path, call: int) -> None:
    path = tmp_path / "session.jsonl"
    session(path, 3)
    app = TraceApp(open_paths([str(path)]), follow=True)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: len(app.spans.running) == 3 and len(app.spans.view or ()) == 2)
        app.spans.move_to(2 + call)
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        assert app.spans.cursor == 2 + call  # stays on the call
        assert any(n.message == "no failure below" for n in app._notifications)
