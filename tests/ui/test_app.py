"""Pilot tests of the viewer on the fixed ``flaky`` run (tests/ui/data/make_fixtures.py).

Rows of that run, in set order: 0 ok · 1 fail ✂ · 2 fail ✂ (retry of 1) · 3 ok ✂ (truncation-span
dialect) · 4 bad line · 5 ok (retry of 2) · 6 exit 2 (also a retry of 2: a branch) · 7 ok ✂
(parent rotated away) · 8 no exit, feedback dialect ✂ · 9 escape sequences · 10 fail ✂, the
latest failure · 11 ok.
"""

from __future__ import annotations

import pytest
from textual.widgets import Input, Static
from viewer_helpers import FLAKY, MULTI, make_app, send_keys, settle, type_text

from tracetui.ui.screens.help import HelpScreen
from tracetui.ui.screens.run_picker import RunPicker
from tracetui.ui.widgets.chain import ChainPane
from tracetui.ui.widgets.detail import DetailPane

LATEST_FAILURE = 10


async def test_latest_failure_is_selected_on_open() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.selected_row == LATEST_FAILURE
        assert app.spans.cursor == LATEST_FAILURE
        top = int(app.spans.scroll_y)
        assert top <= LATEST_FAILURE < top + app.spans.scrollable_content_region.height


NAV = [
    ("n-from-top", ["g", "n"], 1),
    ("n-twice", ["g", "n", "n"], 2),
    ("n-skips-ok-and-bad", ["g", "n", "n", "n"], 6),
    ("n-null-exit-counts", ["g", "n", "n", "n", "n"], 8),
    ("n-at-last-failure-stays", ["n"], 10),
    ("N-from-latest", ["N"], 8),
    ("N-twice", ["N", "N"], 6),
    ("t-from-top", ["g", "t"], 1),
    ("t-skips-failures-without-cut", ["g", "t", "t", "t", "t"], 7),
    ("T-from-latest", ["T"], 8),
    ("T-thrice", ["T", "T", "T"], 3),
    ("L-from-top", ["g", "L"], 10),
    ("G-last-row", ["G"], 11),
    ("j-down", ["j"], 11),
    ("k-up-over-bad-line", ["k", "k", "k", "k", "k", "k"], 4),
    ("pagedown-clamps", ["g", "pagedown", "pagedown", "pagedown"], 11),
    ("pageup-clamps", ["pageup", "pageup", "pageup"], 0),
]


async def test_navigation_keys_land_on_the_right_row() -> None:
    # One app for the whole table (starting apps is the slow part); each case starts on the
    # latest failure, its keys sent at once (a fast typist: each key acts on the cursor the one
    # before left). The dict comparison names any case that went wrong.
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        got = {}
        for case, keys, _row in NAV:
            app.select_row(LATEST_FAILURE)
            await pilot.pause()
            await send_keys(pilot, *keys)
            await pilot.pause()
            got[case] = app.selected_row
    assert got == {case: row for case, _keys, row in NAV}


SEARCH = [
    ("next-after-cursor", "rounding", 1, 11),
    ("wraps-to-top", "rounding", 2, 0),
    ("third-match", "rounding", 3, 1),
    ("matches-preview-json", "inv_0003", 1, 7),
    ("matches-note", "rotated", 1, 10),
    ("smart-case-miss", "ROUNDING", 1, 10),
]


async def test_search_jumps_to_next_match() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        got = {}
        for case, query, enters, _row in SEARCH:
            app.select_row(LATEST_FAILURE)
            await pilot.press("slash")
            assert isinstance(app.focused, Input)
            app.query_one("#search", Input).value = ""
            await type_text(pilot, query)
            for i in range(enters):
                await pilot.press("enter" if i == 0 else "n")  # Enter, then n: the next match
                await settle(pilot)
            got[case] = app.selected_row
            await pilot.press("escape")
            assert not app.query_one("#search").has_class("-open")
    assert got == {case: row for case, _query, _enters, row in SEARCH}


