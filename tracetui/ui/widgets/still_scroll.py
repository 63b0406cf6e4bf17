"""A scrolling region whose Home and End jump, and which can bring one line of its text to the top.

Textual's Home/End glide for half a second; in a log viewer they are jumps (less, lnav). The
re-run pane's tabs use it to open on the first failure line of what the agent never saw.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.containers import VerticalScroll


class StillScroll(VerticalScroll):
    """A VerticalScroll whose Home/End do not animate."""

    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False)

    def scroll_to_line(self, plain: str, line: int) -> None:
        """Put line ``line`` of ``plain`` (the text drawn inside, wrapped to the width) on top."""
        width = max(1, self.scrollable_content_region.width)
        rows = sum(max(1, -(-cell_len(text) // width)) for text in plain.split("\n")[:line])
        self.scroll_to(y=rows, animate=False)
