"""Issue 16, "q means the same everywhere", and its one exception: in the run picker the filter
takes every key, so q is a letter and Esc leaves. The picker keeps type-to-filter, and the help
screen and docs/viewer.md say so plainly."""

from __future__ import annotations

import os
from pathlib import Path

from records import encode_line, tool

from tracetui.analysis.run_counts import RunCounts
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.screens import run_picker
from tracetui.ui.screens.help import PICKER, HelpScreen
from tracetui.ui.screens.run_picker import FilterInput, RunPicker, RunRows

NOW = 1_800_000_000.0
DOC = Path(__file__).parents[2] / "docs" / "viewer.md"


def app_for(root: Path, monkeypatch) -> TraceApp:  # type: ignore[no-untyped-def]
    root.mkdir()
    for age, name in enumerate(["quick.jsonl", "slow.jsonl"], 1):
        (root / name).write_bytes(encode_line(tool("x")))
        os.utime(root / name, (NOW - age, NOW - age))
    monkeypatch.setattr(RunPicker, "clock", staticmethod(lambda: NOW))
    monkeypatch.setattr(run_picker, "count_run", lambda run, cancelled: RunCounts(1, 0, 0, "x"))
    return TraceApp(open_paths([str(root)]), follow=False)


async def test_in_the_picker_q_filters_and_esc_leaves(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    app = app_for(tmp_path / "proj", monkeypatch)
    async with app.run_test(size=(110, 30)) as pilot:
        await pilot.press("enter")  # open the newest run, then come back with o
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("o")
        await pilot.pause()
        assert isinstance(app.screen, RunPicker)
        rows = app.screen.query_one(RunRows)
        await pilot.press("q")
        assert app.is_running and isinstance(app.screen, RunPicker)
        assert app.screen.query_one(FilterInput).value == "q"
        assert [rows.labels[p] for p in rows.shown] == ["quick.jsonl"]
        await pilot.press("escape")  # empties the filter
        assert isinstance(app.screen, RunPicker) and len(rows.shown) == 2
        await pilot.press("escape")  # leaves the picker, the open run kept
        await pilot.pause()
        assert not isinstance(app.screen, RunPicker) and app.is_running


async def test_the_help_screen_says_q_is_a_letter_in_the_picker(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    app = app_for(tmp_path / "proj", monkeypatch)
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        shown = " ".join(str(app.screen.query_one("#help-picker").render()).split())
    assert shown == (
        "In the run picker (o), typing filters the runs, so q is a letter there: Esc empties "
        "the filter, then leaves the picker."
    )
    assert shown == " ".join(PICKER.split())


def test_the_viewer_doc_says_q_is_a_letter_in_the_picker() -> None:
    doc = " ".join(DOC.read_text(encoding="utf-8").split())
    assert '**In the picker, `q` is a letter, not "quit".**' in doc
    assert "**Esc** is the way out" in doc
    assert "Not in the run picker: there `q` is a letter of the filter, and Esc leaves" in doc
