"""Small lies of issue 16 in the viewer: what a toast or a header says must be true.

`[` at the first attempt of a chain and `]` at its last say which end they hit (not "end of the
chain" at the root, which is its start).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from records import encode_line, tool
from viewer_helpers import settle

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp


def notes(app: TraceApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def three_attempts(tmp_path: Path) -> str:
    path = tmp_path / "B.jsonl"
    path.write_bytes(
        b"".join(
            encode_line(tool(f"s{i}", parent_command_id=f"s{i - 1}" if i else None, exit_code=1))
            for i in range(3)
        )
    )
    return str(path)


@pytest.mark.parametrize(
    ("row", "key", "said"),
    [
        pytest.param(0, "left_square_bracket", "first attempt of the chain", id="root-prev"),
        pytest.param(2, "right_square_bracket", "last attempt of the chain", id="last-next"),
    ],
)
async def test_chain_step_off_an_end_names_that_end(
    tmp_path: Path, row: int, key: str, said: str
) -> None:
    app = TraceApp(open_paths([three_attempts(tmp_path)]), follow=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.select_row(row)
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
        assert app.selected_row == row  # nothing to step to: the selection stays
        assert notes(app)[-1] == said
