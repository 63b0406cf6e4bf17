"""Pilot tests of the re-run confirmation (ui/screens/confirm_rerun.py): nothing runs unseen.

A 400-word ``sh -c '…; touch ran.txt'`` cannot be read at a glance: its end must be reachable by
keys, and ``y`` must do nothing until it has been on screen. Whether the command ran is read
from the file it touches. Waits are counts of pauses, never a clock.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from records import tool
from test_live import until
from viewer_helpers import settle

from tracetui.rerun import review
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.screens.confirm_rerun import NOT_SEEN, ConfirmRerun
from tracetui.ui.widgets import rerun_pane
from tracetui.ui.widgets.rerun_pane import RerunPane

WORDS = " ".join(f"word{i:03d}" for i in range(400))
LONG = ["sh", "-c", f"true {WORDS}; touch ran.txt"]
SHORT = ["sh", "-c", "touch ran.txt"]


def make_app(folder: Path, argv: Any, **fields: Any) -> TraceApp:
    folder.mkdir(exist_ok=True)
    rec = tool("c1", argv=argv, cwd=str(folder), **fields)
    (folder / "run.jsonl").write_text(json.dumps(rec) + "\n")
    return TraceApp(open_paths([str(folder)]), follow=False)


def notes(app: TraceApp) -> list[str]:
    return [n.message for n in app._notifications]


async def ask(pilot: Any) -> ConfirmRerun:
    app = pilot.app
    await settle(pilot)
    await pilot.press("r")
    await until(pilot, lambda: isinstance(app.screen, ConfirmRerun))
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ConfirmRerun)
    return screen


async def ran(pilot: Any, folder: Path) -> bool:
    """Wait for a started re-run to end, and its row to reach the list when it was recorded
    (leaving earlier closes the app under the message that brings the row: the race that made
    these tests flaky, test_rerun_recorded.py); whether the command touched its file."""
    app = pilot.app
    await until(pilot, lambda: bool(app.query(RerunPane)) or isinstance(app.screen, ConfirmRerun))
    if app.query(RerunPane):
        pane = app.query_one(RerunPane)
        await until(pilot, lambda: not pane.running, pauses=2000)
        if pane.result is not None and pane.result.sidecar:
            # The run's one span (make_app), then every line of the re-runs file.
            lines = Path(pane.result.sidecar).read_bytes().splitlines()
            await until(pilot, lambda: len(app.index) == 1 + len(lines))
    return (folder / "ran.txt").exists()


async def test_a_long_argv_runs_only_after_its_end_was_on_screen(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    app = make_app(folder, LONG)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await ask(pilot)
        scroll = screen.facts_scroll
        assert scroll.max_scroll_y > 0 and scroll.scroll_y == 0
        warning = str(screen.query_one("#confirm-warning").render())
        shown = len(" ".join(LONG[:2])) + len(f" 'true {WORDS}; touch ran.txt'")
        assert warning.splitlines() == [
            "⚠ runs a sh script given inline (-c): it can do anything sh can",
            f"⚠ a long argv ({shown:,} characters): read it to its end",
        ]
        facts = str(screen.query_one("#confirm-facts").render())
        assert f"3 arguments · {shown:,} characters" in facts
        assert screen.query_one("#confirm-run").disabled
        await pilot.press("y")  # the end has not been on screen: nothing runs
        await pilot.pause()
        assert app.screen is screen and not app.query(RerunPane)
        assert notes(app) == [NOT_SEEN]
        assert NOT_SEEN.capitalize() in str(screen.query_one("#confirm-hint").render())
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y
        assert scroll.scroll_y + scroll.size.height >= scroll.virtual_size.height
        assert not screen.query_one("#confirm-run").disabled
        await pilot.press("home")  # back to the start: it has been seen, y still runs it
        await pilot.pause()
        assert scroll.scroll_y == 0
        await pilot.press("y")
        assert await ran(pilot, folder)


SCROLLS = [
    # (id, keys pressed from the top, where the scroll must be: "top", "one", "page", "end")
    ("down", ("down",), "one"),
    ("down-up", ("down", "down", "up"), "one"),
    ("pagedown", ("pagedown",), "page"),
    ("pagedown-pageup", ("pagedown", "pagedown", "pageup"), "page"),
    ("end", ("end",), "end"),
    ("end-home", ("end", "home"), "top"),
]


@pytest.mark.parametrize(("name", "keys", "where"), SCROLLS, ids=[c[0] for c in SCROLLS])
async def test_every_scroll_key_moves_the_argv(
    tmp_path: Path, name: str, keys: tuple[str, ...], where: str
) -> None:
    app = make_app(tmp_path / "run", LONG)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await ask(pilot)
        scroll = screen.facts_scroll
        await pilot.press(*keys)
        await pilot.pause()
        want = {
            "top": 0,
            "one": 1,
            "page": min(scroll.max_scroll_y, scroll.scrollable_content_region.height),
            "end": scroll.max_scroll_y,
        }[where]
        assert scroll.scroll_y == want
        assert not app.query(RerunPane)


async def test_a_short_argv_runs_with_y_at_once(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    app = make_app(folder, SHORT)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await ask(pilot)
        assert screen.facts_scroll.max_scroll_y == 0
        assert not screen.query_one("#confirm-run").disabled
        await pilot.press("y")
        assert await ran(pilot, folder)
        assert notes(app) == []


async def test_the_run_button_runs_once_enabled(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    app = make_app(folder, LONG)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await ask(pilot)
        await pilot.click("#confirm-run")  # disabled: no press
        await pilot.pause()
        assert app.screen is screen and not (folder / "ran.txt").exists()
        await pilot.press("end")
        await pilot.pause()
        await pilot.click("#confirm-run")
        assert await ran(pilot, folder)


async def test_an_argv_with_a_nul_is_a_notice_and_no_modal(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    app = make_app(folder, ["touch", "ran.txt\u0000x"])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmRerun)
        assert notes(app) == [
            "span 'c1' cannot be re-run: argv[1] holds a NUL character (no program can receive it)"
        ]
    assert not (folder / "ran.txt").exists()


WARNINGS = [
    # (id, argv, warnings for an argv shown in 20 characters)
    ("plain", ["ls", "-l"], []),
    ("sh-c", ["sh", "-c", "ls"], ["runs a sh script given inline (-c): it can do anything sh can"]),
    (
        "bash-lc-by-path",
        ["/bin/bash", "-lc", "ls"],
        ["runs a bash script given inline (-lc): it can do anything bash can"],
    ),
    (
        "env-zsh",
        ["env", "-i", "A=1", "zsh", "-c", "ls"],
        ["runs a zsh script given inline (-c): it can do anything zsh can"],
    ),
    (
        "fish-command",
        ["fish", "--command=ls"],
        ["runs a fish script given inline (--command): it can do anything fish can"],
    ),
    (
        "python3.12-c",
        ["python3.12", "-c", "print(1)"],
        ["runs a python script given inline (-c): it can do anything python can"],
    ),
    ("python-script-file", ["python3", "tool.py", "--flag"], []),
    (
        "perl-ne",
        ["perl", "-ne", "print"],
        ["runs a perl script given inline (-ne): it can do anything perl can"],
    ),
    (
        "node-eval",
        ["node", "--eval", "1"],
        ["runs a node script given inline (--eval): it can do anything node can"],
    ),
    (
        "ruby-e",
        ["ruby", "-e", "1"],
        ["runs a ruby script given inline (-e): it can do anything ruby can"],
    ),
    ("dash-no-script", ["dash", "script.sh"], []),
]


@pytest.mark.parametrize(("name", "argv", "want"), WARNINGS, ids=[c[0] for c in WARNINGS])
def test_inline_scripts_are_named(name: str, argv: list[str], want: list[str]) -> None:
    assert review.warnings(argv, 20) == want


@pytest.mark.parametrize(
    ("chars", "want"),
    [(299, []), (300, ["a long argv (300 characters): read it to its end"])],
    ids=["299", "300"],
)
def test_a_long_argv_is_named(chars: int, want: list[str]) -> None:
    assert review.warnings(["echo", "x"], chars) == want


async def test_the_pane_says_the_output_limit_stopped_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rerun_pane, "MAX_OUTPUT", 100_000)
    folder = tmp_path / "run"
    # A head window of 20 bytes: the diff stays small, the rest is never-seen output.
    cut_record = {"stdout_truncated": True, "stdout_clip": "head", "stdout_bytes": 10**9}
    app = make_app(folder, ["yes"], stdout_cap=20, preview_stdout="y\n" * 10, **cut_record)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot)
        await pilot.press("y")
        await ran(pilot, folder)
        status = str(app.query_one("#rerun-status").render())
        cut = "stopped at the output limit (100,000 B)"
        assert f"error   {cut}; process group killed\n" in status
        assert "stdout  1,000,000,000 → 100,000 B  unknown\n" in status
        assert f"verdict unknown: the whole output's hash cannot be compared: {cut}\n" in status
