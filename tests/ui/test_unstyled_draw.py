"""A pane asked to draw before its styles are applied (or after it was removed) draws plainly,
then in its colours once styled: never a KeyError.

Seen once in a whole suite run: the retry chains linked (a worker) and reached the chain pane
between its compose and the stylesheet's first pass, and the viewer died with "No
'chain--selected' key in COMPONENT_CLASSES" (tests/ui/test_view_foreign_live.py).
"""

from __future__ import annotations

from pathlib import Path

from records import encode_line, tool
from textual.app import App, ComposeResult

from tracetui.analysis.chains import ChainIndex
from tracetui.store.build import build_index
from tracetui.store.runset import open_path
from tracetui.ui.widgets.chain import ChainPane
from tracetui.ui.widgets.styles import component_style


def chained(tmp_path: Path) -> tuple[object, ChainIndex]:
    path = tmp_path / "B.jsonl"
    path.write_bytes(
        encode_line(tool("a", exit_code=1)) + encode_line(tool("b", parent_command_id="a"))
    )
    index = build_index(open_path(str(path))[0])
    return index, ChainIndex(index)


class PaneApp(App[None]):
    """Shows a chain in its pane before the pane is mounted (so before it is styled)."""

    CSS = "ChainBody > .chain--selected { text-style: bold; }"

    def __init__(self, index: object, chains: ChainIndex) -> None:
        super().__init__()
        self.index, self.chains = index, chains
        self.drawn_before = ""

    def compose(self) -> ComposeResult:
        pane = ChainPane(id="chain")
        assert component_style(pane.body, "chain--selected") is None
        pane.show(self.index, self.chains, 1)  # type: ignore[arg-type]  # raised KeyError
        self.drawn_before = pane.body.content.plain  # type: ignore[union-attr]
        yield pane


async def test_chain_drawn_before_styles_then_in_colour(tmp_path: Path) -> None:
    index, chains = chained(tmp_path)
    app = PaneApp(index, chains)
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert "b" in app.drawn_before  # drawn plainly
        pane = app.query_one(ChainPane)
        selected = component_style(pane.body, "chain--selected")
        assert selected is not None and selected
        text = pane.body.content
        marked = [s for s in text.spans if text.plain[s.start : s.end].startswith("▶")]  # type: ignore[union-attr]
        assert marked and marked[0].style == selected  # drawn again in the theme's colours
        await pane.remove()
        # Removed: its component styles are gone, and a late message still draws plainly.
        assert component_style(pane.body, "chain--selected") is None
        pane.show(index, chains, 0)  # type: ignore[arg-type]
