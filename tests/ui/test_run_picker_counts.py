"""The run picker (issue 14 item 2, issue 16's picker line): newest first, counts filled in by a
worker, type-to-filter, the open run marked, Enter opens, and no widget per run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from records import encode_line, tool

from tracetui.analysis.summary import summarize
from tracetui.store.build import build_index
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.screens import run_picker
from tracetui.ui.screens.run_picker import RunPicker, RunRows

CLAUDE = Path(__file__).resolve().parents[1] / "data" / "agents" / "claude_session.jsonl"
NOW = 1_800_000_000.0
CUT = {"stdout_bytes": 24000, "stdout_truncated": True, "stdout_clip": "head"}


def folder_of_runs(root: Path) -> Path:
    """Three runs, ages 1, 2 and 3 minutes: ours, a failing one, and a Claude Code session."""
    root.mkdir()
    runs = {
        "green.jsonl": [tool("a"), tool("b")],
        "red.jsonl": [tool("c", exit_code=1), tool("d", exit_code=2, **CUT), tool("e")],
    }
    for name, records in runs.items():
        (root / name).write_bytes(b"".join(encode_line(r) for r in records))
    shutil.copy(CLAUDE, root / "5f0c1e2a-session.jsonl")
    for age, name in enumerate(["red.jsonl", "5f0c1e2a-session.jsonl", "green.jsonl"], 1):
        os.utime(root / name, (NOW - 60 * age, NOW - 60 * age))
    return root


def picker_app(folder: Path, monkeypatch) -> TraceApp:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(RunPicker, "clock", staticmethod(lambda: NOW))
    return TraceApp(open_paths([str(folder)]), follow=False)


async def counted(pilot) -> RunRows:  # type: ignore[no-untyped-def]
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    return pilot.app.screen.query_one(RunRows)


def lines(rows: RunRows) -> list[str]:
    return [rows.render_line(y).text.rstrip() for y in range(len(rows.shown))]


async def test_newest_first_with_counts_filled_in(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    folder = folder_of_runs(tmp_path / "proj")
    app = picker_app(folder, monkeypatch)
    async with app.run_test(size=(110, 30)) as pilot:
        rows = await counted(pilot)
        assert rows.labels == ["red.jsonl", "5f0c1e2a-session.jsonl", "green.jsonl"]
        for pos, name in enumerate(rows.labels):
            facts = summarize(build_index(open_paths([str(folder / name)])[0]))
            got = rows.counts[pos]
            assert (got.spans, got.failed, got.truncated) == (
                facts["spans"],
                facts["failed"],
                facts["truncated"],
            )
        assert [rows.counts[p].dialect for p in range(3)] == [
            "tracetui/1",
            "claude-code",
            "tracetui/1",
        ]
        shown = lines(rows)
        assert shown[0].split() == ["red.jsonl", "1", "min", "ago", "3", "2", "1", "tracetui/1"]
        assert shown[2].split() == ["green.jsonl", "3", "min", "ago", "2", "0", "0", "tracetui/1"]


async def test_type_to_filter_then_enter_opens(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    app = picker_app(folder_of_runs(tmp_path / "proj"), monkeypatch)
    async with app.run_test(size=(110, 30)) as pilot:
        rows = await counted(pilot)
        await pilot.press(*"claude")  # the format filters too
        assert [rows.labels[p] for p in rows.shown] == ["5f0c1e2a-session.jsonl"]
        await pilot.press("escape")  # the first Esc empties the filter
        assert isinstance(app.screen, RunPicker) and len(rows.shown) == 3
        await pilot.press(*"gre", "enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert app.run_ is not None and app.run_.name == "proj/green.jsonl"


async def test_a_filter_matching_nothing_says_so(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    app = picker_app(folder_of_runs(tmp_path / "proj"), monkeypatch)
    async with app.run_test(size=(110, 30)) as pilot:
        rows = await counted(pilot)
        await pilot.press(*"zzz", "enter")
        assert isinstance(app.screen, RunPicker)  # Enter on no run opens nothing
        assert lines(rows)[:1] == [] and rows.render_line(0).text.strip() == (
            "no run matches the filter"
        )


async def test_arrows_move_and_the_open_run_is_marked(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    app = picker_app(folder_of_runs(tmp_path / "proj"), monkeypatch)
    async with app.run_test(size=(110, 30)) as pilot:
        await counted(pilot)
        await pilot.press("down", "down", "up", "enter")  # the Claude Code session
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert app.run_ is not None and app.run_.name == "proj/5f0c1e2a-session.jsonl"
        await pilot.press("o")  # choose another run: the open one is marked
        rows = await counted(pilot)
        assert isinstance(app.screen, RunPicker)
        assert rows.current == 1
        assert [line.startswith("●") for line in lines(rows)] == [False, True, False]
        await pilot.press("escape")  # Esc with an empty filter keeps the open run
        assert not isinstance(app.screen, RunPicker)
        assert app.run_.name == "proj/5f0c1e2a-session.jsonl"


async def test_thousands_of_runs_are_one_virtual_list(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "many"
    folder.mkdir()
    line = encode_line(tool("x"))
    for i in range(2000):
        path = folder / f"run-{i:04}.jsonl"
        path.write_bytes(line)
        os.utime(path, (NOW - i, NOW - i))
    # Counting is tested above; here it would only keep the Pilot waiting for an idle process:
    # even a count made at once is followed by a 1 ms pause (the GIL's share for the UI thread),
    # and 2,000 of them kept the process from looking idle for ~2 s. None: the worker stops.
    monkeypatch.setattr(run_picker, "count_run", lambda run, cancelled: None)
    app = picker_app(folder, monkeypatch)
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, RunPicker)
        assert len(app.screen.query("*")) < 12  # a handful of widgets, not one per run
        rows = app.screen.query_one(RunRows)
        assert rows.labels[:2] == ["run-0000.jsonl", "run-0001.jsonl"]
        await pilot.press(*"1999")
        assert [rows.labels[p] for p in rows.shown] == ["run-1999.jsonl"]
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert app.run_ is not None and app.run_.name == "many/run-1999.jsonl"
