"""Redraw a pane's text without laying out the whole screen when its height stays the same.

A ``Static`` asks for a layout on every ``update``: Textual cannot know the new text is as tall
as the old. A layout of the viewer's screen costs about 20 ms, and following a busy run
redraws the detail and chain panes ten times a second for the newest row, whose text is
almost always as tall as the last one's: those layouts were most of a live frame's cost
(docs/performance.md, "Live at 2,000 spans/s").

:func:`show_text` measures the new text's height the way the layout would (the widget's own
``get_content_height`` at its current width) and asks for a layout only when it differs, or
when the widget has no width yet. The width cannot change without a layout: it comes from the
pane, and a scrollbar appearing or going follows only from a height that changed. A hidden
widget (the detail's compact header on a wide terminal) is updated without a layout: showing
it changes its ``display``, and that lays the screen out.
"""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


def show_text(widget: Static, text: Text) -> None:
    """Show ``text`` in ``widget``: nothing when it is what is shown, no layout when as tall."""
    if widget.is_mounted and _same(widget.content, text):
        return  # the same characters in the same styles: nothing to redraw
    size = widget.size
    widget.update(text, layout=False)
    if widget.is_mounted and not widget.display:
        return  # hidden: its height counts for nothing until shown, and showing it lays out
    if not widget.is_mounted or size.width <= 0:
        widget.refresh(layout=True)  # never laid out: its height is not known yet
        return
    if widget.get_content_height(size, size, size.width) != size.height:
        widget.refresh(layout=True)


def _same(shown: object, text: Text) -> bool:
    """Whether ``shown`` draws exactly as ``text``: characters, spans and every drawing setting
    (a Text's ``==`` compares only the characters and spans)."""
    return (
        isinstance(shown, Text)
        and shown == text
        and shown.style == text.style
        and shown.justify == text.justify
        and shown.overflow == text.overflow
        and shown.no_wrap == text.no_wrap
        and shown.end == text.end
        and shown.tab_size == text.tab_size
    )
