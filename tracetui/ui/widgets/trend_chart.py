"""A small bar chart of one trend series, sized to its widget: y labels, bars, x labels.

Textual's ``Sparkline`` scales every series between its own min and max, which would draw a run
that hid 60% of every response as flat full bars and 1% → 2% as a cliff. This chart draws from
zero to a ``top`` the caller picks (100% for a share, the series maximum for counts), several
rows tall, in eighth-of-a-cell steps, so a rise reads as a rise.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content
from textual.widget import Widget

BLOCKS = " ▁▂▃▄▅▆▇█"
AXIS = "$tt-faint"
FAINT = "$text-muted 50%"


def to_columns(values: Sequence[float | None], width: int) -> list[float | None]:
    """``values`` stretched or squeezed to ``width`` columns.

    Stretching repeats each value over its share of the columns; squeezing keeps the largest
    value of the ones sharing a column, so one bad bucket is never averaged away.
    """
    n = len(values)
    if not n or width <= 0:
        return []
    out: list[float | None] = []
    if width >= n:
        for i, v in enumerate(values):
            out.extend([v] * ((i + 1) * width // n - i * width // n))
        return out
    for c in range(width):
        known = [v for v in values[c * n // width : (c + 1) * n // width] if v is not None]
        out.append(max(known) if known else None)
    return out


def level(value: float, top: float, rows: int) -> int:
    """Height of a bar in eighths of a cell. Any value above zero gets at least two eighths,
    so it never looks like the one-eighth baseline drawn for zero."""
    if value <= 0 or top <= 0:
        return 0
    return max(2, round(min(1.0, value / top) * rows * 8))


def bar_rows(columns: Sequence[float | None], top: float, rows: int) -> list[str]:
    """The bars as ``rows`` strings, top row first: ``█▆`` for values, ``▁`` for zero, ``·``
    under an unknown value."""
    levels = [None if v is None else level(v, top, rows) for v in columns]
    out = []
    for r in range(rows):
        base = (rows - 1 - r) * 8
        cells = []
        for lv in levels:
            if lv is None:
                cells.append("·" if base == 0 else " ")
            elif lv == 0:
                cells.append("▁" if base == 0 else " ")
            else:
                cells.append(BLOCKS[max(0, min(8, lv - base))])
        out.append("".join(cells))
    return out


class TrendChart(Widget):
    """One series over the buckets of a run. Bars take the widget's ``color``."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.values: list[float | None] = []
        self.top = 1.0
        self.top_label = ""
        self.bottom_label = "0"
        self.left_label = ""
        self.right_label = ""
        self.empty_text = ""
        """Shown instead of bars when there is nothing to draw (still computing, no spans)."""
        self.label_columns = 0
        """Columns left of the bars, at least: charts given the same one share their x-axis."""

    def set_series(
        self,
        values: Sequence[float | None],
        *,
        top: float,
        top_label: str,
        bottom_label: str = "0",
        left_label: str = "",
        right_label: str = "",
        empty_text: str = "no data",
        gutter: int = 0,
    ) -> None:
        self.values = list(values)
        self.label_columns = gutter
        self.top = top
        self.top_label, self.bottom_label = top_label, bottom_label
        self.left_label, self.right_label = left_label, right_label
        self.empty_text = empty_text
        self.refresh()

    def show_text(self, text: str) -> None:
        self.values = []
        self.empty_text = text
        self.refresh()

    def render(self) -> Content:
        width, height = self.size.width, self.size.height
        if not self.values or all(v is None for v in self.values):
            return Content.assemble((self.empty_text, AXIS))
        gutter = max(len(self.top_label) + 1, len(self.bottom_label) + 1, self.label_columns)
        plot = max(1, width - gutter)
        rows = max(1, height - 1) if height >= 3 else max(1, height)
        columns = to_columns(self.values, plot)
        lines = bar_rows(columns, self.top, rows)
        parts: list[str | tuple[str, str]] = []
        for r, line in enumerate(lines):
            label = self.top_label if r == 0 else self.bottom_label if r == rows - 1 else ""
            parts.append((label.rjust(gutter - 1) + ("┤" if label else "│"), AXIS))
            parts.extend(_cells(line, bottom=r == rows - 1))
            parts.append("\n")
        if height >= 3:
            parts.append(
                (" " * gutter + _axis_labels(self.left_label, self.right_label, plot), AXIS)
            )
        return Content.assemble(*parts)


def _cells(line: str, *, bottom: bool) -> list[str | tuple[str, str]]:
    """Runs of bar cells. On the bottom row ``▁`` can only be the zero baseline (a value above
    zero is at least ``▂``): it and the unknown marker are drawn faint."""
    out: list[str | tuple[str, str]] = []
    run, faint = "", False
    for ch in line:
        is_faint = bottom and ch in "▁·"
        if run and is_faint != faint:
            out.append((run, FAINT) if faint else run)
            run = ""
        run += ch
        faint = is_faint
    if run:
        out.append((run, FAINT) if faint else run)
    return out


def _axis_labels(left: str, right: str, width: int) -> str:
    """``left`` at the start of the plot and ``right`` at its end; ``right`` dropped when both
    do not fit."""
    if len(left) + 1 + len(right) > width:
        return left[:width]
    return left + right.rjust(width - len(left))