FILTERS = [
    ("failures-only", ["F"], [1, 2, 6, 8, 10], 10),
    ("truncated-only", ["X"], [1, 2, 3, 7, 8, 10], 10),
    ("failures-then-up", ["F", "k"], [1, 2, 6, 8, 10], 8),
    ("failures-toggled-off", ["F", "F"], list(range(12)), 10),
    ("escape-clears", ["X", "escape"], list(range(12)), 10),
    ("failures-then-truncated", ["F", "X"], [1, 2, 3, 7, 8, 10], 10),
    ("truncated-top-then-n", ["X", "g", "n"], [1, 2, 3, 7, 8, 10], 2),
]


async def test_filters_show_only_matching_rows() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        got = {}
        for case, keys, _rows, _row in FILTERS:
            app._set_filter(0, LATEST_FAILURE)
            await pilot.pause()
            await send_keys(pilot, *keys)
            await pilot.pause()
            view = app.spans.view
            assert view is not None
            got[case] = ([view.row_at(p) for p in range(len(view))], app.selected_row)
    assert got == {case: (rows, row) for case, _keys, rows, row in FILTERS}


CHAIN = [
    ("prev-from-branch", 6, ["left_square_bracket"], 5),
    ("prev-to-root", 6, ["left_square_bracket"] * 3, 1),
    ("next-from-root", 1, ["right_square_bracket"], 2),
    ("next-into-branch", 2, ["right_square_bracket", "right_square_bracket"], 6),
    ("end-stays", 6, ["right_square_bracket"], 6),
    ("single-attempt-stays", 10, ["right_square_bracket"], 10),
]


async def test_chain_navigation() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        got = {}
        for case, start, keys, _row in CHAIN:
            app.select_row(start)
            await pilot.pause()
            await pilot.press(*keys)
            await pilot.pause()
            got[case] = app.selected_row
    assert got == {case: row for case, _start, _keys, row in CHAIN}


async def test_chain_pane_shows_tree_and_missing_parent() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.select_row(6)
        await pilot.pause()
        pane = app.query_one(ChainPane)
        assert pane.order == [1, 2, 5, 6]
        lines = pane.body.render().plain.splitlines()  # type: ignore[union-attr]
        assert [ln.split(" exit")[0] for ln in lines] == [
            "  #1",
            "  └─ #2",
            "     ├─ #3",
            "▶    └─ #3",  # the selected attempt is marked first on its line
        ]
        app.select_row(7)
        await pilot.pause()
        text = pane.body.render().plain  # type: ignore[union-attr]
        assert text.startswith("⚠ parent not in set (rotated away?): zz-rotated-away")


def detail_text(app) -> str:  # type: ignore[no-untyped-def]
    return app.query_one(DetailPane).body.render().plain


async def test_raw_toggle() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert "4,757 bytes the agent never saw" in detail_text(app)
        await pilot.press("R")
        raw = detail_text(app)
        assert raw.startswith("raw record (tracetui/1)\n{")
        assert '"command_id": "0010-a1b2c3d4"' in raw
        await pilot.press("R")
        assert "4,757 bytes (70%) never shown" in detail_text(app)


DETAILS = [
    (
        "head-cut-banner",
        1,
        ["5,503 bytes (40%) never shown", "━━ 5,503 bytes the agent never saw ━━"],
    ),
    ("items", 7, ["50 items at source, 20 shown"]),
    (
        "feedback-unknown",
        8,
        [
            "truncation unknown (no byte counts in this dialect)",
            "212 lines the agent never saw",
            "none: runner timed out after 600 s",
        ],
    ),
    ("relative-cwd", 5, ["tests/ui/data/flaky/repo   (recorded: repo)"]),
    ("bad-line", 4, ["bad line  ", "feedback_record.jsonl:1"]),
]


async def test_detail_pane_facts() -> None:
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        missing = {}
        for case, row, wanted in DETAILS:
            app.select_row(row)
            await pilot.pause()
            text = detail_text(app)
            missing[case] = [w for w in wanted if w not in text]
    assert missing == {case: [] for case, _row, _wanted in DETAILS}


