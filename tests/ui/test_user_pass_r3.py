"""A new user's pass over the viewer (helper R3): what the screen says must match what happened.

Each case fails on the code before its fix: Claude Code counts what it cut in characters, so the
viewer must not call that count bytes; a running call older than four days has a duration that
fits its cell and still reads as a duration.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from foreign_lines import cc_call, cc_prompt, cc_result, line
from viewer_helpers import settle

from tracetui.analysis.rows import fmt_duration
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.chain import ChainPane
from tracetui.ui.widgets.detail import DetailPane

THUMB = " ▁▂▃▄▅▆▇█▀"


def pane_lines(app: TraceApp, pane: type[DetailPane] | type[ChainPane]) -> list[str]:
    region = app.query_one(pane).content_region
    strips = app.screen._compositor.render_strips()
    lines = ["".join(seg.text for seg in strip) for strip in strips][region.y : region.bottom]
    return [text[region.x : region.right].rstrip(THUMB).rstrip() for text in lines]


def session(tmp_path: Path, result: str) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_bytes(
        line(cc_prompt()) + line(cc_call(1, "cat big.log")) + line(cc_result(1, result))
    )
    return path


CUT = "head é\n" * 20 + "\n\n... [48213 characters truncated] ...\n\n" + "tail\n" * 10
TOO_LARGE = (
    "<persisted-output>\nOutput too large (85.4KB). Full output saved to: /nowhere/out.txt\n\n"
    "Preview (first 2KB):\n" + "x" * 2048 + "\n...\n</persisted-output>"
)


@pytest.mark.parametrize(
    ("result", "verdict", "clip_banner", "chain"),
    [
        (
            CUT,
            "stdout    48,213 characters never shown (per the marker)",
            " ━━ 48,213 characters the agent never saw ━━   clip head_tail",
            "✂ 48,213 chars hidden",
        ),
        (
            TOO_LARGE,
            "stdout    about 85,401 bytes never shown (per the marker)",
            " ━━ about 85,401 bytes the agent never saw ━━   clip head",
            "✂ 85,401 B hidden",
        ),
    ],
    ids=["characters-truncated", "output-too-large"],
)
async def test_claude_code_cut_is_said_in_the_unit_it_was_counted_in(
    tmp_path: Path, result: str, verdict: str, clip_banner: str, chain: str
) -> None:
    app = TraceApp(open_paths([str(session(tmp_path, result))]), follow=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.select_row(0)
        await pilot.pause()
        assert pane_lines(app, DetailPane)[:2] == [verdict, clip_banner]
        assert chain in pane_lines(app, ChainPane)[0]


@pytest.mark.parametrize(
    ("hours", "shown"),
    [(2.1, "2h06"), (99.0, "99h00"), (100.0, "4d04"), (239.0, "9d23"), (12437.0, "518d")],
    ids=["hours", "99h", "100h", "9-days", "17-months"],
)
def test_long_durations_fit_five_columns_and_say_their_unit(hours: float, shown: str) -> None:
    assert fmt_duration(hours * 3600 * 1000) == shown


async def test_unseen_clip_marker_reads_as_a_sentence() -> None:
    from textual.widgets import Static

    from tracetui.ui.screens.unseen import UnseenScreen

    sample = Path(__file__).resolve().parents[2] / "sample_runs" / "flaky-billing"
    app = TraceApp(open_paths([str(sample)]), follow=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.select_row(2)  # pytest, stdout cut at its head: 16,014 bytes never shown
        await pilot.pause()
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, UnseenScreen)
        first = str(app.screen.query_one("#unseen-body", Static).content).splitlines()[0]
        assert first == "▲ the agent's view ended here: it never saw anything below"


async def test_80_column_header_keeps_the_live_state_beside_a_running_call(tmp_path: Path) -> None:
    from tracetui.ui.widgets.run_header import RunHeader

    path = tmp_path / "a-claude-code-session-with-a-long-name.jsonl"
    path.write_bytes(
        line(cc_prompt())
        + line(cc_call(1, "ls", message="m1"))
        + line(cc_result(1, "README.md"))
        + line(cc_call(2, "sleep 600", message="m2"))
    )
    app = TraceApp(open_paths([str(path)]), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        header = app.query_one(RunHeader)
        for _ in range(500):
            if "1 running" in header.content.plain:  # type: ignore[union-attr]
                break
            await pilot.pause(0.01)
        shown = header.content.plain  # type: ignore[union-attr]
        assert shown.endswith("· claude-code · 1 span · 1 running   LIVE ")
        assert len(shown) <= 80


async def test_y_before_the_end_does_not_blame_an_argv_in_plain_sight(tmp_path: Path) -> None:
    """At 80×24 a short argv is on screen while the note on where the re-run goes is below it."""
    from tracetui.ui.screens.confirm_rerun import ConfirmRerun

    sample = Path(__file__).resolve().parents[2] / "sample_runs" / "flaky-billing"
    app = TraceApp(open_paths([str(sample)]), follow=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ConfirmRerun)
        assert screen.facts_scroll.max_scroll_y > 0  # the facts do not fit: y is refused
        await pilot.press("y")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert said == ["scroll to the end first: not all of it was on screen"]
        hint = str(screen.query_one("#confirm-hint").render())
        assert hint == "Scroll to the end first: not all of it was on screen (↓ PgDn End)."
        await pilot.press("escape")


@pytest.mark.parametrize("width", [80, 160], ids=["short", "full"])
async def test_cuts_of_unknown_size_are_not_zero_bytes_hidden(width: int) -> None:
    """OpenHands' markers say that output was cut, not how much: the header must not say 0."""
    from tracetui.ui.widgets.run_header import RunHeader

    agents = Path(__file__).resolve().parents[1] / "data" / "agents"
    app = TraceApp(open_paths([str(agents / "openhands_v1_events.json")]), follow=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot)
        shown = app.query_one(RunHeader).content.plain  # type: ignore[union-attr]
        assert "B hidden" not in shown
        # Two more spans whose truncation cannot be told (no marker, no counts) are said too.
        assert (
            " · 2+2? trunc · ? hidden" if width == 80 else " · 2 trunc · 2 trunc ? · ? hidden"
        ) in shown


