"""The header: the run's facts at a glance, plus LIVE/PAUSED and indexing progress."""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from tracetui.model.text import neutralize_line
from tracetui.store.index import RunIndex


class RunHeader(Static):
    """Run name, files, spans, failed, truncated, hidden bytes, bad lines, state."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "header--name",
        "header--failed",
        "header--trunc",
        "header--bad",
        "header--state",
        "header--paused",
        "header--new",
        "header--dim",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.name_text = ""
        self.index: RunIndex | None = None
        self.state = ""
        """LIVE, PAUSED or empty; set by the follow feature."""
        self.progress = ""
        """``indexing 48 MB…`` while the run is being read."""
        self.filter_note = ""
        self.new_rows = 0
        """Rows that arrived below while the cursor was elsewhere (live follow): "N new"."""

    def st(self, name: str) -> Style:
        return self.get_component_rich_style(f"header--{name}", partial=True)

    def set_facts(
        self,
        *,
        name: str | None = None,
        index: RunIndex | None = None,
        state: str | None = None,
        progress: str | None = None,
        new: int | None = None,
    ) -> None:
        if name is not None:
            self.name_text = name
        if index is not None:
            self.index = index
        if state is not None:
            self.state = state
        if progress is not None:
            self.progress = progress
        if new is not None:
            self.new_rows = new
        self.refresh_facts()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted:
            self.refresh_facts()

    def refresh_facts(self) -> None:
        t = Text(no_wrap=False, overflow="fold")
        t.append(neutralize_line(self.name_text), self.st("name"))
        ix = self.index
        if ix is not None:
            s = ix.snapshot().stats  # totals that agree, while the follower appends
            # Only members still on disk: one rotated past the keep count is gone (readable "").
            files = sum(1 for m in ix.members if m.member.number >= 0 and m.readable)
            facts: list[tuple[str, str]] = [
                (f"{files} file{'s' if files != 1 else ''}", ""),
                (f"{s.spans:,} spans", ""),
                (f"{s.failed:,} failed", "failed" if s.failed else "dim"),
                (f"{s.truncated:,} truncated", "trunc" if s.truncated else "dim"),
                (f"{s.hidden_bytes:,} B hidden", "trunc" if s.hidden_bytes else "dim"),
                (
                    f"{s.bad_lines:,} bad line{'s' if s.bad_lines != 1 else ''}",
                    "bad" if s.bad_lines else "dim",
                ),
            ]
            if ix.run.source_format is not None:
                facts.insert(0, (f"{ix.run.source_format} trace", "name"))
            for text, style in facts:
                t.append(" · ", self.st("dim"))
                t.append(text, self.st(style) if style else Style())
        if self.progress:
            t.append(f"  {self.progress}", self.st("dim"))
        if self.state:
            t.append("  ")
            t.append(f" {self.state} ", self.st("paused" if self.state == "PAUSED" else "state"))
        if self.new_rows:
            t.append("  ")
            t.append(f" {self.new_rows:,} new ↓ G ", self.st("new"))
        self.update(t)
