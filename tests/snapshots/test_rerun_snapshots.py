"""Snapshot of the re-run pane after a finished, deterministic re-run (ui/widgets/rerun_pane.py).

The run is recorded by the real recorder from a script whose first line prints a timestamp read
from a file; the file changes before the re-run, so the hash verdict is ``differs`` while the
normalised diff is empty (and shows the change once the timestamps rule is off). Everything
made by a clock is fixed: the record's id, start and duration are rewritten (the hashes stay
true), the pane's durations are pinned, and the re-run is not written to the sidecar (its row
would carry a clock-made id and time).

Regenerate after a deliberate change: ``pytest tests/snapshots --snapshot-update``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracetui.record.recorder import run_with_feedback
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.screens.confirm_rerun import start_rerun
from tracetui.ui.widgets import rerun_pane
from tracetui.ui.widgets.rerun_pane import RerunPane

STAMP = (
    "import sys\nprint('run at', open('stamp.txt').read().strip())\n"
    "for i in range(300):\n    print(f'test_{i:03d} PASSED', '.' * 30)\n"
    "print('E   AssertionError: total 33.33 != 33.34')\nsys.exit(1)\n"
)


def stamped_run(folder: Path) -> Path:
    folder.mkdir()
    (folder / "stamp.py").write_text(STAMP)
    (folder / "stamp.txt").write_text("2026-11-01T10:00:00Z\n")
    run_with_feedback(
        ["python3", "stamp.py"], log=folder / "run.jsonl", cap=4096, clip="head", cwd=folder
    )
    rec = json.loads((folder / "run.jsonl").read_text())
    rec.update(command_id="cmd_stamp_0001", started_at="2026-11-01T10:00:00Z", duration_ms=840)
    (folder / "run.jsonl").write_text(json.dumps(rec) + "\n")
    (folder / "stamp.txt").write_text("2026-11-02T11:30:00Z\n")
    return folder


def after_rerun(keys: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        app = pilot.app
        await app.workers.wait_for_complete()
        await pilot.pause()
        start_rerun(app, app.selected_row, write_sidecar=False)
        await pilot.pause()
        await pilot.press("y")
        for _ in range(2000):
            panes = app.query(RerunPane)
            if panes and not panes.first().running:
                break
            await pilot.pause(0.01)
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause()

    return run_before


class TestRerunPane:
    @pytest.mark.parametrize(
        ("size", "keys"),
        [((160, 48), ("2",)), ((120, 40), ())],
        ids=["160x48-timestamps-off", "120x40"],
    )
    def test_finished_rerun(self, snap_compare, tmp_path, monkeypatch, size, keys) -> None:  # type: ignore[no-untyped-def]
        monkeypatch.setattr(rerun_pane, "_secs", lambda ms: "?" if ms is None else "0.8 s")
        app = TraceApp(open_paths([str(stamped_run(tmp_path / "run"))]), follow=False)
        assert snap_compare(app, terminal_size=size, run_before=after_rerun(keys))


LONG_SCRIPT = "true " + " ".join(f"word{i:03d}" for i in range(400)) + "; touch ran.txt"


def long_argv_run(folder: Path) -> Path:
    """A run whose one span is a 400-word ``sh -c`` script (cwd "/": the same on every machine)."""
    from records import tool

    folder.mkdir()
    rec = tool("cmd_long_0001", argv=["sh", "-c", LONG_SCRIPT], cwd="/")
    (folder / "run.jsonl").write_text(json.dumps(rec) + "\n")
    return folder


def asking(keys: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        app = pilot.app
        await app.workers.wait_for_complete()
        await pilot.pause()
        start_rerun(app, app.selected_row, write_sidecar=False)
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause()

    return run_before


class TestConfirmRerun:
    @pytest.mark.parametrize(
        "keys", [(), ("end",)], ids=["100x30-at-the-start", "100x30-at-the-end"]
    )
    def test_a_long_shell_script(self, snap_compare, tmp_path, keys) -> None:  # type: ignore[no-untyped-def]
        app = TraceApp(open_paths([str(long_argv_run(tmp_path / "run"))]), follow=False)
        assert snap_compare(app, terminal_size=(100, 30), run_before=asking(keys))
