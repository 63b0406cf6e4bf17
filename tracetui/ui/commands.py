"""The command palette: every action of the viewer by name, with its key, through one Provider."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from tracetui.ui.keys import keys_label


class TraceCommands(Provider):
    """Offers the app's own bindings (those with a description) as palette commands."""

    def _commands(self) -> list[tuple[str, str, str, str]]:
        """(name, keys as the user has them, help, action) of every palette command."""
        app = self.app
        keymap: dict[str, str] = getattr(app, "keymap", {})
        out = []
        for b in getattr(app, "palette_bindings", lambda: [])():
            keys = keys_label(keymap.get(b.id or "", b.key))
            out.append((b.description, keys, b.tooltip, b.action))
        return out

    async def discover(self) -> Hits:
        for name, keys, help_text, action in self._commands():
            yield DiscoveryHit(
                Content(f"{name}  ({keys})"),
                partial(self.app.run_action, action),
                text=name,
                help=help_text,
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, keys, help_text, action in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(name) + f"  ({keys})",
                    partial(self.app.run_action, action),
                    text=name,
                    help=help_text,
                )