@pytest.mark.parametrize(
    ("row", "first"),
    [
        (5, "stdout    16,014 bytes (66%) never shown"),  # three incident lines push it down
        (2, "python3 tools/billing_suite.py"),  # its verdict is in sight: no strip
    ],
    ids=["verdict-below-the-fold", "verdict-in-sight"],
)
async def test_wide_detail_pins_the_verdict_only_when_it_is_out_of_sight(
    row: int, first: str
) -> None:
    sample = Path(__file__).resolve().parents[2] / "sample_runs" / "flaky-billing"
    app = TraceApp(open_paths([str(sample)]), follow=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.select_row(row)
        await pilot.pause()
        await pilot.pause()
        assert pane_lines(app, DetailPane)[0] == first


async def test_80_column_header_of_a_rotated_run_keeps_the_live_state() -> None:
    """Five files, a bad line and no zero count: the name gives way, not the LIVE badge."""
    from tracetui.ui.widgets.run_header import RunHeader

    sample = Path(__file__).resolve().parents[2] / "sample_runs" / "rotated"
    app = TraceApp(open_paths([str(sample)]), follow=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        header = app.query_one(RunHeader)
        for _ in range(500):
            if "1 bad   LIVE" in header.content.plain:  # type: ignore[union-attr]
                break
            await pilot.pause(0.01)
        await pilot.pause()
        shown = header.content.plain  # type: ignore[union-attr]
        assert shown.endswith(" · 1 bad   LIVE ") and len(shown) <= 80
