"""The span list's direct line drawing gives the very line a Rich Text draws (ui/widgets/row_strip.py).

Compared character by character (text and whole style of each column), on hand-picked lines
(every width where the cut lands on a boundary, the badge, the cursor, empty and null-styled
cells, the marks) and on random ones; a line the direct way cannot draw says so (None).
"""

from __future__ import annotations

import random

import pytest
from rich.console import Console
from rich.style import Style
from textual.strip import Strip

from tracetui.analysis.rows import Cell
from tracetui.ui.widgets.row_strip import final_style, is_narrow, narrow_strip, text_strip

STYLES = {
    "": Style(),
    "base": Style(color="#e0e0e0", bgcolor="#101010"),
    "cursor": Style(bgcolor="#203050", bold=True),
    "failed": Style(color="#ff5050"),
    "ok": Style(color="#50ff50"),
    "dim": Style(color="#808080", dim=True),
    "trunc": Style(color="#ffb000"),
    "null": Style(),  # a component style that resolves to nothing: no span in a Text
    "bad": Style(color="#ff0000", italic=True),
    "badge": Style(color="#ffffff", bgcolor="#c00000", bold=True),
    "new": Style(bold=True, underline=True),
    "match": Style(reverse=True, bold=True),
}
CONSOLE = Console(width=200, color_system="truecolor")


def style(name: str) -> Style:
    return STYLES[name]


def columns(strip: Strip) -> list[tuple[str, Style | None]]:
    """Each column's character and its whole style."""
    return [(ch, seg.style) for seg in strip for ch in seg.text]


def row(argv: str, *, exit_text: str = "0", exit_style: str = "ok", mark: str = "") -> list[Cell]:
    return [
        Cell("09:21:36", "dim"),
        Cell("d0000001", "dim"),
        Cell(exit_text, exit_style),
        Cell("12ms", "dim"),
        Cell("10 B", ""),
        Cell("", ""),
        Cell(mark, "trunc" if mark else ""),
        Cell(argv, "failed" if exit_style == "failed" else ""),
    ]


def both(cells: list[Cell], width: int, cursor: bool, badge: bool) -> tuple[object, object]:
    def combined(on: bool, name: str) -> Style:
        return final_style(style, on, name)

    fast = narrow_strip(cells, width, cursor, badge, style, combined)
    slow = text_strip(cells, width, cursor, badge, "", style, CONSOLE)
    return (None if fast is None else columns(fast)), columns(slow)


ARGV = "pytest -q tests/test_money.py"
FIXED = 8 + 8 + 4 + 5 + 9 + 9 + 1 + 7  # the fixed columns and their separators
CASES = [
    ("short", row("ls"), 100, False, False),
    ("short-cursor", row("ls"), 100, True, False),
    ("badge", row(ARGV, exit_text="1", exit_style="failed"), 100, False, True),
    ("badge-cursor", row(ARGV, exit_text="1", exit_style="failed"), 100, True, True),
    ("fits-exactly", row(ARGV), FIXED + len(ARGV), False, False),
    ("over-by-one", row(ARGV), FIXED + len(ARGV) - 1, True, False),
    ("cut-in-argv", row(ARGV), FIXED + 5, True, False),
    ("cut-at-argv-start", row(ARGV), FIXED + 1, False, False),
    ("cut-on-separator", row(ARGV), FIXED, True, False),
    ("cut-in-badge", row(ARGV, exit_style="failed"), FIXED + 4, True, True),
    ("cut-in-time", row(ARGV), 5, True, False),
    ("one-column", row(ARGV), 1, True, False),
    ("two-columns", row(ARGV), 2, False, False),
    ("mark", row(ARGV, mark="✂"), 90, True, False),
    ("null-style", row(ARGV, exit_text="ERR", exit_style="null"), 90, True, False),
    ("empty-argv", row(""), 80, True, False),
    ("ellipsis-id", [Cell("", ""), Cell("d000000…", "dim"), *row("x")[2:]], 60, False, False),
    ("new-id", [Cell("", ""), Cell("d0000001", "new"), *row("x")[2:]], 60, True, False),
]


@pytest.mark.parametrize(
    ("cells", "width", "cursor", "badge"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_direct_line_is_the_text_line(
    cells: list[Cell], width: int, cursor: bool, badge: bool
) -> None:
    fast, slow = both(cells, width, cursor, badge)
    assert fast is not None
    assert fast == slow
    assert len(slow) == width  # type: ignore[arg-type]


WIDE = [
    ("wide", "echo 日本"),
    ("zero-width", "a\u0301b"),
    ("emoji", "echo 🎉"),
    ("tab", "a\tb"),
]


@pytest.mark.parametrize("argv", [w[1] for w in WIDE], ids=[w[0] for w in WIDE])
def test_a_line_not_one_column_a_character_is_left_to_the_text_way(argv: str) -> None:
    assert not is_narrow(argv)
    fast, _slow = both(row(argv), 100, True, False)
    assert fast is None


def test_random_lines_draw_the_same() -> None:
    rng = random.Random(18)
    alphabet = "abc XYZ019-_/.…✂⚑"
    names = [n for n in STYLES if n not in ("base", "cursor", "match")]
    compared = 0
    for _ in range(2000):
        cells = [
            Cell(
                "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12))),
                rng.choice(names),
            )
            for _ in range(8)
        ]
        width = rng.randrange(1, 140)
        fast, slow = both(cells, width, rng.random() < 0.5, rng.random() < 0.3)
        if fast is not None:
            compared += 1
            assert fast == slow, (cells, width)
    assert compared > 1500  # the alphabet is narrow: nearly every line takes the direct way
