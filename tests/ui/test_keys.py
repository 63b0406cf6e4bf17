"""The lnav / less keys of issue 16: search that walks, failure keys, postmortem, goto, paging, zoom.

Rows of the ``flaky`` run are listed in test_app.py. ``rounding`` matches rows 0, 1, 10 and 11;
the failures are rows 1, 2, 6, 8 and 10 (the latest).
"""

from __future__ import annotations

import html
import os
import re
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_rerun_pane import confirm_and_finish, record
from test_rerun_pane import make_app as rerun_app
from viewer_helpers import make_app, send_keys, settle, type_text

from tracetui.analysis.search import count_matches, match_spans, ordinal, step_match
from tracetui.export.report import render_report
from tracetui.ui import find, keymap
from tracetui.ui.commands import TraceCommands
from tracetui.ui.keys import VIEW_BINDINGS
from tracetui.ui.screens.ask import AskScreen
from tracetui.ui.widgets.detail import DetailPane
from tracetui.ui.widgets.rerun_pane import RerunPane

LATEST_FAILURE = 10


def notes(app: Any) -> list[str]:
    return [n.message for n in app._notifications]


def subtitle(app: Any) -> str:
    return str(app.query_one("#list-pane").border_subtitle)


async def search(pilot: Any, query: str) -> None:
    await pilot.press("slash")
    await type_text(pilot, query)
    await pilot.press("enter")
    await settle(pilot)


# ---------------------------------------------------------------------------- pure helpers
STEPS = [
    ("next", [2, 5, 9], 5, 1, (9, False)),
    ("next-wraps", [2, 5, 9], 9, 1, (2, True)),
    ("next-from-before-all", [2, 5, 9], 0, 1, (2, False)),
    ("prev", [2, 5, 9], 5, -1, (2, False)),
    ("prev-wraps", [2, 5, 9], 2, -1, (9, True)),
    ("prev-off-match", [2, 5, 9], 7, -1, (5, False)),
    ("none", [], 3, 1, None),
]


@pytest.mark.parametrize(
    ("found", "cursor", "step", "want"), [c[1:] for c in STEPS], ids=[c[0] for c in STEPS]
)
def test_step_match(
    found: list[int], cursor: int, step: int, want: tuple[int, bool] | None
) -> None:
    assert step_match(array("q", found), cursor, step) == want


ORDINALS = [
    ("first", 2, 3, 1),
    ("last", 9, 3, 3),
    ("not-a-match", 4, 3, None),
    ("not-counted-yet", 9, 2, None),
]


@pytest.mark.parametrize(
    ("pos", "known", "want"), [c[1:] for c in ORDINALS], ids=[c[0] for c in ORDINALS]
)
def test_ordinal(pos: int, known: int, want: int | None) -> None:
    assert ordinal(array("q", [2, 5, 9]), known, pos) == want


SPANS = [
    ("case-folded", "Make ROUNDING rounding", "rounding", [(5, 13), (14, 22)]),
    ("smart-case", "Make ROUNDING rounding", "ROUND", [(5, 10)]),
    ("none", "abc", "x", []),
    ("empty-query", "abc", "", []),
    ("no-overlap", "aaaa", "aa", [(0, 2), (2, 4)]),
]


@pytest.mark.parametrize(
    ("text", "query", "want"), [c[1:] for c in SPANS], ids=[c[0] for c in SPANS]
)
def test_match_spans(text: str, query: str, want: list[tuple[int, int]]) -> None:
    assert match_spans(text, query) == want


def test_count_matches_reports_progress_and_stops_when_cancelled() -> None:
    found: array[int] = array("q")
    seen: list[int] = []
    done = count_matches(10_000, lambda p: p, lambda r: r % 1000 == 0, found, progress=seen.append)
    assert (done, list(found), seen) == (True, list(range(0, 10_000, 1000)), [4096, 8192])
    stopped: array[int] = array("q")
    assert not count_matches(10_000, lambda p: p, lambda r: True, stopped, cancelled=lambda: True)
    assert len(stopped) == 4096


