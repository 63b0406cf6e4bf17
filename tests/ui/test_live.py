"""Pilot tests of live following (ui/live.py) on a copy of the ``flaky`` run.

A writer thread appends records to the base file while the app runs, the way an agent's
harness would; the app's own follower (file-system events, or polling) takes them in. Waits
are "pause until the rows are there", bounded by a count of pauses, never by a clock.

The ``flaky`` run has 12 rows; row 10 is its latest failure (see test_app.py).
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from records import tool
from viewer_helpers import FLAKY, settle

from tracetui.record.rotate import append_record
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.run_header import RunHeader

ROWS = 12
LATEST_FAILURE = 10
BASE = "feedback_record.jsonl"


def live_app(tmp_path: Path) -> tuple[TraceApp, Path]:
    run_dir = tmp_path / "flaky"
    shutil.copytree(FLAKY, run_dir)
    return TraceApp(open_paths([str(run_dir)]), follow=True), run_dir


def write(run_dir: Path, records: list[dict[str, Any]], *, max_bytes: int = 1 << 20) -> None:
    """Append ``records`` from another thread (as a harness would), rotating at ``max_bytes``."""

    def go() -> None:
        for rec in records:
            append_record(run_dir / BASE, rec, max_bytes, 4)

    t = threading.Thread(target=go)
    t.start()
    t.join()


async def until(pilot: Any, done: Callable[[], bool], *, pauses: int = 400) -> None:
    """Let the app run until ``done()``; fail (not hang) if it never happens."""
    for _ in range(pauses):
        if done():
            return
        await pilot.pause(0.01)
    assert done(), "the app never got there"


def header(app: TraceApp) -> RunHeader:
    return app.query_one(RunHeader)


async def start(pilot: Any) -> None:
    await settle(pilot)
    app = pilot.app
    await until(pilot, lambda: header(app).state == "LIVE")


def ok(n: int) -> dict[str, Any]:
    return tool(f"live-ok-{n}", argv=["echo", str(n)])


def failing(n: int) -> dict[str, Any]:
    return tool(f"live-fail-{n}", argv=["make", str(n)], exit_code=2, ok_preview=False)


async def test_opens_on_latest_failure_then_follows(tmp_path: Path) -> None:
    app, run_dir = live_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await start(pilot)
        assert (app.selected_row, len(app.spans.view)) == (LATEST_FAILURE, ROWS)
        assert header(app).new_rows == 0
        write(run_dir, [ok(1), failing(2)])
        await until(pilot, lambda: len(app.spans.view) == ROWS + 2)
        # The cursor was on the latest failure, not the bottom: it stays, "2 new" shows.
        assert app.selected_row == LATEST_FAILURE
        assert header(app).new_rows == 2
        assert app.spans.latest_failure == ROWS + 1  # the badge moved to the newer failure
        assert app.index.stats.failed == 6
        assert app.index.stats.spans == 13  # 11 spans + 1 bad line before, 2 spans appended
        await pilot.press("G")
        await pilot.pause()
        assert (app.selected_row, header(app).new_rows) == (ROWS + 1, 0)
        # At the bottom the list follows the new last row.
        write(run_dir, [ok(3)])
        await until(pilot, lambda: len(app.spans.view) == ROWS + 3)
        await pilot.pause()
        assert (app.selected_row, header(app).new_rows) == (ROWS + 2, 0)


async def test_new_count_and_end_key(tmp_path: Path) -> None:
    app, run_dir = live_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await start(pilot)
        app.select_row(3)
        await pilot.pause()
        write(run_dir, [ok(i) for i in range(5)])
        await until(pilot, lambda: len(app.spans.view) == ROWS + 5)
        assert (app.selected_row, header(app).new_rows) == (3, 5)
        assert "5 new" in str(header(app).render())
        await pilot.press("end")
        await pilot.pause()
        assert (app.selected_row, header(app).new_rows) == (ROWS + 4, 0)


async def test_paused_takes_nothing_in_until_resumed(tmp_path: Path) -> None:
    app, run_dir = live_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await start(pilot)
        await pilot.press("f")
        await pilot.pause()
        assert header(app).state == "PAUSED"
        write(run_dir, [failing(1), ok(2)])
        follower = app.live.follower
        assert follower is not None
        # Whenever the follower looks while paused, it reads nothing.
        assert follower.poll_once() == 0
        await pilot.pause(0.05)
        assert (len(app.spans.view), len(app.index)) == (ROWS, ROWS)
        assert app.spans.latest_failure == LATEST_FAILURE
        await pilot.press("f")
        await until(pilot, lambda: len(app.spans.view) == ROWS + 2)
        assert header(app).state == "LIVE"
        assert app.spans.latest_failure == ROWS


async def test_rotation_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    app, run_dir = live_app(tmp_path)
    n = 60
    async with app.run_test(size=(100, 30)) as pilot:
        await start(pilot)
        await pilot.press("G")
        # About 700 bytes a record and 4 KB files: a rotation every few records, and with
        # keep=4 the oldest generations are dropped while the app is following.
        # Written in bursts of 6 (more than one file's worth), each taken in before the next.
        records = [failing(i) if i % 7 == 3 else ok(i) for i in range(n)]
        for i in range(0, n, 6):
            write(run_dir, records[i : i + 6], max_bytes=4096)
            want = ROWS + min(n, i + 6)
            await until(pilot, lambda want=want: len(app.index) >= want)
        await pilot.pause(0.05)
        assert os.path.exists(run_dir / f"{BASE}.4")
        ids = [app.index.ids[r] for r in range(ROWS, len(app.index))]
        assert ids == [r["command_id"] for r in records]
        assert len(app.spans.view) == ROWS + n
        assert app.spans.latest_failure == ROWS + max(i for i in range(n) if i % 7 == 3)
        assert app.selected_row == ROWS + n - 1  # it followed to the end


@pytest.mark.parametrize(
    ("follow", "state"), [(True, "LIVE"), (False, "")], ids=["live", "no-follow"]
)
async def test_follow_binding_in_palette_and_header(
    tmp_path: Path, follow: bool, state: str
) -> None:
    run_dir = tmp_path / "flaky"
    shutil.copytree(FLAKY, run_dir)
    app = TraceApp(open_paths([str(run_dir)]), follow=follow)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.pause()
        assert header(app).state == state
        assert app.selected_row == LATEST_FAILURE
        assert "toggle_follow" in {b.action for b in app.palette_bindings()}
        if not follow:
            # f in a frozen view starts following: the run is re-read, the cursor kept.
            app.select_row(3)
            await pilot.press("f")
            await settle(pilot)
            await until(pilot, lambda: header(app).state == "LIVE")
            assert app.selected_row == 3


async def test_new_run_in_folder_is_offered(tmp_path: Path) -> None:
    app, run_dir = live_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await start(pilot)
        append_record(run_dir / "second.jsonl", ok(1), 1 << 20, 4)
        await until(pilot, lambda: len(app.runs) == 2, pauses=800)
        assert [r.name for r in app.runs] == ["flaky/feedback_record.jsonl", "flaky/second.jsonl"]
        await pilot.press("o")
        await pilot.pause()
        await pilot.press(*"second", "enter")  # type-to-filter (the picker lists newest first)
        await settle(pilot)
        await until(pilot, lambda: app.index is not None and len(app.index) == 1)
        assert app.run_ is not None and app.run_.name == "flaky/second.jsonl"
