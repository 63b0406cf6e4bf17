"""The importers' feeders (importers/protocol.py Feeder): fed line by line they let out exactly
what a whole-file conversion yields, in call order, and say which calls are still running."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from foreign_lines import cc_call, cc_result, cc_text, cx_completed, cx_started, line, wrapped

from tracetui import importers
from tracetui.importers import claude_code, codex
from tracetui.importers._common import Problems, iter_jsonl
from tracetui.importers.protocol import Feeder
from tracetui.importers.registry import by_name
from tracetui.live.foreign import ForeignFollower
from tracetui.store.live_import import encode
from tracetui.store.runset import Member, Run

AGENTS = Path(__file__).resolve().parents[1] / "data" / "agents"

LINE_FIXTURES = [
    ("claude-code", "claude_session.jsonl"),
    ("claude-code", "claude_broken.jsonl"),
    ("codex", "codex_exec.jsonl"),
    ("codex", "rollout-2025-09-10T09-00-00-0199a300.jsonl"),
]


def _ids(records: list[dict[str, Any]]) -> list[str]:
    return [str(r["command_id"]) for r in records]


@pytest.mark.parametrize(("fmt", "name"), LINE_FIXTURES, ids=[n for _f, n in LINE_FIXTURES])
def test_feeding_every_line_gives_what_convert_gives(fmt: str, name: str) -> None:
    importer = by_name(fmt)
    assert importer is not None and importer.feeder is not None
    path = str(AGENTS / name)
    whole = list(importer.convert(path, Problems()))
    problems = Problems()
    feeder = importer.feeder(path, problems)
    fed: list[dict[str, Any]] = []
    for line_no, obj in iter_jsonl(path, problems):
        fed.extend(feeder.feed(line_no, obj))
        # What is let out plus what is pending is every call seen so far, once, in order.
        seen = _ids(fed) + _ids(feeder.pending())
        assert len(seen) == len(set(seen))
    fed.extend(feeder.finish())
    assert fed == whole
    assert feeder.pending() == []


def _claude(tmp_path: Path) -> Feeder:
    return claude_code.SessionFeeder(str(tmp_path / "s.jsonl"), Problems())


def _codex(tmp_path: Path) -> Feeder:
    return codex.EventFeeder(str(tmp_path / "e.jsonl"))


# Each case: lines fed in order, then the ids let out and the pending (id, running) after them.
CASES: list[tuple[str, str, list[dict[str, Any]], list[str], list[tuple[str, bool]]]] = [
    (
        "claude-call-waits-for-result",
        "claude",
        [cc_call(1, "make", message="m1")],
        [],
        [("toolu_01", True)],
    ),
    (
        "claude-result-completes-call",
        "claude",
        [cc_call(1, "make", message="m1"), cc_result(1, "ok")],
        ["toolu_01"],
        [],
    ),
    (
        "claude-finished-call-waits-behind-running-one",
        "claude",
        [cc_call(1, "sleep 9", message="m1"), cc_call(2, "ls", message="m1"), cc_result(2, "a")],
        [],
        [("toolu_01", True), ("toolu_02", False)],
    ),
    (
        "claude-both-let-out-in-call-order",
        "claude",
        [
            cc_call(1, "sleep 9", message="m1"),
            cc_call(2, "ls", message="m1"),
            cc_result(2, "a"),
            cc_result(1, "b"),
        ],
        ["toolu_01", "toolu_02"],
        [],
    ),
    (
        "claude-next-turn-ends-a-call-that-lost-its-result",
        "claude",
        [cc_call(1, "make", message="m1"), cc_call(2, "ls", message="m2")],
        ["toolu_01"],
        [("toolu_02", True)],
    ),
    (
        "claude-text-turn-ends-it-too",
        "claude",
        [cc_call(1, "make", message="m1"), cc_text(2, "done", message="m2")],
        ["toolu_01"],
        [],
    ),
    (
        "claude-sidechain-line-ends-nothing",
        "claude",
        [cc_call(1, "make", message="m1"), cc_call(2, "ls", message="s1", sidechain=True)],
        [],
        [("toolu_01", True), ("toolu_02", True)],
    ),
    (
        "claude-lines-without-message-ids-end-nothing",
        "claude",
        [cc_call(1, "make"), cc_call(2, "ls")],
        [],
        [("toolu_01", True), ("toolu_02", True)],
    ),
    (
        "codex-started-is-running",
        "codex",
        [cx_started(0, "cargo test")],
        [],
        [("item_0", True)],
    ),
    (
        "codex-completed-lets-it-out",
        "codex",
        [cx_started(0, "cargo test"), cx_completed(0, "cargo test", "ok\n", 0)],
        ["item_0"],
        [],
    ),
    (
        "codex-wrapped-events",
        "codex",
        [wrapped(cx_started(0, "ls"), 1), wrapped(cx_completed(0, "ls", "a\n", 0), 2)],
        ["item_0"],
        [],
    ),
    (
        "codex-turn-end-ends-a-call-with-no-completion",
        "codex",
        [cx_started(0, "sleep 600"), {"type": "turn.completed"}],
        ["item_0"],
        [],
    ),
    (
        "codex-rollout-task-complete-ends-it",
        "codex",
        [
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": "shell",
                    "call_id": "c1",
                    "arguments": '{"command": ["ls"]}',
                },
            },
            {"type": "event_msg", "payload": {"type": "task_complete"}},
        ],
        ["c1"],
        [],
    ),
]


@pytest.mark.parametrize(
    ("fmt", "lines", "out", "pending"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_feeder_lets_out_in_order_and_tells_what_runs(
    tmp_path: Path,
    fmt: str,
    lines: list[dict[str, Any]],
    out: list[str],
    pending: list[tuple[str, bool]],
) -> None:
    feeder = _claude(tmp_path) if fmt == "claude" else _codex(tmp_path)
    got: list[dict[str, Any]] = []
    for n, obj in enumerate(lines, 1):
        got.extend(feeder.feed(n, obj))
    assert _ids(got) == out
    held = feeder.pending()
    assert [(str(r["command_id"]), r.get("running") is True) for r in held] == pending
    for rec in held:
        assert not [k for k in rec if k.startswith("_")]  # no converter state leaks out
        if rec.get("running"):
            assert rec["exit_code"] is None and rec["error"] is None


def test_a_call_ended_by_the_next_turn_says_why(tmp_path: Path) -> None:
    feeder = _claude(tmp_path)
    feeder.feed(1, cc_call(1, "make", message="m1"))
    (rec,) = feeder.feed(2, cc_text(2, "next", message="m2"))
    assert rec["result_missing"] is True
    assert rec["exit_code"] is None
    assert rec["error"] is None  # how it ended was never written: exit unknown, not failed
    assert rec["exit_note"] == "no result before the agent's next turn (the result was lost?)"


def test_pending_does_not_consume(tmp_path: Path) -> None:
    feeder = _claude(tmp_path)
    feeder.feed(1, cc_call(1, "make", message="m1"))
    assert feeder.pending() == feeder.pending()
    (rec,) = feeder.feed(2, cc_result(1, "Exit code 2\nboom"))
    assert rec["exit_code"] == 2
    assert "running" not in rec


def test_the_fixture_lines_are_what_the_builders_write(tmp_path: Path) -> None:
    # The builders' lines read back through the importer's own line reader.
    path = tmp_path / "s.jsonl"
    path.write_bytes(line(cc_call(1, "ls", message="m1")) + line(cc_result(1, "a")))
    recs = list(claude_code.convert(str(path), Problems()))
    assert [(r["command_id"], r["argv"], r["exit_code"]) for r in recs] == [
        ("toolu_01", ["bash", "-lc", "ls"], 0)
    ]


def _mutate(value: Any, rnd: random.Random) -> Any:
    """Values of the wrong type anywhere (seeded: the same every run)."""
    odd = [None, 0, -1, 1.5, "", "x", [], {}, [1, "a"], {"a": None}, True, "Exit code 9\n", 2**70]
    if isinstance(value, dict):
        return {
            k: (rnd.choice(odd) if rnd.random() < 0.15 else _mutate(v, rnd))
            for k, v in value.items()
            if rnd.random() > 0.08
        }
    if isinstance(value, list):
        return [rnd.choice(odd) if rnd.random() < 0.1 else _mutate(v, rnd) for v in value]
    return value


@pytest.mark.parametrize(("fmt", "name"), LINE_FIXTURES, ids=[n for _f, n in LINE_FIXTURES])
def test_mutated_sessions_followed_give_what_convert_gives(
    tmp_path: Path, fmt: str, name: str
) -> None:
    rnd = random.Random(name)
    lines = (AGENTS / name).read_text(encoding="utf-8").splitlines()
    for n in range(15):
        path = tmp_path / f"{n}.jsonl"
        out = []
        for text in lines:
            try:
                out.append(json.dumps(_mutate(json.loads(text), rnd)))
            except ValueError:
                out.append(text)  # a line broken on purpose stays broken
        path.write_text("\n".join(out) + "\n", encoding="utf-8")
        run = Run(str(path), [Member(str(path), 0, False)], source_format=fmt)
        follower = ForeignFollower(run, batch=7)
        follower.poll_once()
        while follower.more:
            follower.poll_once()
        follower.finish()
        index = follower.index
        got = [getattr(index.get(r), "raw", None) for r in range(len(index))]
        whole = []
        try:
            for record in importers.convert(str(path), fmt):
                whole.append(json.loads(encode(record)))
        except importers.ImportProblem as exc:  # parts skipped: said after every record
            assert "stopped reading" not in str(exc)
        follower.stop()
        assert got == whole  # the same records, in the same order
