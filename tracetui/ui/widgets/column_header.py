"""The title line above the span list: the same columns :mod:`tracetui.analysis.rows` fills."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from tracetui.analysis.rows import COLUMNS
from tracetui.ui.widgets.span_list import RIGHT_ALIGNED


def header_text() -> Text:
    parts = []
    for i, (title, w) in enumerate(COLUMNS):
        parts.append(title.rjust(w) if i in RIGHT_ALIGNED else title.ljust(w))
    return Text(" ".join(parts) + " ARGV", no_wrap=True, overflow="ellipsis")


class ColumnHeader(Static):
    """One line of column titles."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(header_text(), id=id)
