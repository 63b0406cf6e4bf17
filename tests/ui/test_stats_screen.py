"""The trends screen (``s``): its drawing helpers, and the figures it shows for a run built here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from records import Line, encode_line, tool
from viewer_helpers import make_app, settle

from tracetui.ui.screens.stats import (
    Headline,
    StatsScreen,
    drift_words,
    headline,
    pct,
    show_stats,
    when,
)
from tracetui.ui.widgets.trend_chart import TrendChart, bar_rows, level, to_columns

CAP = 1000
# (stdout bytes, exit code) per span, one minute apart; over the cap means head-cut.
CREEP = [(500, 0), (800, 0), (400, 1), (1000, 0), (1500, 0), (2000, 1), (3000, 0), (4000, 2)]


def creep_run(root: Path) -> Path:
    """Eight spans whose hidden share climbs from 0 to 75%, and one bad line (not a span)."""
    lines: list[Line] = []
    for i, (size, code) in enumerate(CREEP):
        cut = size > CAP
        lines.append(
            tool(
                f"cmd_{i:04d}",
                started_at=f"2026-11-02T09:{i:02d}:00Z",
                exit_code=code,
                ok_preview=code == 0 and not cut,
                argv=["pytest", f"tests/t{i}"],
                stdout_bytes=size,
                stdout_cap=CAP,
                stdout_truncated=cut,
                stdout_clip="head" if cut else None,
                stdout_sha256=None if cut else "ab" * 32,
                preview_stdout="x" * min(size, CAP)
                + (f"…[truncated {size - CAP} bytes]…" if cut else ""),
            )
        )
        if i == 3:
            lines.append("{not json\n")
    root.mkdir(parents=True)
    (root / "feedback_record.jsonl").write_bytes(b"".join(encode_line(x) for x in lines))
    return root


# --------------------------------------------------------------------------- drawing helpers
COLUMNS = [
    ("stretch-even", [1, 2], 4, [1, 1, 2, 2]),
    ("stretch-uneven", [1, 2, 3], 4, [1, 2, 3, 3]),
    ("same-width", [1, None, 3], 3, [1, None, 3]),
    ("squeeze-keeps-max", [1, 5, 2, 0], 2, [5, 2]),
    ("squeeze-unknowns", [None, None, 2, None], 2, [None, 2]),
    ("empty", [], 5, []),
    ("no-width", [1], 0, []),
]


@pytest.mark.parametrize(
    ("values", "width", "want"), [c[1:] for c in COLUMNS], ids=[c[0] for c in COLUMNS]
)
def test_to_columns(values: list[Any], width: int, want: list[Any]) -> None:
    assert to_columns(values, width) == want


LEVELS = [
    ("zero", 0.0, 1.0, 2, 0),
    ("full", 1.0, 1.0, 2, 16),
    ("over-top-clamped", 3.0, 1.0, 2, 16),
    ("half", 0.5, 1.0, 2, 8),
    ("sliver-gets-two-eighths", 0.001, 1.0, 3, 2),
    ("no-scale", 5.0, 0.0, 2, 0),
]


@pytest.mark.parametrize(
    ("value", "top", "rows", "want"), [c[1:] for c in LEVELS], ids=[c[0] for c in LEVELS]
)
def test_level(value: float, top: float, rows: int, want: int) -> None:
    assert level(value, top, rows) == want


BARS = [
    ("one-row", [0, 0.5, 1, None], 1, ["▁▄█·"]),
    ("two-rows", [0, 0.5, 0.75, 1, None], 2, ["  ▄█ ", "▁███·"]),
    ("sliver-is-not-the-baseline", [0, 0.01], 1, ["▁▂"]),
]


@pytest.mark.parametrize(
    ("values", "rows", "want"), [c[1:] for c in BARS], ids=[c[0] for c in BARS]
)
def test_bar_rows(values: list[Any], rows: int, want: list[str]) -> None:
    assert bar_rows(values, 1.0, rows) == want


FORMATS = [
    ("pct-none", pct(None), "?"),
    ("pct-zero", pct(0.0), "0%"),
    ("pct-sliver", pct(0.001), "<1%"),
    ("pct-round", pct(0.4924), "49%"),
    ("when-full", when("2026-11-02T09:07:00.120Z"), "2026-11-02 09:07:00"),
    ("when-same-day", when("2026-11-02T09:07:00Z", "2026-11-02T08:00:00Z"), "09:07:00"),
    ("when-other-day", when("2026-11-03T00:01:00Z", "2026-11-02T08:00:00Z"), "2026-11-03 00:01:00"),
    ("when-junk-neutralised", when("\x1b]0;pwned\x07 yesterday"), "␛]0;pwned␇ yesterday"),
    ("when-none", when(None), "?"),
    ("drift-rising", drift_words(0.05, 0.40)[0], "▲ rising"),
    ("drift-falling", drift_words(0.40, 0.05)[0], "▼ falling"),
    ("drift-steady", drift_words(0.20, 0.25)[0], "≈ steady"),
    ("drift-unknown", drift_words(None, 0.25)[0], ""),
]


@pytest.mark.parametrize(("got", "want"), [c[1:] for c in FORMATS], ids=[c[0] for c in FORMATS])
def test_formats(got: str, want: str) -> None:
    assert got == want


def test_headline_of_the_creep_run(tmp_path: Path) -> None:
    from tracetui.analysis.trends import trend_summary
    from tracetui.store.build import build_index
    from tracetui.store.runset import open_paths

    index = build_index(open_paths([str(creep_run(tmp_path / "creep"))])[0])
    assert headline(trend_summary(index)) == Headline(
        spans=8,
        failed=3,
        truncated=4,
        hidden_bytes=6500,
        produced_bytes=13200,
        hidden_share=6500 / 13200,
        early_share=0.0,
        late_share=5000 / 7000,
        exact=True,
    )


def test_show_stats_before_the_index_is_ready() -> None:
    told = []

    class App:
        def notify(self, message: str, **_kw: Any) -> None:
            told.append(message)

        def push_screen(self, _screen: Any) -> None:
            raise AssertionError("no screen without an index")

    show_stats(App(), None)
    assert told == ["the run is still being indexed"]


# ------------------------------------------------------------------------------- the screen
def _plain(widget: Any) -> str:
    return str(widget.render().plain)


@pytest.mark.parametrize("close", ["escape", "q", "s"], ids=["esc", "q", "s-again"])
async def test_s_shows_the_run_figures_and_closes(close: str, tmp_path: Path) -> None:
    app = make_app(str(creep_run(tmp_path / "creep")))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        assert _plain(screen.query_one("#stats-title")) == (
            "trends · creep/feedback_record.jsonl · 8 buckets × 1 span, in order"
        )
        assert _plain(screen.query_one("#stats-headline")) == (
            "8 spans · 3 failed · 4 truncated · 6,500 B hidden of 13,200 B (49%)\n"
            "hidden share: first quarter 0% → last quarter 71%  ▲ rising"
        )
        charts = {c.id: c for c in screen.query(TrendChart)}
        got = {
            cid: (c.values, c.top, c.top_label, c.left_label, c.right_label)
            for cid, c in charts.items()
        }
        assert got == {
            "chart-hidden": (
                [0.0, 0.0, 0.0, 0.0, 0.3333, 0.5, 0.6667, 0.75],
                1.0,
                "100%",
                "2026-11-02 09:00:00",
                "09:07:00",
            ),
            "chart-failed": ([0, 0, 1, 0, 0, 1, 0, 1], 1, "1", "2026-11-02 09:00:00", "09:07:00"),
            "chart-size": (
                [500, 800, 400, 1000, 1500, 2000, 3000, 4000],
                4000,
                "3.9K",
                "2026-11-02 09:00:00",
                "09:07:00",
            ),
        }
        subtitles = [
            screen.query_one(f"#stats-{n}").border_subtitle for n in ("hidden", "failed", "size")
        ]
        assert subtitles == [
            "min 0% · max 75%",
            "per bucket: min 0 · max 1 · 3 in all",
            "min 400 · max 3.9K",
        ]
        selected = app.selected_row
        await pilot.press("j")  # the viewer's keys do not reach the list under the modal
        await pilot.press(close)
        await pilot.pause()
        assert not isinstance(app.screen, StatsScreen)
        assert app.selected_row == selected


async def test_a_run_without_spans(tmp_path: Path) -> None:
    root = tmp_path / "bad"
    root.mkdir()
    (root / "feedback_record.jsonl").write_text("{not json\n")
    app = make_app(str(root))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StatsScreen)
        assert _plain(screen.query_one("#stats-headline")) == "no spans in this run"
        assert [c.empty_text for c in screen.query(TrendChart)] == ["no spans in this run"] * 3


async def test_stats_is_in_the_palette() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        names = {b.action: b for b in app.palette_bindings()}
    assert (names["stats"].id, names["stats"].key) == ("view.stats", "s")
    assert names["stats"].tooltip
