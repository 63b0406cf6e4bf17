"""A widget's component styles, safe to ask for at any moment of its life.

Textual fills a widget's component styles when the stylesheet is applied to it, after it is
composed, and empties them when it is removed. A worker's message can arrive in between: the
retry chains linked while the screen is still being put together, a re-run's output after its
pane was closed. Asking then raised ``KeyError`` (a traceback in the viewer, seen once in a
whole test-suite run). :func:`component_style` answers None instead: the widget draws its text
plainly, and the style update that follows (``notify_style_update``, which the panes answer by
drawing again) gives it its colours. Callers that keep styles must not keep a None.
"""

from __future__ import annotations

from rich.style import Style
from textual.widget import Widget

_UNSET = Style()


def component_style(widget: Widget, name: str) -> Style | None:
    """``widget``'s partial style for component class ``name``; None before its styles are
    applied (or after it was removed)."""
    style = widget.get_component_rich_style(name, partial=True, default=_UNSET)
    return None if style is _UNSET else style


def style_or_plain(widget: Widget, name: str) -> Style:
    """:func:`component_style`, with no style at all while there is none."""
    return component_style(widget, name) or Style()
