"""The viewer's footer: Textual's, but it never cuts a key in half.

Textual's footer crops whatever does not fit, so at 80 columns the last key read ``? H``. This
one leaves out whole keys from the end instead, keeping Help (it lists the ones left out) and the
palette key; it lays itself out again when its width changes.

It also lays itself out only when what it shows would change. Textual's footer recomposes (26
keys mounted and styled afresh) once for every time the bindings may have changed: a focus
move, a screen pushed, a search started. Opening a big run asked that five times in a second,
all on the UI thread while the run was being indexed beside it. Requests are merged into one,
made after the next refresh, and skipped when the keys, their state and the width are the same.

``n`` walks the matches of the active search; with none it jumps to the next failure, which
``e`` says already. So its key is shown only while a search is active ("n Next match" with no
search said something untrue); the search calls ``refresh_bindings`` when it starts and ends.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.cells import cell_len
from textual import events
from textual.screen import Screen
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
        self._shown: tuple[object, ...] | None = None
        """What the keys were composed from (:meth:`_shape`), None before the first time."""
        self._pending = False

    def _shape(self) -> tuple[object, ...]:
        """Everything the composed keys depend on: the bindings shown, their state, the width."""
        if not self._bindings_ready:
            return ()
        app = self.app
        keys = tuple(
            (b.key, app.get_key_display(b), b.action, b.description, b.show, b.group, on, tip)
            for (_node, b, on, tip) in self.screen.active_bindings.values()
        )
        width = self.size.width or app.size.width
        return (keys, width, search_active(app), self.show_command_palette, self.compact)

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._lay_out_later()

    def _lay_out_later(self) -> None:
        if not self._pending:
            self._pending = True
            self.call_after_refresh(self._lay_out)

    async def _lay_out(self) -> None:
        self._pending = False  # a change from here on asks again
        if self.is_attached and self._shape() != self._shown:
            await self.recompose()

    def compose(self) -> Iterator[Widget]:
        self._shown = self._shape()
        widgets = list(super().compose())
        if not search_active(self.app):
            widgets = [
                w for w in widgets if not (isinstance(w, FooterKey) and w.action in SEARCH_ONLY)
            ]
        width = self.size.width or self.app.size.width
        keys = [
            w for w in widgets if isinstance(w, FooterKey) and not w.has_class("-command-palette")
        ]
        room = width - (PALETTE_WIDTH if len(keys) < len(widgets) else 0)
        keep = fitting(keys, room)
        dropped = {id(k) for i, k in enumerate(keys) if i not in keep}
        yield from (w for w in widgets if id(w) not in dropped)

    def on_resize(self, _event: events.Resize) -> None:
        if self._bindings_ready:  # laid out again only if the width changed (its shape)
            self._lay_out_later()
