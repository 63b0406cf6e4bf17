"""Issue 16's layout lies: the trends charts' x-axis, the help screen's and the re-run
confirmation's wrapped lines, read from the rendered screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_confirm_rerun import LONG, ask
from test_confirm_rerun import make_app as confirm_app
from test_narrow_layout import screen_lines
from test_stats_screen import creep_run
from viewer_helpers import make_app, settle

from tracetui.ui.screens.confirm_rerun import LABEL, hanging
from tracetui.ui.screens.help import HelpScreen
from tracetui.ui.screens.stats import StatsScreen
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
