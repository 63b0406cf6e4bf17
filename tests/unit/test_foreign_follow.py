"""Following other agents' traces while they grow (live/foreign.py, store/live_import.py).

A writer thread grows a Claude Code session or a Codex stream line by line (half lines, results
seconds after their calls); the test's thread polls and, at each checkpoint of the writer's
script, checks what is a row and what is running. Every call must become a row exactly once,
in call order, and be seen running first when the test looked while it ran.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from foreign_lines import (
    cc_call,
    cc_prompt,
    cc_result,
    cx_completed,
    cx_started,
    line,
    oh_obs,
    oh_run,
    wrapped,
)

from tracetui.live import foreign
from tracetui.live.foreign import ForeignFollower
from tracetui.store.index import RunIndex
from tracetui.store.reader import iter_lines
from tracetui.store.runset import open_path

AGENTS = Path(__file__).resolve().parents[1] / "data" / "agents"
Check = Callable[["Watcher"], None]
Step = bytes | float | Check


class Watcher:
    """Drives a follower from the test's thread and keeps what it reported."""

    def __init__(self, path: Path, **kw: Any) -> None:
        self.rows: list[str] = []
        self.states: dict[str, list[str]] = {}
        self.notes: list[str] = []
        self.resets: list[RunIndex] = []
        run = open_path(str(path))[0]
        self.f = ForeignFollower(
            run,
            on_rows=self._rows,
            on_note=self.notes.append,
            on_reset=self.resets.append,
            **kw,
        )

    def _rows(self, first: int, items: Any) -> None:
        for item in items:
            cid = str(item.command_id)
            self.rows.append(cid)
            self.states.setdefault(cid, []).append("row")

    def poll(self) -> int:
        added = self.f.poll_once()
        for call in self.f.running():
            state = "running" if call.running else "waiting"
            seen = self.states.setdefault(str(call.span.command_id), [])
            if not seen or seen[-1] != state:
                seen.append(state)
        return added

    def running(self) -> list[str]:
        return [str(c.span.command_id) for c in self.f.running() if c.running]


def grow(path: Path, script: list[Step], watcher: Watcher) -> None:
    """Run ``script`` on a writer thread (bytes: append them; a float: sleep; a callable: a
    checkpoint, run on this thread once everything written before it has been polled)."""
    at_check = threading.Event()
    ack = threading.Event()
    check: list[Check] = []
    failure: list[BaseException] = []

    def write() -> None:
        try:
            with open(path, "ab", buffering=0) as fh:
                for step in script:
                    if isinstance(step, bytes):
                        fh.write(step)
                    elif isinstance(step, float):
                        time.sleep(step)
                    else:
                        check.append(step)
                        at_check.set()
                        ack.wait()
                        ack.clear()
        except BaseException as exc:
            failure.append(exc)
        finally:
            at_check.set()

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    while writer.is_alive() or at_check.is_set():
        watcher.poll()
        if at_check.wait(0.01):
            at_check.clear()
            watcher.poll()  # everything before the checkpoint is on disk now
            if check:
                check.pop()(watcher)
            ack.set()
    writer.join()
    assert not failure
    watcher.poll()


def expect(rows: list[str], running: list[str]) -> Check:
    def check(w: Watcher) -> None:
        assert w.rows == rows
        assert w.running() == running

    return check


