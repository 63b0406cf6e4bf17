"""The viewer at 80×24 (issue 16): what the agent never saw is on screen without a key.

Each test reads the rendered screen's text (the compositor's strips, as the terminal gets them).
"""

from __future__ import annotations

import pytest
from viewer_helpers import make_app, settle

from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.detail import DetailPane

THUMB = " ▁▂▃▄▅▆▇█▀"
"""The scrollbar's thumb, drawn at the pane's right edge: not part of the text."""


def screen_lines(app: TraceApp) -> list[str]:
    strips = app.screen._compositor.render_strips()
    return ["".join(seg.text for seg in strip) for strip in strips]


def detail_lines(app: TraceApp) -> list[str]:
    """The screen lines of the detail pane's content (inside its border, padding and scrollbar)."""
    region = app.query_one(DetailPane).content_region
    lines = screen_lines(app)[region.y : region.bottom]
    return [line[region.x : region.right].rstrip(THUMB).rstrip() for line in lines]


@pytest.mark.parametrize(
    ("row", "verdicts", "clip_banner"),
    [
        (
            10,
            ["stdout    4,757 bytes (70%) never shown"],
            " ━━ 4,757 bytes the agent never saw ━━   clip head_tail",
        ),
        (
            1,
            ["stdout    5,503 bytes (40%) never shown"],
            " ━━ 5,503 bytes the agent never saw ━━   clip head",
        ),
        (
            8,
            [
                "stdout    212 lines never shown (per the marker)",
                "stderr    truncation unknown (no byte counts in this dialect)",
            ],
            " ━━ 212 lines the agent never saw ━━   clip tail",
        ),
    ],
    ids=["opening-row", "head-kept", "amount-unknown"],
)
async def test_never_shown_and_clip_banner_need_no_key(
    row: int, verdicts: list[str], clip_banner: str
) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.select_row(row)
        await pilot.pause()
        lines = detail_lines(app)
        # The compact header comes first in the pane, the span's facts below it.
        assert lines[: len(verdicts) + 1] == [*verdicts, clip_banner]


async def test_an_uncut_span_has_no_compact_header() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.select_row(0)
        await pilot.pause()
        assert detail_lines(app)[0] == "git status --short"


async def test_wide_terminals_keep_the_verdict_in_the_stream_block_only() -> None:
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert detail_lines(app)[0] == "python -m pytest tests/billing/test_rounding.py"


async def test_header_is_one_line_and_footer_keys_are_whole() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = screen_lines(app)
        # The run's name gives up its start; the facts are abbreviated and all there.
        assert lines[0].rstrip() == (
            " …_record.jsonl · 2 files · 11 spans · 5 failed · 6 trunc · 32KB hidden · 1 bad"
        )
        assert lines[1].startswith("╭─ spans ")
        # No search is active, so n is not shown and every headline key fits (during a search
        # Postmortem is left out: tests/ui/test_footer_search_key.py).
        assert lines[-1].split("▏")[0].rstrip() == (
            " r Re-run  e Next failure  / Search  P Postmortem  ? Help  q Quit"
        )


async def test_wide_footer_shows_every_headline_key() -> None:
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert screen_lines(app)[-1].split("▏")[0].rstrip() == (
            " r Re-run  e Next failure  / Search  P Postmortem  ? Help  q Quit"
        )


async def test_chain_marks_the_selected_node_first_and_ends_long_lines_in_an_ellipsis() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.select_row(6)  # the last node of a branching chain of four
        await pilot.pause()
        pane = app.query_one("#chain")
        lines = screen_lines(app)[pane.region.y + 1 : pane.region.bottom - 1]
        assert [line[pane.region.x + 1 : pane.region.right - 1].rstrip() for line in lines] == [
            "   #1 exit 1    ✂ 5,503 B hidden  0002  python -m pytest tests/billing -x -q",
            "   └─ #2 exit 1    ✂ 5,503 B hidden  0003  python -m pytest tests/billing -x…",
            "      ├─ #3 exit 0     0005  python -m pytest tests/billing -x -q",
            " ▶    └─ #3 exit 2     0006  python -m pytest tests/billing -x -q --lf",
        ]