# ---------------------------------------------------------------------------- search
async def test_search_walks_matches_with_count_and_wrap() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.selected_row == LATEST_FAILURE
        await search(pilot, "rounding")
        got = [(app.selected_row, subtitle(app))]
        for key in ["n", "n", "N", "N"]:
            await pilot.press(key)
            await settle(pilot)
            got.append((app.selected_row, subtitle(app)))
        for _ in range(2):  # row 10 is a match too, row 9 is not: the count alone
            await pilot.press("k")
            got.append((app.selected_row, subtitle(app)))
        wrapped = notes(app)
        await pilot.press("escape")  # ends the search: N is the previous failure again
        await pilot.press("N")
        await settle(pilot)
        after = (app.selected_row, subtitle(app), app.spans.highlight)
    assert got == [
        (11, "/rounding · match 4/4"),
        (0, "/rounding · match 1/4"),
        (1, "/rounding · match 2/4"),
        (0, "/rounding · match 1/4"),
        (11, "/rounding · match 4/4"),
        (10, "/rounding · match 3/4"),
        (9, "/rounding · 4 matches"),
    ]
    assert wrapped == ["search wrapped to the top", "search wrapped to the bottom"]
    assert after == (8, "", "")  # from row 9


async def test_count_still_running_shows_an_ellipsis(monkeypatch: pytest.MonkeyPatch) -> None:
    def partial_count(
        n: int,
        at: Callable[[int], int],
        match: Callable[[int], bool],
        found: array[int],
        **kw: Any,
    ) -> bool:
        found.extend([0, 1, 10, 11])
        kw["progress"](12)
        return False  # as if still counting (a cancelled count never says done)

    monkeypatch.setattr(find, "count_matches", partial_count)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await search(pilot, "rounding")
        got = subtitle(app)
        await pilot.press("n")  # not counted: a worker search finds the next one
        await settle(pilot)
        got_after = (app.selected_row, subtitle(app))
    assert got == "/rounding · match 4/…"
    assert got_after == (0, "/rounding · match 1/…")


async def test_matches_are_highlighted_in_list_and_detail() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await search(pilot, "rounding")
        row = LATEST_FAILURE  # its argv names test_rounding.py
        app.select_row(row)
        await pilot.pause()
        assert app.index is not None
        strip = app.spans._render_row(row, 120, False)
        marked = [s.text for s in strip if s.style is not None and s.style.reverse]
        detail = app.query_one(DetailPane)
        text = detail._marked(detail.render_row(app.index, row, False))
        lit = [text.plain[s.start : s.end] for s in text.spans if s.style == "reverse bold"]
        await pilot.press("escape")
        cleared = app.spans.highlight, detail.highlight
    assert marked and all(m.lower() == "rounding" for m in marked)
    assert lit and all(m.lower() == "rounding" for m in lit)
    assert cleared == ("", "")


async def test_no_match_says_so_and_stays() -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await search(pilot, "zzznothing")
        got = (app.selected_row, subtitle(app), notes(app))
    assert got == (LATEST_FAILURE, "/zzznothing · 0 matches", ["no match for 'zzznothing'"])


# ---------------------------------------------------------------------------- failure keys
KEYS = [
    ("e-from-top", ["g", "e"], 1),
    ("e-twice", ["g", "e", "e"], 2),
    ("E-from-latest", ["E"], 8),
    ("n-without-search-is-failure", ["g", "n"], 1),
    ("N-without-search-is-failure", ["N"], 8),
    ("t-from-top", ["g", "t"], 1),
    ("T-from-latest", ["T"], 8),
    ("L-from-top", ["g", "L"], 10),
]


async def test_failure_and_truncation_keys() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        got = {}
        for case, keys, _row in KEYS:
            app.select_row(LATEST_FAILURE)
            await pilot.pause()
            await send_keys(pilot, *keys)
            await pilot.pause()
            got[case] = app.selected_row
    assert got == {case: row for case, _keys, row in KEYS}


