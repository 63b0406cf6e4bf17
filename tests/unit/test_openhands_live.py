"""Following OpenHands while it writes (importers/openhands*.py feeders, live/foreign.py).

A writer thread grows an OpenHands V1 ``events/`` folder file by file, or an event-lines file
line by line (half writes, an observation arriving after later actions); the test's thread
polls and, at each checkpoint, checks what is a row and what is running. Every call must
become a row once, in call order, seen running first; at the end the rows are exactly what a
whole conversion of the finished trace gives.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from tracetui import importers
from tracetui.importers import openhands_v1
from tracetui.importers._common import Problems
from tracetui.importers.openhands import StreamFeeder
from tracetui.importers.openhands_v1 import EventFeeder
from tracetui.importers.protocol import DOCUMENT, FOLDER, LINES, feed_file
from tracetui.live.foreign import ForeignFollower
from tracetui.store.live_import import follow_shape
from tracetui.store.runset import open_path

AGENTS = Path(__file__).resolve().parents[1] / "data" / "agents"
Check = Callable[["Watch"], None]
Step = tuple[str, bytes] | float | Check
"""``(file name, bytes)``: append the bytes to that file; a float: sleep; a callable: check."""


# ------------------------------------------------------------------------------ fixtures
def v1_prompt() -> dict[str, Any]:
    return {"kind": "SystemPromptEvent", "id": "sys", "source": "agent", "tools": []}


def v1_call(n: int, command: str) -> dict[str, Any]:
    return {
        "kind": "ActionEvent",
        "id": f"act-{n}",
        "timestamp": f"2026-12-01T10:00:{n:02d}.000000",
        "source": "agent",
        "tool_name": "terminal",
        "tool_call_id": f"call_{n}",
        "action": {"kind": "TerminalAction", "command": command, "is_input": False},
    }


def v1_result(n: int, output: str, code: int) -> dict[str, Any]:
    return {
        "kind": "ObservationEvent",
        "id": f"obs-{n}",
        "timestamp": f"2026-12-01T10:00:{n + 1:02d}.000000",
        "source": "environment",
        "tool_name": "terminal",
        "tool_call_id": f"call_{n}",
        "action_id": f"act-{n}",
        "observation": {
            "kind": "TerminalObservation",
            "content": [{"type": "text", "text": output}],
            "is_error": False,
            "exit_code": code,
            "timeout": False,
            "metadata": {"exit_code": code, "prefix": "", "suffix": ""},
        },
    }


def old_run(eid: int, command: str) -> dict[str, Any]:
    return {
        "id": eid,
        "timestamp": "2026-12-01T10:00:00",
        "source": "agent",
        "action": "run",
        "args": {"command": command, "thought": f"step {eid}"},
    }


def old_obs(eid: int, cause: int, output: str, code: int) -> dict[str, Any]:
    return {
        "id": eid,
        "timestamp": "2026-12-01T10:00:05",
        "source": "environment",
        "cause": cause,
        "observation": "run",
        "content": output,
        "extras": {"metadata": {"exit_code": code}},
    }


def jl(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj) + "\n").encode()


def event_name(i: int) -> str:
    return f"event-{i:05d}-e{i:07d}.json"


# ------------------------------------------------------------------------------ driving
class Watch:
    """Drives a follower from the test's thread and keeps what it reported, per call."""

    def __init__(self, path: Path, **kw: Any) -> None:
        self.rows: list[str] = []
        self.states: dict[str, list[str]] = {}
        self.notes: list[str] = []
        self.f = ForeignFollower(
            open_path(str(path))[0], on_rows=self._rows, on_note=self.notes.append, **kw
        )

    def _rows(self, first: int, items: Any) -> None:
        for item in items:
            cid = str(item.command_id)
            self.rows.append(cid)
            self.states.setdefault(cid, []).append("row")

    def poll(self) -> None:
        self.f.poll_once()
        for call in self.f.running():
            state = "running" if call.running else "waiting"
            seen = self.states.setdefault(str(call.span.command_id), [])
            if not seen or seen[-1] != state:
                seen.append(state)

    def running(self) -> list[str]:
        return [str(c.span.command_id) for c in self.f.running() if c.running]

    def records(self) -> list[dict[str, Any]]:
        """What the follower indexed, as records (its converted copy, line by line)."""
        with open(self.f._sink.temp, "rb") as fh:
            return [orjson.loads(b) for b in fh if b.strip()]


def grow(folder: Path, script: list[Step], watch: Watch) -> None:
    """Run ``script`` on a writer thread; each check runs on this thread once everything
    written before it has been polled."""
    at_check, ack = threading.Event(), threading.Event()
    check: list[Check] = []
    failure: list[BaseException] = []

    def write() -> None:
        try:
            for step in script:
                if isinstance(step, tuple):
                    with open(folder / step[0], "ab", buffering=0) as fh:
                        fh.write(step[1])
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
        watch.poll()
        if at_check.wait(0.01):
            at_check.clear()
            watch.poll()
            if check:
                check.pop()(watch)
            ack.set()
    writer.join()
    assert not failure
    watch.poll()


