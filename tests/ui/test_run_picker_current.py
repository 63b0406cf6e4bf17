"""The run picker opened from the viewer (`o`) starts on the run already open, in sight, so Enter
keeps it and an arrow goes to its neighbours; typing a filter starts again from the top."""

from __future__ import annotations

import os
from pathlib import Path

from records import encode_line, tool

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.screens import run_picker
from tracetui.ui.screens.run_picker import FilterInput, RunPicker, RunRows

NOW = 1_800_000_000.0


def folder_of(root: Path, n: int) -> Path:
    """``n`` one-call runs, run-0000 the newest."""
    root.mkdir()
    line = encode_line(tool("x"))
    for i in range(n):
        path = root / f"run-{i:04}.jsonl"
        path.write_bytes(line)
        os.utime(path, (NOW - i, NOW - i))
    return root


async def open_then_pick(pilot, name: str) -> RunRows:  # type: ignore[no-untyped-def]
    """Open ``name`` from the first picker, then press `o` for the picker again."""
    await pilot.press(*name, "enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    assert pilot.app.run_.name.endswith(name + ".jsonl")
    await pilot.press("o")
    await pilot.pause()
    assert isinstance(pilot.app.screen, RunPicker)
    return pilot.app.screen.query_one(RunRows)


def app_for(folder: Path, monkeypatch) -> TraceApp:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(RunPicker, "clock", staticmethod(lambda: NOW))
    # The counts are not what is tested here (test_run_picker_counts.py is): None stops the
    # counting worker, whose 1 ms pause after each run kept the Pilot waiting for an idle process.
    monkeypatch.setattr(run_picker, "count_run", lambda run, cancelled: None)
    return TraceApp(open_paths([str(folder)]), follow=False)


async def test_the_picker_opens_on_the_open_run(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    app = app_for(folder_of(tmp_path / "proj", 3), monkeypatch)
    async with app.run_test(size=(110, 30)) as pilot:
        rows = await open_then_pick(pilot, "run-0001")
        assert (rows.current, rows.cursor, rows.chosen) == (1, 1, 1)
        await pilot.press("down", "enter")  # its neighbour, one step away
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert app.run_ is not None and app.run_.name == "proj/run-0002.jsonl"


async def test_the_open_run_is_in_sight_far_down_a_long_list(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    app = app_for(folder_of(tmp_path / "many", 300), monkeypatch)
    async with app.run_test(size=(110, 30)) as pilot:
        rows = await open_then_pick(pilot, "run-0250")
        await pilot.pause()
        assert (rows.current, rows.chosen) == (250, 250)
        assert 250 in rows.in_sight()
        drawn = [rows.render_line(y).text for y in range(rows.scrollable_content_region.height)]
        assert [line.split()[:2] for line in drawn if line.startswith("●")] == [
            ["●", "run-0250.jsonl"]
        ]
        await pilot.press("enter")  # Enter keeps the open run
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert app.run_ is not None and app.run_.name == "many/run-0250.jsonl"


async def test_a_filter_starts_again_from_its_first_match(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    app = app_for(folder_of(tmp_path / "proj", 3), monkeypatch)
    async with app.run_test(size=(110, 30)) as pilot:
        rows = await open_then_pick(pilot, "run-0001")
        await pilot.press(*"run")
        assert app.screen.query_one(FilterInput).value == "run"
        assert (rows.cursor, rows.chosen) == (0, 0)