# ---------------------------------------------------------------------------- postmortem
async def test_postmortem_asks_where_and_writes_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("P")
        await pilot.pause()
        assert isinstance(app.screen, AskScreen)
        field = app.screen.query_one("#ask-input")
        default = field.value  # type: ignore[attr-defined]
        field.value = str(tmp_path / "chosen.md")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot)
        assert app.index is not None
        expected = render_report(app.index, LATEST_FAILURE)
        await pilot.press("P", "escape")  # Esc: nothing written
        await settle(pilot)
        said = notes(app)
    assert default == str(tmp_path / "tracetui-report-0010-a1b2c3d4.md")
    assert os.listdir(tmp_path) == ["chosen.md"]
    assert (tmp_path / "chosen.md").read_text(encoding="utf-8") == expected
    assert said == [f"report written to {tmp_path / 'chosen.md'}", "postmortem not written"]


async def test_postmortem_never_replaces_a_chosen_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.md").write_text("mine")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("P")
        await pilot.pause()
        app.screen.query_one("#ask-input").value = "mine.md"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot)
        said = notes(app)
    assert (tmp_path / "mine.md").read_text() == "mine"
    assert said == ["mine.md already exists: nothing written (choose another name)"]


# ---------------------------------------------------------------------------- goto
GOTO = [
    ("row-number", "3", 2, None),
    ("last-row-number", "12", 11, None),
    ("id-shown-as-digits", "0006", 6, None),
    ("id-prefix", "fb-", 8, None),
    ("whole-id", "fb-0008", 8, None),
    ("hash-is-always-a-row", "#6", 5, None),
    ("number-past-the-end", "99", LATEST_FAILURE, "no span with id '99'"),
    ("unknown-id", "zzz", LATEST_FAILURE, "no span with id 'zzz'"),
]


async def test_goto_row_or_id() -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        got = {}
        for case, answer, _row, _note in GOTO:
            app.select_row(LATEST_FAILURE)
            app.clear_notifications()
            await pilot.press("colon")
            await pilot.pause()
            assert isinstance(app.screen, AskScreen)
            await type_text(pilot, answer)
            await pilot.press("enter")
            await pilot.pause()
            got[case] = (app.selected_row, notes(app)[-1] if notes(app) else None)
        await pilot.press("ctrl+g", "escape")  # Esc: nowhere, nothing said
        await pilot.pause()
        after_esc = (app.selected_row, type(app.screen).__name__)
    assert got == {case: (row, note) for case, _a, row, note in GOTO}
    assert after_esc == (LATEST_FAILURE, "Screen")


async def test_goto_ambiguous_id_lists_candidates() -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.query_one("#spans").focus()
        app.goto("a1b2c3d4")
        await pilot.pause()
        said = notes(app)
    assert app.selected_row == LATEST_FAILURE
    assert len(said) == 1 and said[0].startswith("id 'a1b2c3d4' is ambiguous: ")


