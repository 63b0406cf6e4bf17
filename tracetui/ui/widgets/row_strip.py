"""One line of the span list, drawn from its cells: the reference way through a Rich ``Text``,
and a direct way for the usual line whose every character is one column wide.

Following a run at 2,000 spans a second draws every visible line anew at each frame (the
rows are new), and building a ``Text`` (append, truncate, stylize, render) was most of a line's
cost. :func:`narrow_strip` lays out the same characters with the same styles as
:func:`text_strip` without it, for lines where counting characters is counting columns; any
other line (a wide or zero-width character, a highlighted match) is drawn by
:func:`text_strip`. tests/unit/test_row_strip.py compares the two, character by character.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from tracetui.analysis.rows import COLUMNS, Cell
from tracetui.analysis.search import match_spans

RIGHT_ALIGNED = frozenset({2, 3, 4, 5})
"""Columns of numbers (exit, duration, out, err) line up on the right."""
BADGE = " LATEST FAILURE "
_NARROW_MARKS = frozenset(ch for ch in "✂…↻⚠⚑—·" if cell_len(ch) == 1)
"""The non-ASCII characters the list's cells use that Rich counts one column wide."""

StyleOf = Callable[[str], Style]
"""A style by name: ``""`` the empty style, ``"base"`` the list's own, else a component's."""


def text_strip(
    cells: Sequence[Cell],
    width: int,
    cursor: bool,
    badge: bool,
    highlight: str,
    style: StyleOf,
    console: Console,
) -> Strip:
    """The line as a Rich ``Text`` draws it: cells padded to their columns, ARGV cut with ``…``
    at ``width``, the cursor's style under the cells' (their colours and the badge stay)."""
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    for i, ((_title, w), cell) in enumerate(zip(COLUMNS, cells[:-1], strict=True)):
        body = cell.text[:w]
        body = body.rjust(w) if i in RIGHT_ALIGNED else body.ljust(w)
        text.append(body, style(cell.style))
        text.append(" ")
    if badge:
        text.append(BADGE, style("badge"))
        text.append(" ")
    argv = cells[-1]  # the last cell, ARGV, takes the rest of the width
    start = len(text)
    text.append(argv.text, style(argv.style))
    for a, b in match_spans(argv.text, highlight):
        text.stylize(style("match"), start + a, start + b)
    text.truncate(width, overflow="ellipsis", pad=True)
    if cursor:
        text.stylize_before(style("cursor"))
    segments = list(text.render(console, end=""))
    return Strip(Segment.apply_style(segments, style("base")), width).crop(0, width)


def is_narrow(text: str) -> bool:
    """Whether every character of ``text`` is printable and one column wide."""
    if text.isascii():
        return text.isprintable()
    return text.isprintable() and all(ch.isascii() or ch in _NARROW_MARKS for ch in text)


def narrow_strip(
    cells: Sequence[Cell],
    width: int,
    cursor: bool,
    badge: bool,
    style: StyleOf,
    combined: Callable[[bool, str], Style],
) -> Strip | None:
    """The same line as :func:`text_strip` (no highlight) without a ``Text``; None when a cell
    has a character that is not one column wide. ``combined(cursor, name)`` is the style a
    character of that style ends with (see :func:`final_style`)."""
    if width <= 0 or not all(is_narrow(cell.text) for cell in cells):
        return None
    parts: list[tuple[str, str]] = []
    for i, ((_title, w), cell) in enumerate(zip(COLUMNS, cells[:-1], strict=True)):
        body = cell.text[:w]
        parts.append((body.rjust(w) if i in RIGHT_ALIGNED else body.ljust(w), cell.style))
        parts.append((" ", ""))
    if badge:
        parts.append((BADGE, "badge"))
        parts.append((" ", ""))
    parts.append((cells[-1].text, cells[-1].style))
    total = sum(len(body) for body, _name in parts)
    if total > width:
        # Text.truncate keeps width - 1 characters and ends with "…", which takes the style of
        # the character it replaces (the span that covered it is trimmed, not dropped).
        kept: list[tuple[str, str]] = []
        used = 0
        for body, name in parts:
            if used + len(body) >= width:  # column width - 1 is in this part
                kept.append((body[: width - 1 - used] + "…", name))
                break
            kept.append((body, name))
            used += len(body)
        parts = kept
    elif total < width:
        parts.append((" " * (width - total), ""))  # padding: under the cursor's style only
    segments = [Segment(body, combined(cursor, name)) for body, name in parts if body]
    return Strip(segments, width)


def final_style(style: StyleOf, cursor: bool, name: str) -> Style:
    """The style a character drawn in style ``name`` ends with in :func:`text_strip`: the
    line's base, then the cursor's (when on it), then the cell's, as Rich combines them."""
    stack = [Style()]  # the Text's own style: none
    if cursor:
        stack.append(style("cursor"))
    if name and style(name):
        stack.append(style(name))  # a null style makes no span in a Text
    return style("base") + Style.combine(stack)
