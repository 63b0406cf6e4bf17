"""The chain pane on a chain of thousands of attempts (issue 13): a window around the selection.

The pane draws WINDOW attempts either side of the selected one, says how many it leaves out,
indents at most DEEPEST levels, keeps the selected line in view, and `[` / `]` still step along
the whole chain. Work is counted in nodes drawn, not timed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool
from viewer_helpers import settle

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.chain import DEEPEST, WINDOW, ChainPane


def chain_run(tmp_path: Path, n: int) -> str:
    """One run of ``n`` failed attempts, each a retry of the one before."""
    path = tmp_path / "B.jsonl"
    path.write_bytes(
        b"".join(
            encode_line(tool(f"s{i}", parent_command_id=f"s{i - 1}" if i else None, exit_code=1))
            for i in range(n)
        )
    )
    return str(path)


def drawn(pane: ChainPane) -> list[str]:
    return pane.body.render().plain.splitlines()  # type: ignore[union-attr]


def in_view(pane: ChainPane) -> bool:
    top = int(pane.scroll_y)
    return top <= pane.selected_line < top + pane.scrollable_content_region.height


@pytest.mark.parametrize("n", [pytest.param(1000, id="1k"), pytest.param(4000, id="4k")])
async def test_a_long_chain_draws_a_window_around_the_selected_attempt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int
) -> None:
    nodes = [0]
    real = ChainPane._node

    def counted(self: ChainPane, *args: Any) -> None:
        nodes[0] += 1
        real(self, *args)

    monkeypatch.setattr(ChainPane, "_node", counted)
    app = TraceApp(open_paths([chain_run(tmp_path, n)]), follow=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        pane = app.query_one(ChainPane)
        # Opened on the latest failure, the last attempt: the window ends with it.
        assert app.selected_row == n - 1
        lines = drawn(pane)
        assert lines[0] == f"… {n - WINDOW - 1:,} earlier attempts"
        assert len(lines) == 1 + WINDOW + 1
        deepest = "┆  " + "   " * (DEEPEST - 1) + "└─ "
        assert lines[-1].startswith(f"▶ {deepest}#{n} exit 1")
        assert pane.border_subtitle == f"{n:,} attempts" and len(pane.order) == n
        assert in_view(pane)

        middle = n // 2
        nodes[0] = 0
        app.select_row(middle)
        await pilot.pause()
        assert nodes[0] == 2 * WINDOW + 1  # one window drawn, whatever the chain's length
        lines = drawn(pane)
        assert lines[0] == f"… {middle - WINDOW:,} earlier attempts"
        assert lines[-1] == f"… {n - middle - WINDOW - 1:,} later attempts"
        assert len(lines) == 2 * WINDOW + 3
        assert lines[1 + WINDOW].startswith(f"▶ {deepest}#{middle + 1} exit 1")
        await pilot.pause()
        assert in_view(pane)

        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert app.selected_row == middle + 1
        await pilot.press("left_square_bracket", "left_square_bracket")
        await pilot.pause()
        assert app.selected_row == middle - 1
        assert in_view(pane)
