"""Pilot tests of the viewer following another agent's session (ui/live.py, running rows in
ui/widgets/span_list.py). Waits are "pause until it is there", bounded by a deadline."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from foreign_lines import cc_call, cc_prompt, cc_result, cx_completed, cx_started, line
from records import tool
from viewer_helpers import settle

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.detail import DetailPane
from tracetui.ui.widgets.run_header import RunHeader

AGENTS = Path(__file__).resolve().parents[1] / "data" / "agents"


async def until(pilot: Any, done: Callable[[], bool], *, pauses: int = 500) -> None:
    """Pause until ``done()``: at least ``pauses`` short pauses, and at least 30 s in all (on a
    loaded machine 500 pauses of 10 ms were not always enough for a follower's poll)."""
    deadline = time.monotonic() + 30.0
    count = 0
    while count < pauses or time.monotonic() < deadline:
        if done():
            return
        await pilot.pause(0.01)
        count += 1
    assert done(), "the app never got there"


async def start(pilot: Any) -> None:
    await settle(pilot)
    await until(pilot, lambda: pilot.app.query_one(RunHeader).state == "LIVE")


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)


def detail_text(app: TraceApp) -> str:
    return app.query_one(DetailPane).body.content.plain


def line_text(app: TraceApp, y: int) -> str:
    return "".join(seg.text for seg in app.spans.render_line(y))


async def test_a_running_call_completes_in_place(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(line(cc_prompt()) + line(cc_call(1, "pytest -q", message="m1")))
    app = TraceApp(open_paths([str(path)]), follow=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await start(pilot)
        spans = app.spans
        await until(pilot, lambda: len(spans.running) == 1)
        assert spans.view is not None and len(spans.view) == 0
        # The cursor is on the running call: a row drawn "run", with the detail saying since when.
        assert spans.running_call() is not None and app.selected_row is None
        drawn = line_text(app, 0)
        assert " run " in drawn and "bash -lc pytest -q" in drawn
        failed = spans._style("failed")
        styles = {seg.style for seg in spans.render_line(0) if seg.text.strip() == "run"}
        assert styles and all(s is None or s.color != failed.color for s in styles)
        await until(pilot, lambda: "RUNNING  since 2026-12-01 10:00:00 UTC" in detail_text(app))
        # A second call runs after it; then the first one's result arrives.
        append(path, line(cc_call(2, "ls", message="m1")))
        await until(pilot, lambda: len(spans.running) == 2)
        append(path, line(cc_result(1, "Exit code 1\nFAILED", error=True)))
        await until(pilot, lambda: len(spans.view or ()) == 1 and len(spans.running) == 1)
        # Same position, now a row: exit 1, and the cursor (still at 0) is on it.
        await until(pilot, lambda: app.selected_row == 0)
        assert spans.cursor == 0
        assert app.index is not None and app.index.ids[0] == "toolu_01"
        assert app.index.exit[0] == 1
        await until(pilot, lambda: "RUNNING" not in detail_text(app))
        assert " run " in line_text(app, 1)
        append(path, line(cc_result(2, "README.md")))
        await until(pilot, lambda: len(spans.view or ()) == 2 and spans.running == ())
        assert [app.index.ids[r] for r in range(2)] == ["toolu_01", "toolu_02"]
        assert line_text(app, 2).strip() == ""  # no running row left behind


def _traj(steps: int) -> bytes:
    doc = json.loads((AGENTS / "swe_agent.traj").read_text(encoding="utf-8"))
    doc["trajectory"] = doc["trajectory"][:steps]
    doc.get("history", []).clear()
    # While SWE-agent runs, its info has no exit status or submission yet.
    doc["info"].pop("exit_status", None)
    doc["info"].pop("submission", None)
    return json.dumps(doc, indent=1).encode()


async def test_a_document_trace_is_read_again_with_the_cursor_kept(tmp_path: Path) -> None:
    path = tmp_path / "run.traj"
    path.write_bytes(_traj(3))
    app = TraceApp(open_paths([str(path)]), follow=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await start(pilot)
        spans = app.spans
        assert spans.view is not None and len(spans.view) == 3
        spans.move_to(1)
        await settle(pilot)
        assert app.selected_row == 1
        path.write_bytes(_traj(5))
        await until(pilot, lambda: len(spans.view or ()) == 5)
        assert app.selected_row == 1  # the cursor stays on the same call
        await until(pilot, lambda: spans.fresh == frozenset({3, 4}))

        def underlined(y: int) -> list[str]:
            return [
                s.text for s in spans.render_line(y) if s.style is not None and s.style.underline
            ]

        # The new rows' ids are marked; the rows read before are not.
        assert underlined(3) and underlined(4)
        assert not underlined(0) and not underlined(2)


async def test_a_rebuilt_document_keeps_the_cursor_on_the_same_call(tmp_path: Path) -> None:
    path = tmp_path / "run.traj"
    path.write_bytes(_traj(3))
    app = TraceApp(open_paths([str(path)]), follow=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await start(pilot)
        first = app.index
        app.spans.move_to(2)
        await settle(pilot)
        assert first is not None and first.ids[app.selected_row or 0] == "step-3"
        doc = json.loads(_traj(4))
        doc["trajectory"][0]["action"] = "ls -la"  # an earlier call changed: the list is rebuilt
        path.write_bytes(json.dumps(doc).encode())
        await until(pilot, lambda: app.index is not first and len(app.spans.view or ()) == 4)
        assert app.index is not None
        await until(pilot, lambda: app.selected_row == 2)
        assert app.index.ids[2] == "step-3"
        # The rows not as before: marked with the update that follows the rebuilt index (until
        # it lands, the marks of the first read may still be up: asserting at once was flaky).
        await until(pilot, lambda: app.spans.fresh == frozenset({0, 3}))


async def test_a_file_empty_when_opened_is_followed_as_the_agent_it_turns_out_to_be(
    tmp_path: Path,
) -> None:
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"")
    app = TraceApp(open_paths([str(path)]), follow=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await start(pilot)
        assert app.index is not None and len(app.index) == 0
        append(path, line({"type": "thread.started", "thread_id": "t1"}))
        append(path, line(cx_started(0, "cargo test")))
        await until(pilot, lambda: len(app.spans.running) == 1)
        assert app.run_ is not None and app.run_.source_format == "codex"
        append(path, line(cx_completed(0, "cargo test", "ok\n", 0)))
        await until(pilot, lambda: len(app.spans.view or ()) == 1)
        assert app.index.ids[0] == "item_0" and app.index.bad == {}


async def test_a_run_of_ours_empty_when_opened_is_still_followed(tmp_path: Path) -> None:
    path = tmp_path / "feedback_record.jsonl"
    path.write_bytes(b"")
    app = TraceApp(open_paths([str(path)]), follow=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await start(pilot)
        append(path, (json.dumps(tool("own-1")) + "\n").encode())
        await until(pilot, lambda: len(app.spans.view or ()) == 1)
        assert app.run_ is not None and app.run_.source_format is None
        assert app.index is not None and app.index.ids[0] == "own-1"