def expect(rows: list[str], running: list[str]) -> Check:
    def check(w: Watch) -> None:
        assert w.rows == rows
        assert w.running() == running

    return check


def halves(name: str, data: bytes) -> list[Step]:
    return [(name, data[: len(data) // 2]), 0.02, (name, data[len(data) // 2 :])]


def comparable(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [orjson.loads(orjson.dumps(r, default=str)) for r in records]


# ------------------------------------------------------------------------------ tests
def test_a_v1_events_folder_grown_file_by_file(tmp_path: Path) -> None:
    events = tmp_path / "events"
    events.mkdir()
    (events / event_name(0)).write_bytes(jl(v1_prompt()))
    w = Watch(events)
    assert w.f.shape == FOLDER and w.f.by_line
    assert w.f.folder == str(events)  # watched itself: tail and the viewer wait on it
    script: list[Step] = [
        *halves(event_name(1), jl(v1_call(1, "ls"))),
        expect([], ["call_1"]),
        *halves(event_name(2), jl(v1_result(1, "README.md", 0))),
        expect(["call_1"], []),
        (event_name(3), jl(v1_call(3, "pytest -q"))),
        (event_name(4), jl(v1_call(4, "make"))),
        expect(["call_1"], ["call_3", "call_4"]),
        (event_name(5), jl(v1_result(4, "built", 0))),  # waits behind call_3
        expect(["call_1"], ["call_3"]),
        0.05,
        *halves(event_name(6), jl(v1_result(3, "1 failed", 1))),
        expect(["call_1", "call_3", "call_4"], []),
    ]
    grow(events, script, w)
    assert w.rows == ["call_1", "call_3", "call_4"]
    assert w.states == {
        "call_1": ["running", "row"],
        "call_3": ["running", "row"],
        "call_4": ["running", "waiting", "row"],
    }
    assert w.notes == []
    assert w.records() == comparable(list(importers.convert(str(events), "openhands-v1")))
    assert w.f.finish() == 0
    w.f.stop()


@pytest.mark.parametrize(
    ("fmt", "first", "call", "result", "ids"),
    [
        pytest.param(
            "openhands-v1",
            v1_prompt(),
            v1_call,
            lambda n, out, code: v1_result(n, out, code),
            ["call_1", "call_3", "call_4"],
            id="v1-event-lines",
        ),
        pytest.param(
            "openhands",
            {"id": 0, "source": "user", "action": "message", "args": {"content": "go"}},
            old_run,
            lambda n, out, code: old_obs(n + 10, n, out, code),
            ["1", "3", "4"],
            id="older-event-lines",
        ),
    ],
)
def test_event_lines_grown_line_by_line(
    tmp_path: Path,
    fmt: str,
    first: dict[str, Any],
    call: Callable[[int, str], dict[str, Any]],
    result: Callable[[int, str, int], dict[str, Any]],
    ids: list[str],
) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(jl(first))
    w = Watch(path)
    assert w.f.run.source_format == fmt and w.f.shape == LINES
    name = path.name
    script: list[Step] = [
        *halves(name, jl(call(1, "ls"))),
        expect([], [ids[0]]),
        *halves(name, jl(result(1, "README.md", 0))),
        expect([ids[0]], []),
        (name, jl(call(3, "pytest -q"))),
        (name, jl(call(4, "make"))),
        expect([ids[0]], [ids[1], ids[2]]),
        (name, jl(result(4, "built", 0))),
        expect([ids[0]], [ids[1]]),
        0.05,
        *halves(name, jl(result(3, "1 failed", 1))),
        expect(ids, []),
    ]
    grow(tmp_path, script, w)
    assert w.rows == ids
    assert [w.states[i][0] for i in ids] == ["running"] * 3
    assert all(w.states[i][-1] == "row" and w.states[i].count("row") == 1 for i in ids)
    assert w.records() == comparable(list(importers.convert(str(path), fmt)))
    w.f.stop()


def test_a_call_still_running_at_the_end_ends_as_a_whole_read_ends_it(tmp_path: Path) -> None:
    events = tmp_path / "events"
    events.mkdir()
    (events / event_name(0)).write_bytes(jl(v1_prompt()))
    (events / event_name(1)).write_bytes(jl(v1_call(1, "sleep 100")))
    w = Watch(events)
    w.poll()
    assert w.running() == ["call_1"] and w.rows == []
    assert w.f.finish() == 1
    assert w.records() == comparable(list(importers.convert(str(events), "openhands-v1")))
    assert w.records()[0]["result_missing"] is True
    w.f.stop()


def test_a_broken_event_file_is_skipped_once_later_ones_exist(tmp_path: Path) -> None:
    events = tmp_path / "events"
    events.mkdir()
    (events / event_name(0)).write_bytes(jl(v1_prompt()))
    (events / event_name(1)).write_bytes(b'{"kind": "ActionEv')
    w = Watch(events, settle=0.0)
    w.poll()
    assert w.f.unsettled and w.notes == []  # alone at the end: half written, waited for
    (events / event_name(2)).write_bytes(jl(v1_call(2, "ls")))
    (events / event_name(3)).write_bytes(jl(v1_result(2, "ok", 0)))
    w.poll()  # first sight of it with later files: its clock starts
    w.poll()
    assert w.rows == ["call_2"]
    assert w.notes == [
        f"openhands-v1 import: {event_name(1)}: not valid JSON: unexpected end of data, skipped"
    ]
    whole = Problems()
    assert w.records() == comparable(list(openhands_v1.convert(str(events), whole)))
    assert whole.items == [f"{event_name(1)}: not valid JSON: unexpected end of data, skipped"]
    w.f.stop()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_an_event_name_that_is_no_regular_file_is_skipped(tmp_path: Path) -> None:
    events = tmp_path / "events"
    events.mkdir()
    (events / event_name(0)).write_bytes(jl(v1_prompt()))
    os.mkfifo(events / event_name(1))
    (events / event_name(2)).write_bytes(jl(v1_call(2, "ls")))
    (events / event_name(3)).write_bytes(jl(v1_result(2, "ok", 0)))
    w = Watch(events)
    w.poll()
    assert w.rows == ["call_2"]
    assert len(w.notes) == 1 and w.notes[0].startswith(f"openhands-v1 import: {event_name(1)}: ")
    w.f.stop()


SHAPES = [
    ("v1-array", "events.json", json.dumps([v1_prompt(), v1_call(1, "ls")]).encode(), DOCUMENT),
    (
        "v1-object",
        "conv.json",
        json.dumps({"events": [v1_call(1, "ls")]}).encode() + b"\n",
        DOCUMENT,
    ),
    ("v1-pretty", "conv.json", json.dumps([v1_call(1, "ls")], indent=2).encode(), DOCUMENT),
    ("v1-lines", "events.jsonl", jl(v1_prompt()) + jl(v1_call(1, "ls")), LINES),
    ("v1-one-line-so-far", "events.jsonl", jl(v1_call(1, "ls")), LINES),
    ("v1-first-line-unfinished", "events.jsonl", jl(v1_call(1, "ls"))[:40], None),
    ("older-lines", "events.jsonl", jl(old_run(1, "ls")), LINES),
    ("older-array", "events.json", json.dumps([old_run(1, "ls")]).encode(), DOCUMENT),
]


@pytest.mark.parametrize(
    ("name", "data", "want"), [s[1:] for s in SHAPES], ids=[s[0] for s in SHAPES]
)
def test_the_follower_chooses_per_file_shape(
    tmp_path: Path, name: str, data: bytes, want: str | None
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    fmt = "openhands" if b'"action": "run"' in data else "openhands-v1"
    run = open_path(str(path))[0]
    run.source_format = fmt
    assert follow_shape(run) == want


def test_the_fixture_folder_fed_is_its_whole_conversion() -> None:
    folder = AGENTS / "openhands_v1_conv" / "events"
    feeder = EventFeeder(str(folder), Problems())
    got = []
    for i, name in enumerate(feeder.entries(sorted(os.listdir(folder)))):
        full = folder / name
        got.extend(feeder.feed_file(i, str(full), json.loads(full.read_bytes())))
    got.extend(feeder.finish())
    assert got == list(importers.convert(str(folder), "openhands-v1"))
    assert len(got) == 3


def test_the_fixture_output_jsonl_fed_is_its_whole_conversion() -> None:
    path = str(AGENTS / "openhands_output.jsonl")
    fed = list(feed_file(StreamFeeder(path, Problems()), path, Problems()))
    assert fed == list(importers.convert(path, "openhands"))
    assert fed


def test_a_first_line_still_being_written_decides_nothing_yet(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    data = jl(v1_call(1, "ls"))
    path.write_bytes(data[:60])  # the kind is in the head already: it sniffs as V1
    w = Watch(path)
    assert w.f.run.source_format == "openhands-v1" and w.f.shape is None
    w.poll()
    assert w.f.shape is None and w.f.unsettled and w.rows == [] and w.running() == []
    with open(path, "ab") as fh:
        fh.write(data[60:] + jl(v1_result(1, "README.md", 0)))
    w.poll()
    assert w.f.shape == LINES and w.f.by_line
    assert w.rows == ["call_1"] and w.notes == []
    w.f.stop()


def test_one_event_line_so_far_reads_as_the_follower_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(jl(v1_call(1, "sleep 100")))
    w = Watch(path)
    w.poll()
    assert w.running() == ["call_1"]
    assert w.f.finish() == 1
    whole = comparable(list(openhands_v1.convert(str(path), Problems())))
    assert w.records() == whole and whole[0]["source_line"] == 1
    w.f.stop()
