"""The detail's compact header: what the agent never saw, pinned above the scrolling facts.

At 80×24 the detail pane gets four or five rows, and a span's verdict ("16,014 bytes (66%) never
shown") and its clip banner came after the argv, cwd, times, ids and hashes: reading them took Tab
and scrolling. On narrow terminals (the app's ``-narrow`` class) this strip, docked at the top of
the detail pane, repeats the verdict of every cut stream and the first clip banner; on wide
terminals the strip is pinned only when the stream's own verdict line would be out of sight as
the pane opens (DetailPane._pin_summary: the ``-pinned`` class).
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from tracetui.analysis.rows import banner, never_shown
from tracetui.model.spans import Span
from tracetui.ui.widgets.redraw import show_text
from tracetui.ui.widgets.styles import style_or_plain


class DetailSummary(Static):
    """One line per cut stream (its verdict), then the first cut stream's clip banner."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "summary--label",
        "summary--banner",
        "summary--warn",
        "summary--dim",
    }

    def st(self, name: str) -> Style:
        return style_or_plain(self, f"summary--{name}")

    def show_span(self, span: Span | None) -> None:
        """Draw the strip for ``span``; hide it when nothing was cut (or there is no span)."""
        text = self.summary(span) if span is not None else Text()
        self.set_class(bool(text.plain), "-cut")  # shown on narrow terminals (tracetui.tcss)
        show_text(self, text)  # no layout while as tall (ui/widgets/redraw.py)

    def summary(self, span: Span) -> Text:
        st = self.st
        t = Text(no_wrap=True, overflow="ellipsis")
        cut = [s for s in span.streams if s.truncated is not False]
        for s in cut:
            style = st("warn") if s.truncated is None else st("banner")
            t.append(f"{s.name:<10}", st("label"))
            t.append(never_shown(s), style)
            t.append("\n")
        first = next((s for s in cut if s.truncated), None)
        if first is not None:
            t.append(f" ━━ {banner(first)} ━━ ", st("banner"))
            if first.clip:
                t.append(f"  clip {first.clip}", st("dim"))
        t.rstrip()
        return t