# ---------------------------------------------------------------------------- paging
async def test_paging_keys_like_less() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        page = app.spans.page
        half = max(1, page // 2)
        got = []
        for keys in (["g", "space"], ["b"], ["ctrl+f"], ["ctrl+b"], ["ctrl+d"], ["ctrl+u"]):
            await pilot.press(*keys)
            await pilot.pause()
            got.append(app.spans.cursor)
    assert 2 <= page < 11  # a page smaller than the run, so the moves are told apart
    assert got == [page, 0, page, 0, half, 0]


# ---------------------------------------------------------------------------- zoom and q
async def test_z_zooms_the_focused_pane_and_q_closes_the_zoom_first() -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("z")
        zoomed = app.screen.maximized
        await pilot.press("z")
        back = app.screen.maximized
        detail = app.query_one(DetailPane)
        detail.focus()
        await pilot.press("z")
        detail_zoomed = app.screen.maximized
        await pilot.press("q")  # closes the zoom, does not quit
        await pilot.pause()
        after_q = (app.screen.maximized, app.is_running)
        await pilot.press("q")  # the bare list: quits
        await pilot.pause()
    assert zoomed is not None and zoomed.id == "list-pane"
    assert back is None
    assert detail_zoomed is detail
    assert after_q == (None, True)
    assert app.return_value == 0


# ---------------------------------------------------------------------------- keymap
PARSED = [
    ("quoted-id", '"view.next_match" = "ctrl+n"\n', {"view.next_match": "ctrl+n"}),
    ("bare-dotted-id", 'view.rerun = "ctrl+r"  # mine\n', {"view.rerun": "ctrl+r"}),
    ("comments-and-blanks", '# keys\n\nview.help = "f1"\n', {"view.help": "f1"}),
]


@pytest.mark.parametrize("reader", ["tomllib", "small-reader"])
@pytest.mark.parametrize(("text", "want"), [c[1:] for c in PARSED], ids=[c[0] for c in PARSED])
def test_parse_keymap(
    text: str, want: dict[str, str], reader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if reader == "small-reader":
        monkeypatch.setattr(keymap, "_toml", lambda: None)  # as on Python 3.10
    assert keymap.parse_keymap(text) == want


@pytest.mark.parametrize("reader", ["tomllib", "small-reader"])
def test_parse_keymap_refuses_what_it_cannot_read(
    reader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if reader == "small-reader":
        monkeypatch.setattr(keymap, "_toml", lambda: None)
    with pytest.raises(keymap.KeymapError):
        keymap.parse_keymap("view.rerun = ctrl+r\n")


def test_keymap_path_follows_xdg() -> None:
    got = keymap.keymap_path({"XDG_CONFIG_HOME": "/cfg"})
    assert got == Path("/cfg/tracetui/keymap.toml")
    fallback = keymap.keymap_path({})
    assert fallback == Path(os.path.expanduser("~")) / ".config/tracetui/keymap.toml"


def _write_keymap(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "tracetui" / "keymap.toml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    return path


async def test_keymap_remaps_keys_help_and_palette(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write_keymap(tmp_path, '"view.next_failure" = "ctrl+n"\nview.nope = "x"\n', monkeypatch)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("g", "ctrl+n")
        await pilot.pause()
        row_after_ctrl_n = app.selected_row
        await pilot.press("e")  # e no longer bound
        await pilot.pause()
        row_after_e = app.selected_row
        said = notes(app)
        provider = TraceCommands(app.screen)
        palette = {name: keys for name, keys, _help, _action in provider._commands()}
        hits = [str(h.display) async for h in provider.discover()]
    assert (row_after_ctrl_n, row_after_e) == (1, 1)
    path = tmp_path / "tracetui" / "keymap.toml"
    assert said == [f"keymap {path}: no binding has the id view.nope (skipped)"]
    assert palette["Next failure"] == "Ctrl+N"
    assert palette["Postmortem"] == "P"
    assert "Re-run  (r)" in hits


async def test_bad_keymap_warns_once_and_keeps_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write_keymap(tmp_path, "view.rerun = [oops\n", monkeypatch)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("g", "e")
        await pilot.pause()
        row = app.selected_row
        warned = [(n.message, n.markup) for n in app._notifications]
    assert row == 1
    assert len(warned) == 1
    message, markup = warned[0]
    assert message.startswith(f"keymap {path} not read (") and not markup
    assert message.endswith("): default keys kept")


def test_viewer_doc_lists_every_binding_id_with_its_keys() -> None:
    doc = (Path(__file__).parents[2] / "docs" / "viewer.md").read_text(encoding="utf-8")
    missing = [b.id for b in VIEW_BINDINGS if f"| `{b.id}` | `{b.key}` |" not in doc]
    assert missing == []


async def test_q_closes_the_rerun_pane_from_any_pane_before_quitting(tmp_path: Path) -> None:
    record(tmp_path / "run", "clock")
    app = rerun_app(tmp_path / "run")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await confirm_and_finish(pilot)
        app.spans.focus()  # not the pane: q still closes the pane first
        await pilot.press("q")
        await pilot.pause()
        after_q = (len(app.query(RerunPane)), app.is_running)
        await pilot.press("q")
        await pilot.pause()
    assert after_q == (0, True)
    assert app.return_value == 0


async def test_footer_shows_the_headline_keys_rerun_first_at_100_columns() -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        svg = app.export_screenshot()
    rows: dict[float, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(float(m[2]), []).append((float(m[1]), html.unescape(m[3])))
    footer = "".join(t for _x, t in sorted(rows[max(rows)])).replace("\xa0", " ")
    # n (Next match) only while a search is active: tests/ui/test_footer_search_key.py.
    want = " r Re-run  e Next failure  / Search  P Postmortem  ? Help  q Quit"
    assert footer.startswith(want)