def halves(obj: dict[str, Any]) -> list[Step]:
    data = line(obj)
    return [data[: len(data) // 2], 0.02, data[len(data) // 2 :]]


def test_a_growing_claude_session(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(line(cc_prompt()))
    w = Watcher(path)
    script: list[Step] = [
        *halves(cc_call(1, "pytest -q", message="m1")),
        expect([], ["toolu_01"]),
        line(cc_call(2, "ls", message="m1", second=1)),
        expect([], ["toolu_01", "toolu_02"]),
        line(cc_result(2, "README.md", second=2)),
        expect([], ["toolu_01"]),  # done, but waits behind the running call
        0.3,  # the result arrives a while after its call
        *halves(cc_result(1, "Exit code 1\nFAILED test_total", error=True, second=5)),
        expect(["toolu_01", "toolu_02"], []),
        line(cc_call(3, "make", message="m2", second=6)),
        expect(["toolu_01", "toolu_02"], ["toolu_03"]),
        line(cc_result(3, "built", second=7)),
    ]
    grow(path, script, w)
    assert w.rows == ["toolu_01", "toolu_02", "toolu_03"]
    assert w.states["toolu_01"] == ["running", "row"]
    assert w.states["toolu_02"] == ["running", "waiting", "row"]
    assert w.states["toolu_03"] == ["running", "row"]
    index = w.f.index
    assert [index.get(r).exit_code for r in range(len(index))] == [1, 0, 0]  # type: ignore[union-attr]
    assert w.f.running() == ()
    assert w.notes == []
    w.f.stop()


def test_a_growing_codex_stream_bare_and_wrapped(tmp_path: Path) -> None:
    path = tmp_path / "exec.jsonl"
    path.write_bytes(line({"type": "thread.started", "thread_id": "t1"}))
    w = Watcher(path)
    script: list[Step] = [
        line({"type": "turn.started"}),
        *halves(cx_started(0, "cargo test")),
        expect([], ["item_0"]),
        0.3,
        line(cx_completed(0, "cargo test", "test parse ... FAILED\n", 101)),
        expect(["item_0"], []),
        *halves(wrapped(cx_started(1, "sleep 600"), 10)),
        expect(["item_0"], ["item_1"]),
        line({"type": "turn.completed"}),  # the turn ends without the command's completion
        expect(["item_0", "item_1"], []),
    ]
    grow(path, script, w)
    assert w.rows == ["item_0", "item_1"]
    index = w.f.index
    last = index.get(1)
    assert getattr(last, "raw", {}).get("result_missing") is True
    w.f.stop()


def test_a_partial_line_is_never_a_bad_row(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    data = line(cc_call(1, "ls", message="m1"))
    path.write_bytes(line(cc_prompt()) + data[:20])
    w = Watcher(path)
    assert w.poll() == 0
    assert len(w.f.index) == 0 and w.notes == []
    with open(path, "ab") as fh:
        fh.write(data[20:])
    w.poll()
    assert w.running() == ["toolu_01"] and w.notes == []
    w.f.stop()


@pytest.mark.parametrize(
    ("how", "note"),
    [("truncate", "was truncated"), ("replace", "was replaced"), ("rewrite", "was rewritten")],
    ids=["truncated", "replaced", "rewritten-same-size"],
)
def test_a_file_that_changed_under_us_is_converted_again(
    tmp_path: Path, how: str, note: str
) -> None:
    path = tmp_path / "session.jsonl"
    first = line(cc_call(1, "ls", message="m1")) + line(cc_result(1, "a"))
    path.write_bytes(first + line(cc_call(2, "pwd", message="m2")) + line(cc_result(2, "/")))
    w = Watcher(path)
    w.poll()
    assert w.rows == ["toolu_01", "toolu_02"]
    old = w.f.index
    other = line(cc_call(7, "make", message="m7")) + line(cc_result(7, "ok"))
    if how == "truncate":
        path.write_bytes(other)
    elif how == "replace":
        (tmp_path / "new.jsonl").write_bytes(first + other)
        os.replace(tmp_path / "new.jsonl", path)
    else:
        data = path.read_bytes().replace(b"toolu_01", b"toolu_09")
        with open(path, "r+b") as fh:
            fh.write(data)
    w.poll()
    assert w.resets == [w.f.index] and w.f.index is not old
    assert w.notes == [f"session.jsonl {note}: converting it again from its start"]
    index = w.f.index
    expected = {
        "truncate": ["toolu_07"],
        "replace": ["toolu_01", "toolu_07"],
        "rewrite": ["toolu_09", "toolu_02"],
    }[how]
    assert [index.ids[r] for r in range(len(index))] == expected
    w.f.stop()


def test_an_overlong_line_is_skipped_with_a_note(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(foreign, "iter_lines", partial(iter_lines, max_line=400))
    path = tmp_path / "session.jsonl"
    path.write_bytes(
        line(cc_call(1, "x" * 1000, message="m1"))
        + line(cc_call(2, "ls", message="m1"))
        + line(cc_result(2, "a"))
    )
    w = Watcher(path)
    w.poll()
    assert w.rows == ["toolu_02"]
    assert w.notes == ["claude-code import: line 1: over the line size limit, skipped"]
    w.f.stop()


def test_a_batch_limit_leaves_the_rest_for_the_next_poll(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    data = b"".join(
        line(cc_call(n, "ls", message=f"m{n}")) + line(cc_result(n, "a")) for n in range(1, 6)
    )
    path.write_bytes(data)
    w = Watcher(path, batch=3)
    polls = 1
    w.poll()
    while w.f.more:
        w.poll()
        polls += 1
    assert polls == 4
    assert w.rows == [f"toolu_{n:02d}" for n in range(1, 6)]
    w.f.stop()


def test_following_on_its_own_thread(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(line(cc_prompt()))
    seen: list[str] = []
    run = open_path(str(path))[0]
    got = threading.Event()
    f = ForeignFollower(
        run,
        on_rows=lambda first, items: seen.extend(str(i.command_id) for i in items),
        on_pending=got.set,
    )
    f.start()
    try:
        with open(path, "ab", buffering=0) as fh:
            fh.write(line(cc_call(1, "ls", message="m1")))
            assert got.wait(10)  # the running call was published
            fh.write(line(cc_result(1, "a")))
            for _ in range(1000):
                if seen:
                    break
                time.sleep(0.01)
    finally:
        f.stop()
    assert seen == ["toolu_01"]


# ------------------------------------------------------------------------ whole documents
def _traj(steps: int, first_action: str | None = None) -> bytes:
    doc = json.loads((AGENTS / "swe_agent.traj").read_text(encoding="utf-8"))
    doc["trajectory"] = doc["trajectory"][:steps]
    if first_action is not None:
        doc["trajectory"][0]["action"] = first_action
    doc.get("history", []).clear()
    # While SWE-agent runs, its info has no exit status or submission yet.
    doc["info"].pop("exit_status", None)
    doc["info"].pop("submission", None)
    return json.dumps(doc, indent=1).encode()


def _settled(w: Watcher) -> int:
    """Poll until the document's change has settled and been read."""
    added = w.poll()
    while w.f.unsettled:
        added += w.poll()
    return added


def test_a_document_is_read_again_when_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "run.traj"
    path.write_bytes(_traj(2))
    w = Watcher(path, settle=0.0)
    assert w.f.by_line is False
    assert _settled(w) == 2
    assert w.f.fresh == frozenset({0, 1})
    path.write_bytes(_traj(3))
    assert _settled(w) == 1
    assert w.f.fresh == frozenset({2}) and w.resets == []
    assert _settled(w) == 0  # unchanged: not read again
    path.write_bytes(_traj(3, first_action="ls -la"))
    assert _settled(w) == 3
    assert len(w.resets) == 1 and len(w.f.index) == 3
    assert w.f.fresh == frozenset({0})
    assert w.notes == ["run.traj changed calls already shown: converting it again from its start"]
    w.f.stop()


def test_a_document_half_written_waits_for_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "run.traj"
    whole = _traj(2)
    path.write_bytes(whole[: len(whole) // 2])
    w = Watcher(path, settle=0.0)
    assert _settled(w) == 0
    assert w.notes == [
        "run.traj: not a complete swe-agent document yet; read again when it changes"
    ]
    path.write_bytes(whole)
    assert _settled(w) == 2
    assert len(w.notes) == 1
    w.f.stop()


def test_an_openhands_event_stream_read_again_holds_the_call_waiting(tmp_path: Path) -> None:
    # OpenHands' event lines are fed line by line: a call without its observation yet is
    # running, not a row, so its observation arriving changes no row already shown.
    path = tmp_path / "events.jsonl"
    path.write_bytes(line(oh_run(1, "ls")) + line(oh_obs(2, 1, "README.md", 0)))
    w = Watcher(path, settle=0.0)
    assert w.f.run.source_format == "openhands" and w.f.by_line
    assert _settled(w) == 1
    with open(path, "ab") as fh:
        fh.write(line(oh_run(3, "pytest -q")))
    assert _settled(w) == 0
    assert w.running() == ["3"]
    with open(path, "ab") as fh:
        fh.write(line(oh_obs(4, 3, "1 failed", 1)))
    assert _settled(w) == 1
    assert w.running() == [] and w.resets == [] and w.notes == []
    assert [w.f.index.exit[r] for r in range(2)] == [0, 1]
    with open(path, "ab") as fh:
        fh.write(line(oh_run(5, "make")))
    _settled(w)
    assert w.f.finish() == 1  # read as it is, for good: the waiting call ends (no result)
    assert w.f.running() == () and len(w.f.index) == 3
    w.f.stop()