@pytest.mark.parametrize("raw", [False, True], ids=["detail", "raw"])
async def test_escape_sequences_never_reach_the_screen(raw: bool) -> None:
    app = make_app()
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.select_row(9)
        await pilot.pause()
        if raw:
            await pilot.press("R")
        await pilot.pause()
        # Every cell of the composed screen: no C0/C1 control character may be among them.
        strips = app.screen._compositor.render_strips()
        texts = ["".join(seg.text for seg in strip) for strip in strips]
        screen = "\n".join(texts)
        bad = sorted(
            {hex(ord(c)) for c in screen if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F}
        )
        assert bad == []
        assert "␛]0;pwned␇" in screen
        if not raw:
            assert "␛]52;c;aGVsbG8=␇" in screen and "␛[2J␛[H" in screen


async def test_copy_argv() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("y")
        assert app.clipboard == "python -m pytest tests/billing/test_rounding.py"


async def test_help_screen_lists_every_key() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        table = app.screen.query_one("#help-keys", Static).content
        descriptions = [cell.plain for cell in table.columns[1].cells]  # type: ignore[union-attr]
        assert descriptions == [b.description for b in app.BINDINGS]  # type: ignore[union-attr]
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_run_picker_for_a_directory_of_runs() -> None:
    app = make_app(MULTI)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, RunPicker)
        await pilot.press(*"beta", "enter")  # newest first: the order follows the files' times
        await settle(pilot)
        assert app.run_ is not None and app.run_.name == "multi/beta.jsonl"
        assert app.selected_row == 1


async def test_palette_offers_every_action() -> None:
    app = make_app()
    actions = {b.action for b in app.palette_bindings()}
    assert {
        "next_failure",
        "prev_failure",
        "next_truncated",
        "latest_failure",
        "search",
        "filter_failed",
        "filter_truncated",
        "toggle_raw",
        "copy_argv",
        "chain_next",
        "help",
        "quit_app",
    } <= actions


@pytest.mark.slow
async def test_200k_spans_open_and_scroll_to_the_end(tmp_path) -> None:  # type: ignore[no-untyped-def]
    n = 200_000
    line = (
        '{"schema":"tracetui/1","command_id":"id-%d","argv":["echo","%d"],"exit_code":%d,'
        '"stdout_bytes":10,"stdout_cap":8192,"stdout_truncated":false,"stderr_bytes":0,'
        '"stderr_cap":8192,"stderr_truncated":false,"preview_stdout":"x"}'
    )
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(line % (i, i, 1 if i == 1234 else 0) for i in range(n)) + "\n")
    app = make_app(str(path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert len(app.index) == n
        assert app.selected_row == 1234
        await pilot.press("G")
        await pilot.pause()
        assert app.selected_row == n - 1
        assert int(app.spans.scroll_y) == n - app.spans.scrollable_content_region.height
        last = app.spans.render_line(app.spans.scrollable_content_region.height - 1)
        assert "echo 199999" in last.text


FAILING = (
    '{"schema": "tracetui/1", "command_id": "0012-new", "argv": ["make", "again"], '
    '"exit_code": 4, "stdout_bytes": 0, "stderr_bytes": 0, "stdout_cap": null, '
    '"stderr_cap": null, "stdout_truncated": false, "stderr_truncated": false}\n'
)


@pytest.mark.parametrize(
    ("follow", "start", "row"),
    [(True, 11, 12), (True, 10, 10), (False, 11, 11)],
    ids=["at-end-follows", "elsewhere-keeps-place", "no-follow-keeps-place"],
)
async def test_rows_appended_while_open(tmp_path, follow: bool, start: int, row: int) -> None:  # type: ignore[no-untyped-def]
    import shutil

    from tracetui.store.runset import open_paths
    from tracetui.ui.app import TraceApp

    run_dir = tmp_path / "flaky"
    shutil.copytree(FLAKY, run_dir)
    app = TraceApp(open_paths([str(run_dir)]), follow=follow)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.live.stop()  # this test plays the follower itself; tests/ui/test_live.py runs the real one
        app.select_row(start)
        await pilot.pause()
        with open(run_dir / "feedback_record.jsonl", "a", encoding="utf-8") as fh:
            fh.write(FAILING)
        # What the live follower does: grow the index, then tell the app.
        app.index.index_member(len(app.index.members) - 1)
        assert app.rows_appended() == 1
        await pilot.pause()
        assert len(app.spans.view) == 13
        assert app.spans.latest_failure == 12  # the badge moved to the newer failure
        assert app.index.stats.failed == 6
        assert app.selected_row == row
