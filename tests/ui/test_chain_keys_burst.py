"""``[`` and ``]`` pressed faster than the screen follows: each step starts from where the
cursor is now, not from the row the app last heard of (the list tells it by a message, which a
key already queued comes before)."""

from __future__ import annotations

import pytest
from viewer_helpers import make_app, send_keys, settle

PREV, NEXT = "left_square_bracket", "right_square_bracket"
CASES = [
    # (case, start row, keys sent at once, row the cursor ends on); the chain is 1, 2, 5, 6.
    ("next-twice", 1, [NEXT, NEXT], 5),
    ("next-three-times", 1, [NEXT] * 3, 6),
    ("prev-three-times", 6, [PREV] * 3, 1),
    ("next-then-prev", 2, [NEXT, PREV], 2),
    ("past-the-end-stays-at-the-end", 5, [NEXT] * 4, 6),
]


@pytest.mark.parametrize(
    ("start", "keys", "row"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
async def test_a_burst_of_chain_keys_takes_every_step(
    start: int, keys: list[str], row: int
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.select_row(start)
        await pilot.pause()
        assert app.selected_row == start
        await send_keys(pilot, *keys)
        await settle(pilot)
        assert app.selected_row == row
        assert app.spans.selected_row == row
