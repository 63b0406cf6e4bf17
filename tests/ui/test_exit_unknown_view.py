"""The viewer on a trace whose last calls have no exit: L, e and F go to the real failure only.

The trace (Claude Code) has a failure with a code, then a call that reported success, then a call
whose result never came (exit unknown). The unknown one is the last row, but never the latest
failure: the viewer opens on the failure, and the header counts the unknown exit apart.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from viewer_helpers import settle

BASE = {"sessionId": "s", "cwd": "/w", "parentUuid": None, "timestamp": "2025-07-01T10:00:00Z"}


def _call(n: int, command: str) -> dict[str, object]:
    use = {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": command}}
    message = {"role": "assistant", "id": f"m{n}", "content": [use]}
    return {**BASE, "uuid": f"a{n}", "type": "assistant", "message": message}


def _result(n: int, text: str, is_error: bool) -> dict[str, object]:
    item = {
        "type": "tool_result",
        "tool_use_id": f"toolu_{n}",
        "content": text,
        "is_error": is_error,
    }
    return {**BASE, "uuid": f"r{n}", "type": "user", "message": {"role": "user", "content": [item]}}


def _session(tmp_path: Path) -> Path:
    lines = [
        _call(1, "make test"),
        _result(1, "Exit code 2\nboom", True),
        _call(2, "ls"),
        _result(2, "a b", False),
        _call(3, "sleep 600"),  # the session ends before its result
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return path


@pytest.mark.parametrize(
    ("keys", "row"),
    [
        pytest.param([], 0, id="opens-on-the-failure"),
        pytest.param(["G", "L"], 0, id="L-from-the-unknown-row"),
        pytest.param(["g", "e"], 0, id="e-finds-no-later-failure"),
    ],
)
async def test_unknown_exit_is_never_the_latest_failure(
    tmp_path: Path, keys: list[str], row: int
) -> None:
    from tracetui.store.runset import open_paths
    from tracetui.ui.app import TraceApp
    from tracetui.ui.widgets.run_header import RunHeader

    app = TraceApp(open_paths([str(_session(tmp_path))]), follow=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
        await settle(pilot)
        assert app.selected_row == row
        header = str(app.query_one(RunHeader).render())
        assert "1 failed · 1 exit ?" in header  # the short form at this width


async def test_failures_only_leaves_the_unknown_exit_out(tmp_path: Path) -> None:
    from tracetui.model.flags import FAILED
    from tracetui.store.runset import open_paths
    from tracetui.ui.app import TraceApp
    from tracetui.ui.widgets.span_list import SpanList

    app = TraceApp(open_paths([str(_session(tmp_path))]), follow=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("F")
        await settle(pilot)
        view = app.query_one(SpanList).view
        assert view is not None and view.mask == FAILED
        assert [view.row_at(i) for i in range(len(view))] == [0]


async def test_detail_says_the_exit_is_unknown_and_why(tmp_path: Path) -> None:
    from tracetui.store.runset import open_paths
    from tracetui.ui.app import TraceApp
    from tracetui.ui.widgets.detail import DetailPane

    app = TraceApp(open_paths([str(_session(tmp_path))]), follow=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("G")
        await settle(pilot)
        assert app.selected_row == 2
        detail = app.query_one(DetailPane).body.content.plain
        (line,) = [x for x in detail.splitlines() if x.lstrip().startswith("exit")]
        assert "unknown: no result" in line
