"""Following a growing run while keys are pressed: every row once, in order, and panes that end up
drawn exactly as a frozen view of the same run draws them.

While the cursor follows new rows, the detail and chain panes are redrawn without a screen
layout when their text is as tall as before (ui/widgets/redraw.py) and the list draws the rows
as the follower parsed them (ui/recent_rows.py). A writer thread appends failures, retries of
them, cut outputs and bad lines, rotating the base, while the test moves the cursor around;
at the end the cursor goes back to the newest row and the live view must show the list's rows,
the detail and the chain as a view opened afresh on the finished run shows them.
"""

from __future__ import annotations

import itertools
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from records import tool
from test_live import BASE, ROWS, start, until
from textual import events
from viewer_helpers import FLAKY, settle

from tracetui.record.rotate import append_record
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.chain import ChainPane
from tracetui.ui.widgets.detail import DetailPane

ADDED = 300


def record(n: int) -> dict[str, Any]:
    """Row ``n`` of the writer: every 7th fails, the one after retries it, every 5th is cut."""
    cid = f"grow-{n:04d}"
    fields: dict[str, Any] = {"argv": ["step", str(n)]}
    if n % 7 == 0:
        fields.update(exit_code=1, ok_preview=False, argv=["pytest", "-q", f"t{n}"])
    if n % 7 == 1 and n > 1:
        fields["parent_command_id"] = f"grow-{n - 1:04d}"
    if n % 5 == 0:
        fields.update(stdout_bytes=50_000, stdout_truncated=True, preview_stdout="x" * 200 + "\n")
    if n % 3 == 0:
        fields["agent_note"] = "expect " + "a longer note " * (n % 4)  # the detail's height moves
    return tool(cid, **fields)


def writer(base: Path, stop: threading.Event) -> threading.Thread:
    def go() -> None:
        for n in range(ADDED):
            if n == ADDED // 2:
                with base.open("ab") as fh:
                    fh.write(b"{a bad line\n")  # rows that are not spans go through as well
            append_record(base, record(n), 64 << 10, 50)  # rotates a few times
            if n % 10 == 0 and stop.wait(0.005):
                return

    t = threading.Thread(target=go)
    t.start()
    return t


def side_lines(app: TraceApp) -> list[str]:
    """The detail and chain panes as drawn on screen (the side, under the header)."""
    side = app.query_one("#side").region
    strips = app.screen._compositor.render_strips()
    return [strip.crop(side.x, side.right).text for strip in strips[side.y : side.bottom]]


def pane_texts(app: TraceApp) -> tuple[str, str]:
    detail = app.query_one(DetailPane).body.content
    chain = app.query_one(ChainPane).body.content
    return str(detail), str(chain)


@pytest.mark.parametrize(
    ("keys", "size"),
    [
        (["j", "k", "G"], (120, 40)),
        (["k", "k", "ctrl+d", "G", "e", "E", "end"], (120, 40)),
        (["g", "pagedown", "G"], (120, 40)),
        (["j", "k", "G", "e"], (80, 24)),  # stacked panes, the detail's compact header shown
    ],
    ids=["step", "jumps", "pages", "narrow"],
)
async def test_rows_and_panes_while_keys_are_pressed(
    tmp_path: Path, keys: list[str], size: tuple[int, int]
) -> None:
    run_dir = tmp_path / "flaky"
    shutil.copytree(FLAKY, run_dir)
    app = TraceApp(open_paths([str(run_dir)]), follow=True)
    stop = threading.Event()
    async with app.run_test(size=size) as pilot:
        await start(pilot)
        await pilot.press("G")  # on the last row: the cursor follows
        thread = writer(run_dir / BASE, stop)
        try:
            for key in itertools.islice(itertools.cycle(keys), 40):
                # Sent as the terminal driver sends it, then 10 ms for the screen: pilot.press
                # also waits for an idle process, which it is not while the writer and the
                # follower run (~0.1 s a key), and most keys came after the writer was done.
                event = events.Key(key, key if len(key) == 1 else None)
                event.set_sender(app)
                app.post_message(event)
                await pilot.pause(0.01)
        finally:
            thread.join()
        total = ROWS + ADDED + 1
        await until(pilot, lambda: app.index is not None and len(app.index) == total, pauses=2000)
        await pilot.press("G")
        await settle(pilot)
        await pilot.pause(0.3)  # the panes follow at most ten times a second
        index, view = app.index, app.spans.view
        assert index is not None and view is not None and len(view) == total
        ids = [index.ids[view.row_at(pos)] for pos in range(len(view))]
        grown = [i for i in ids if i is not None and i.startswith("grow-")]
        assert grown == [f"grow-{n:04d}" for n in range(ADDED)]  # each once, in order
        assert app.selected_row == total - 1
        live_side, live_texts = side_lines(app), pane_texts(app)

    frozen = TraceApp(open_paths([str(run_dir)]), follow=False)
    async with frozen.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("G")
        await settle(pilot)
        await pilot.pause(0.1)
        assert frozen.selected_row == total - 1
        assert pane_texts(frozen) == live_texts
        assert side_lines(frozen) == live_side  # drawn the same: no pane left a stale height
