"""The command palette: every action of the viewer by name, through one Provider."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider


class TraceCommands(Provider):
    """Offers the app's own bindings (those with a description) as palette commands."""

    def _commands(self) -> list[tuple[str, str, str]]:
        app = self.app
        out = []
        for b in getattr(app, "palette_bindings", lambda: [])():
            out.append((b.description, b.tooltip, b.action))
        return out

    async def discover(self) -> Hits:
        for name, help_text, action in self._commands():
            yield DiscoveryHit(name, partial(self.app.run_action, action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, action in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(name),
                    partial(self.app.run_action, action),
                    help=help_text,
                )
