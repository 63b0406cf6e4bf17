"""Snapshot tests of the viewer's main screens on the fixed ``flaky`` run (no clock involved).

Regenerate after a deliberate change: ``pytest tests/snapshots --snapshot-update``, then look at
the SVGs in ``__snapshots__``.
"""

from __future__ import annotations

import os
import shutil

import pytest

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ui", "data")
SIZES = [(80, 24), (160, 48)]
SIZE_IDS = ["80x24", "160x48"]


def app_for(name: str = "flaky") -> TraceApp:
    return TraceApp(open_paths([os.path.normpath(os.path.join(DATA, name))]), follow=False)


def prepare(row: int | None = None, keys: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if row is not None:
            pilot.app.select_row(row)
            await pilot.pause()
        if keys:
            await pilot.press(*keys)
        await pilot.pause()

    return run_before


class TestPostmortem:
    @pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
    def test_opens_on_latest_failure(self, snap_compare, size) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(app_for(), terminal_size=size, run_before=prepare())

    @pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
    def test_failures_only(self, snap_compare, size) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(app_for(), terminal_size=size, run_before=prepare(keys=("F",)))

    def test_light_theme(self, snap_compare) -> None:  # type: ignore[no-untyped-def]
        async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
            pilot.app.theme = "textual-light"
            await prepare()(pilot)

        assert snap_compare(app_for(), terminal_size=(160, 48), run_before=run_before)


class TestDetail:
    @pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
    def test_truncated_span(self, snap_compare, size) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(app_for(), terminal_size=size, run_before=prepare(row=1))

    def test_raw_record(self, snap_compare) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(app_for(), terminal_size=(160, 48), run_before=prepare(keys=("R",)))

    def test_escape_sequences_neutralised(self, snap_compare) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(app_for(), terminal_size=(160, 48), run_before=prepare(row=9))


class TestChain:
    @pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
    def test_branching_chain(self, snap_compare, size) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(app_for(), terminal_size=size, run_before=prepare(row=6))


class TestScreens:
    @pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
    def test_help(self, snap_compare, size) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(
            app_for(), terminal_size=size, run_before=prepare(keys=("question_mark",))
        )

    def test_run_picker(self, snap_compare, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
        # The picker shows each run's age: fixed file times and a fixed clock.
        from tracetui.ui.screens.run_picker import RunPicker

        folder = tmp_path / "multi"
        shutil.copytree(os.path.join(DATA, "multi"), folder)
        for age, name in enumerate(sorted(os.listdir(folder))):
            os.utime(folder / name, (1_800_000_000 - 60 * (age + 1),) * 2)
        monkeypatch.setattr(RunPicker, "clock", staticmethod(lambda: 1_800_000_000.0))
        app = TraceApp(open_paths([str(folder)]), follow=False)
        assert snap_compare(app, terminal_size=(80, 24), run_before=prepare())
