"""Small lies of issue 16 in the viewer: what a toast or a header says must be true.

`[` at the first attempt of a chain and `]` at its last say which end they hit (not "end of the
chain" at the root, which is its start). The live header's file count leaves out members rotated
past the keep count (deleted). A re-run row's OUT/ERR cells show its bytes without the cap.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool
from viewer_helpers import FLAKY, settle

from tracetui.analysis.rows import row_cells
from tracetui.model.flags import SIDECAR
from tracetui.record.rotate import append_record
from tracetui.store.runset import open_paths, sidecar_path
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.run_header import RunHeader

BASE = "feedback_record.jsonl"
FLAKY_ROWS = 12  # rows of the flaky run (tests/ui/test_live.py)


def write(run_dir: Path, records: list[dict[str, Any]]) -> None:
    """Append ``records`` from another thread, as a harness would, rotating at 4 KB, keeping 4."""

    def go() -> None:
        for rec in records:
            append_record(run_dir / BASE, rec, 4096, 4)

    t = threading.Thread(target=go)
    t.start()
    t.join()


async def until(pilot: Any, done: Callable[[], bool], *, pauses: int = 400) -> None:
    """Let the app run until ``done()``; fail (not hang) if it never happens."""
    for _ in range(pauses):
        if done():
            return
        await pilot.pause(0.01)
    assert done(), "the app never got there"


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


async def test_live_header_counts_only_files_still_there(tmp_path: Path) -> None:
    # The flaky run followed while records rotate it past keep=4: the oldest generations are
    # deleted, so the header counts the base and its four kept members, not every file seen.
    run_dir = tmp_path / "flaky"
    shutil.copytree(FLAKY, run_dir)
    app = TraceApp(open_paths([str(run_dir)]), follow=True)
    records = [tool(f"live-ok-{i}", argv=["echo", str(i)]) for i in range(40)]
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: app.query_one(RunHeader).state == "LIVE")
        for i in range(0, len(records), 6):
            write(run_dir, records[i : i + 6])
            want = FLAKY_ROWS + min(len(records), i + 6)
            await until(pilot, lambda want=want: len(app.index) >= want)
        on_disk = sorted(n for n in os.listdir(run_dir) if not n.endswith(".lock"))
        assert on_disk == [BASE] + [f"{BASE}.{n}" for n in range(1, 5)]
        assert any(not m.readable for m in app.index.members)  # some were rotated away
        await until(pilot, lambda: "· 5 files ·" in str(app.query_one(RunHeader).render()))


async def test_a_rerun_row_shows_its_bytes_without_the_cap(tmp_path: Path) -> None:
    # The original was capped at 8 KiB; the re-run in the sidecar ran uncapped, and its record's
    # cap only bounds the previews kept for the diff: its list cells show the bytes alone.
    big = {"stdout_bytes": 24576, "stdout_truncated": True, "stdout_clip": "head"}
    base = tmp_path / "run.jsonl"
    base.write_bytes(encode_line(tool("orig", exit_code=1, **big)))
    Path(sidecar_path(str(base))).write_bytes(
        encode_line(tool("again", parent_command_id="orig", rerun_of="orig", exit_code=1, **big))
    )
    app = TraceApp(open_paths([str(tmp_path)]), follow=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        ix = app.index
        assert ix is not None and len(ix) == 2
        rows = {ix.ids[r]: r for r in range(len(ix))}
        assert ix.flags[rows["again"]] & SIDECAR and not ix.flags[rows["orig"]] & SIDECAR
        out_err = {
            cid: [(c.text, c.style) for c in row_cells(ix, r, ix.span(r))[4:6]]
            for cid, r in rows.items()
        }
        assert out_err == {
            "orig": [("24K/8.0K", "trunc"), ("0/8.0K", "")],
            "again": [("24K", ""), ("0", "")],
        }
