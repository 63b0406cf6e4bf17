"""A bug inside a re-run stops the viewer like any other bug; a re-run that meets the world
(an argv it cannot run, a full disk, a refused file) still says so in its pane.

Before, every exception became "the re-run failed: TypeError: …" in the pane, the viewer went on,
and it exited 0 with no crash report: the bug was never seen again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from pathlib import Path
from typing import Any

import pytest
from records import tool
from test_rerun_pane import make_app, text, until
from textual.worker import WorkerFailed
from viewer_helpers import settle

from tracetui.rerun import runner
from tracetui.ui.screens.confirm_rerun import ConfirmRerun
from tracetui.ui.widgets.rerun_pane import RerunPane


def one_run(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    folder.mkdir()
    record = tool("x1", argv=["echo", "hi"], cwd=str(folder))
    (folder / "run.jsonl").write_text(json.dumps(record) + "\n")
    return folder


async def start_rerun(pilot: Any) -> None:
    await pilot.press("home", "r")
    await until(pilot, lambda: isinstance(pilot.app.screen, ConfirmRerun))
    await pilot.press("y")


async def test_a_bug_in_a_rerun_stops_the_viewer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def bug(*_args: Any, **_kw: Any) -> Any:
        raise TypeError("a bug in tracetui")

    monkeypatch.setattr(runner, "rerun", bug)
    app = make_app(one_run(tmp_path))
    with pytest.raises((WorkerFailed, TypeError)):
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot)
            await pilot.press("home", "r")
            await until(pilot, lambda: isinstance(app.screen, ConfirmRerun))
            # The y press starts a re-run that stops the app at once. Pilot.press waits for the
            # animator after its keys, and a stopped app's animator never says so: awaited
            # directly, the press hung (one CI run in ~20). So it runs beside a bounded wait.
            press = asyncio.create_task(pilot.press("y"))
            deadline = time.monotonic() + 30
            while app._exception is None and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            press.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await press
    error = app._exception
    if isinstance(error, WorkerFailed):
        error = error.error
    assert isinstance(error, TypeError) and str(error) == "a bug in tracetui"


@pytest.mark.parametrize(
    "problem",
    [OSError(28, "No space left on device"), runner.RerunError("cannot run this argv: empty")],
    ids=["disk-full", "argv"],
)
async def test_a_rerun_that_meets_the_world_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, problem: Exception
) -> None:
    def fails(*_args: Any, **_kw: Any) -> Any:
        raise problem

    monkeypatch.setattr(runner, "rerun", fails)
    app = make_app(one_run(tmp_path))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await start_rerun(pilot)
        pane = app.query_one(RerunPane)
        await until(pilot, lambda: not pane.running, pauses=500)
        await pilot.pause()
        assert f"{type(problem).__name__}: {problem}" in text(app, "#rerun-status")
        assert app._exception is None
