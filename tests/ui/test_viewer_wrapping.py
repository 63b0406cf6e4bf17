"""Issue 16's layout lies: the trends charts' x-axis, the help screen's and the re-run
confirmation's wrapped lines, read from the rendered screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_confirm_rerun import LONG, ask
from test_confirm_rerun import make_app as confirm_app
from test_narrow_layout import screen_lines
from test_stats_screen import creep_run
from textual.app import App
from textual.widgets import Static
from viewer_helpers import make_app, settle

from tracetui.ui.screens.confirm_rerun import LABEL, hanging
from tracetui.ui.screens.help import HelpScreen
from tracetui.ui.screens.stats import StatsScreen
from tracetui.ui.widgets.still_scroll import StillScroll
from tracetui.ui.widgets.trend_chart import TrendChart


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (160, 48)], ids=["80", "100", "160"])
async def test_trends_charts_share_their_x_axis(size: tuple[int, int], tmp_path: Path) -> None:
    app = make_app(str(creep_run(tmp_path / "creep")))
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, StatsScreen)
        lines = screen_lines(app)
        axes = set()
        for chart in app.screen.query(TrendChart):
            region = chart.region
            top = lines[region.y][region.x : region.right]
            axes.add((region.x, region.width, top.index("┤")))  # the value axis's top mark
        # Same left edge, same width, same axis column: bucket k starts at one column in all.
        assert len(axes) == 1


HANGING = [
    ("fits", "argv", "ls -la", 40, ["argv  ls -la"]),
    ("breaks-after-a-space", "argv", "aaaa bbbb cccc", 16, ["argv  aaaa bbbb ", "      cccc"]),
    ("folds-a-long-word", "cwd", "x" * 20, 16, ["cwd   xxxxxxxxxx", "      xxxxxxxxxx"]),
    ("keeps-double-spaces", "argv", "'a  b'  c", 12, ["argv  'a  b'  ", "      c"]),
]


@pytest.mark.parametrize(
    ("label", "value", "width", "lines"),
    [case[1:] for case in HANGING],
    ids=[case[0] for case in HANGING],
)
def test_hanging_indent(label: str, value: str, width: int, lines: list[str]) -> None:
    assert hanging(label, value, width) == lines
    assert "".join(line[LABEL:] for line in lines) == value  # no character dropped


async def test_confirmation_wraps_cleanly_at_80_columns(tmp_path: Path) -> None:
    app = confirm_app(tmp_path / "run", LONG)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await ask(pilot)
        region = screen.query_one("#confirm-facts").region
        rows = screen_lines(app)[region.y : region.bottom]
        facts = [line[region.x : region.right].rstrip() for line in rows]
        width = region.width
        # The notice is one paragraph wrapped by words, not a hard line break mid-sentence.
        assert facts[1] == "Read it before running it. It runs uncapped, without a shell, with"
        assert facts[2].startswith("stdin closed, in its own process group")
        argv = [line for line in facts if line.startswith(("argv  ", " " * LABEL))]
        assert argv[0].startswith("argv  sh -c 'true word000")
        # Every line of the argv fits the box and its continuations sit under the value.
        assert all(len(line) <= width for line in facts)
        assert all(line.startswith(" " * LABEL) for line in argv[1:])


async def test_help_wrapped_lines_keep_their_indent() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("end")
        await pilot.pause()
        region = app.screen.query_one("#help-panes").region
        rows = screen_lines(app)[region.y : region.bottom]
        lines = [line[region.x : region.right].rstrip() for line in rows]
        names = ("Header", "Spans", "Detail", "Chain")
        # Each pane's name starts a line; every wrapped line starts under the text, not at 0.
        starts = [line for line in lines if line.startswith(names)]
        assert [line.split()[0] for line in starts] == list(names)
        indent = len("Detail ")
        assert all(line.startswith(names) or line[:indent] == " " * indent for line in lines)
        assert len(lines) > len(names)  # 80 columns: some did wrap


class Scrolling(App[None]):
    def compose(self):  # type: ignore[no-untyped-def]
        with StillScroll(id="scroll"):
            yield Static("\n".join(f"line {i}" for i in range(200)))


@pytest.mark.parametrize(("key", "at_end"), [("end", True), ("home", False)], ids=["end", "home"])
async def test_home_and_end_jump_without_animation(
    key: str, at_end: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Headless tests draw animations at once, so what is checked is the request: animate=False.
    asked: list[object] = []
    for name in ("scroll_home", "scroll_end"):
        real = getattr(StillScroll, name)

        def spy(self: StillScroll, *args: Any, _real: Any = real, **kwargs: Any) -> Any:
            asked.append(kwargs.get("animate", True))
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(StillScroll, name, spy)
    app = Scrolling()
    async with app.run_test(size=(40, 10)) as pilot:
        scroll = app.query_one(StillScroll)
        scroll.focus()
        scroll.scroll_to(y=50, animate=False)
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
        assert scroll.scroll_y == (scroll.max_scroll_y if at_end else 0)
    assert asked == [False]
