"""The re-run's row reaches the list however the app is when the re-run is recorded.

``RerunPane.Recorded`` travels from the pane up to the app. It can arrive while a screen is
pushed over the main one (the help the user opened while the command ran), and — when the app is
closed right after a re-run, as a Pilot test does — while the app closes its screens but still
takes messages, or after it has closed them all. The row is shown in the first case; in the
others there is no list left and the message is dropped, never an error.
"""

from __future__ import annotations

from pathlib import Path

from test_confirm_rerun import make_app
from test_live import until
from viewer_helpers import settle

from tracetui.store.runset import sidecar_path
from tracetui.ui.screens.confirm_rerun import ConfirmRerun
from tracetui.ui.screens.help import HelpScreen
from tracetui.ui.widgets.rerun_pane import RerunPane
from tracetui.ui.widgets.span_list import SpanList

# Runs until the test lets it finish: the help screen is opened while it runs.
WAITS = ["sh", "-c", "while [ ! -e go ]; do sleep 0.01; done; touch ran.txt"]


async def test_a_rerun_recorded_under_the_help_screen_shows_its_row(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    app = make_app(folder, WAITS)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmRerun))
        await pilot.press("y")
        await until(pilot, lambda: bool(app.query(RerunPane)))
        pane = app.query_one(RerunPane)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        (folder / "go").touch()
        await until(pilot, lambda: not pane.running, pauses=2000)
        assert app.index is not None
        await until(pilot, lambda: len(app.index) == 2)  # the re-run's row, under the help
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen.query_one(SpanList).view is not None
        assert len(app.screen.query_one(SpanList).view) == 2
    assert (folder / "ran.txt").exists()


async def test_a_rerun_recorded_after_the_app_closed_is_dropped(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    app = make_app(folder, WAITS)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
    # The app has closed every screen: what a late Recorded finds (it must not raise).
    assert not app.screen_stack and app.index is not None and app.run_ is not None
    sidecar = Path(sidecar_path(app.run_.base))
    sidecar.write_text("")
    app.on_rerun_pane_recorded(RerunPane.Recorded(str(sidecar)))
    assert len(app.index) == 1 and app.run_.sidecar is None
