"""The viewer's footer: Textual's, but it never cuts a key in half.

Textual's footer crops whatever does not fit, so at 80 columns the last key read ``? H``. This
one leaves out whole keys from the end instead, keeping Help (it lists the ones left out) and the
palette key; it lays itself out again when its width changes.

``n`` walks the matches of the active search; with none it jumps to the next failure, which
``e`` says already. So its key is shown only while a search is active ("n Next match" with no
search said something untrue); the search calls ``refresh_bindings`` when it starts and ends.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.cells import cell_len
from textual import events
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

KEPT = "help"
"""The action whose key stays whatever the width: it shows every other key."""
PALETTE_WIDTH = 14
"""Columns the command palette's key takes at the right edge (its border and padding too)."""
SEARCH_ONLY = frozenset({"next_match"})
"""Actions whose key is shown only while a search is active (their label names the search)."""


def search_active(app: object) -> bool:
    """Whether the viewer (``app.search``, ui/find.py) has an active search; False without one."""
    return bool(getattr(getattr(app, "search", None), "active", False))


def key_width(key: FooterKey) -> int:
    """Columns one key takes: the key and description, each with a space of padding."""
    return cell_len(key.key_display) + 2 + cell_len(key.description) + 1


def fitting(keys: list[FooterKey], room: int) -> set[int]:
    """Positions in ``keys`` that fit in ``room`` columns: the kept key first, then in order."""
    chosen: set[int] = set()
    used = 0
    order = sorted(range(len(keys)), key=lambda i: keys[i].action != KEPT)
    for i in order:
        width = key_width(keys[i])
        if used + width <= room:
            chosen.add(i)
            used += width
    return chosen


class ViewerFooter(Footer):
    """A footer that drops whole keys, never parts of one, when the terminal is narrow."""

    def __init__(self) -> None:
        super().__init__()
        self._laid_out_for = 0

    def compose(self) -> Iterator[Widget]:
        widgets = list(super().compose())
        if not search_active(self.app):
            widgets = [
                w for w in widgets if not (isinstance(w, FooterKey) and w.action in SEARCH_ONLY)
            ]
        width = self.size.width or self.app.size.width
        self._laid_out_for = width
        keys = [
            w for w in widgets if isinstance(w, FooterKey) and not w.has_class("-command-palette")
        ]
        room = width - (PALETTE_WIDTH if len(keys) < len(widgets) else 0)
        keep = fitting(keys, room)
        dropped = {id(k) for i, k in enumerate(keys) if i not in keep}
        yield from (w for w in widgets if id(w) not in dropped)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._laid_out_for and self._bindings_ready:
            self.call_after_refresh(self.recompose)
