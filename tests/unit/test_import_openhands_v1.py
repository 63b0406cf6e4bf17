"""OpenHands V1 (the software-agent SDK's typed events) through the public path: open_path →
build_index → span(row), for every shape the events come in (one JSON array, the SDK's events
folder, one event per line, an evaluation output.jsonl, an object holding ``items``), plus the
sniffing that tells V1 from the older OpenHands events.

The fixtures are written by tests/data/agents/make_fixtures_v1.py."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tracetui.importers import sniff
from tracetui.store import build as build_mod
from tracetui.store import runset

AGENTS = Path(__file__).resolve().parents[1] / "data" / "agents"
ARRAY = AGENTS / "openhands_v1_events.json"
FOLDER = AGENTS / "openhands_v1_conv"
B = ["bash", "-lc"]
EVENTS: list[dict[str, Any]] = json.loads(ARRAY.read_text(encoding="utf-8"))

# (id, argv, exit, error, truncated, clip) for every call of the array fixture, in order.
SPANS: list[tuple[str, list[str], int | None, str | None, bool | None, str | None]] = [
    ("toolu_01", [*B, "ls"], 0, None, False, None),
    ("toolu_02", [*B, "pytest -q tests/test_checkout.py"], 1, None, False, None),
    ("toolu_03", [*B, "npm start"], None, None, False, None),
    ("toolu_04", [*B, "C-c"], 130, None, False, None),
    ("toolu_05", [*B, "make build"], 0, None, True, "head_tail"),
    (
        "toolu_06",
        ["file_editor", '{"command": "view", "path": "/workspace/shop/big.py"}'],
        0,
        None,
        True,
        "head_tail",
    ),
    (
        "toolu_07",
        ["file_editor", '{"command": "view", "path": "/workspace/shop/gone.py"}'],
        None,
        "tool reported an error (no exit code recorded): "
        "The path /workspace/shop/gone.py does not exist.",
        False,
        None,
    ),
    (
        "toolu_08",
        ["terminal", "{}"],
        None,
        'OpenHands reported an error: Error validating args {"cmd": "ls"} for tool '
        "'terminal': command missing",
        None,
        None,
    ),
    (
        "toolu_09",
        [*B, "rm -rf /tmp/cache"],
        None,
        "not run: rejected by the user: Not in my home directory, please.",
        False,
        None,
    ),
    (
        "toolu_11",
        [*B, "git status"],
        None,
        "tool reported an error (no exit code recorded): "
        "No previous running command to interact with.",
        False,
        None,
    ),
    ("toolu_12", [*B, "python -m pytest"], None, None, None, None),
]


def _spans(path: Path) -> tuple[runset.Run, list[Any]]:
    runs = runset.open_path(str(path))
    assert len(runs) == 1
    ix = build_mod.build_index(runs[0])
    spans = [ix.span(row) for row in range(len(ix))]
    assert all(s is not None for s in spans)
    return runs[0], spans


def _facts(span: Any) -> tuple[Any, ...]:
    return (
        span.command_id,
        list(span.argv),
        span.exit_code,
        span.error,
        span.stdout.truncated,
        span.stdout.clip,
    )


def _jsonl(tmp: Path) -> Path:
    path = tmp / "events.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in EVENTS), encoding="utf-8")
    return path


def _items(tmp: Path) -> Path:
    path = tmp / "search.json"
    path.write_text(json.dumps({"items": EVENTS, "next_page_id": None}), encoding="utf-8")
    return path


def _gzip(tmp: Path) -> Path:
    path = tmp / "events.json.gz"
    path.write_bytes(gzip.compress(ARRAY.read_bytes()))
    return path


def _copy_folder(tmp: Path) -> Path:
    """The SDK's layout written fresh: every event of the array, one file each."""
    events = tmp / "conv" / "events"
    events.mkdir(parents=True)
    for i, ev in enumerate(EVENTS):
        (events / f"event-{i:05d}-{i:08x}-aaaa.json").write_text(json.dumps(ev), encoding="utf-8")
    (tmp / "conv" / "base_state.json").write_text('{"id": "c"}', encoding="utf-8")
    return tmp / "conv"


SHAPES = [
    ("array", lambda tmp: ARRAY),
    ("json-lines", _jsonl),
    ("items-object", _items),
    ("gzip", _gzip),
    ("sdk-folder", _copy_folder),
    ("sdk-events-folder", lambda tmp: _copy_folder(tmp) / "events"),
]


@pytest.mark.parametrize("make", [s[1] for s in SHAPES], ids=[s[0] for s in SHAPES])
def test_every_shape_gives_the_same_calls(tmp_path: Path, make: Any) -> None:
    run, spans = _spans(make(tmp_path))
    assert run.source_format == "openhands-v1"
    assert run.notes == []
    assert [_facts(s) for s in spans] == SPANS


def test_the_fixture_folder_is_one_run_of_its_first_events() -> None:
    run, spans = _spans(FOLDER)
    assert (run.source_format, run.base) == ("openhands-v1", str(FOLDER / "events"))
    assert [_facts(s) for s in spans] == SPANS[:3]
    assert (
        spans[0].raw["source_file"].endswith("event-00002-a0001-0000-4000-8000-000000000001.json")
    )


def test_evaluation_output_jsonl_ids_name_the_instance(tmp_path: Path) -> None:
    path = tmp_path / "output.jsonl"
    rows = [{"instance_id": f"repo__{n}", "history": EVENTS[:6], "metrics": {}} for n in (1, 2)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    run, spans = _spans(path)
    assert run.source_format == "openhands-v1"
    assert [s.command_id for s in spans] == [
        f"repo__{n}:toolu_0{i}" for n in (1, 2) for i in (1, 2)
    ]
    assert spans[0].raw["source_line"] == 1 and spans[2].raw["source_line"] == 2


# (call id, facts on the record or span)
DETAILS: list[tuple[str, dict[str, Any]]] = [
    ("toolu_01", {"forgotten_by_condenser": True, "cwd": "/workspace/shop", "duration_ms": 1000.0}),
    ("toolu_01", {"agent_note": "Look around first.", "started_at": "2025-09-01T10:00:02.000000"}),
    (
        "toolu_03",
        {"exit_note": "no exit code: the command was still running (no new output for a while)"},
    ),
    ("toolu_04", {"parent_command_id": "toolu_03", "rerunnable": False}),
    (
        "toolu_05",
        {
            "full_output_save_dir": "/home/dev/.openhands/conv1/observations",
            "full_output_file": "/home/dev/.openhands/conv1/observations/"
            "bash_output_20250901_100010_123.txt",
        },
    ),
    ("toolu_06", {"source_ok": True, "source_ok_field": "is_error: false"}),
    ("toolu_07", {"source_ok": False, "source_ok_field": "is_error: true"}),
    ("toolu_08", {"not_executed": True, "source_ok_field": "AgentErrorEvent"}),
    (
        "toolu_09",
        {
            "not_executed": True,
            "preview_stdout": "Action rejected: Not in my home directory, please.",
        },
    ),
    (
        "toolu_12",
        {
            "result_missing": True,
            "exit_note": "no observation: the conversation stopped with an error "
            "(LLMBadRequestError: The model refused the request.)",
        },
    ),
]


@pytest.mark.parametrize(
    ("cid", "facts"), DETAILS, ids=[f"{d[0]}-{i}" for i, d in enumerate(DETAILS)]
)
def test_call_details(cid: str, facts: dict[str, Any]) -> None:
    _run, spans = _spans(ARRAY)
    span = next(s for s in spans if s.command_id == cid)
    for key, want in facts.items():
        got = (
            getattr(span, key)
            if key in ("cwd", "duration_ms", "agent_note", "started_at", "parent_command_id")
            else span.raw.get(key)
        )
        assert got == want, key


def test_the_preview_is_what_the_model_read() -> None:
    _run, spans = _spans(ARRAY)
    c_c = next(s for s in spans if s.command_id == "toolu_04")
    assert c_c.stdout.preview == (
        "[Below is the output of the previous command.]\n^C\n"
        "[The command completed with exit code 130. CTRL+C was sent.]"
    )


# (case, how the command's end is written, exit, error, exit_note)
MINUS_ONE = [
    (
        "interrupted",
        {"suffix": "\n[The command was interrupted by user request. The process received SIGINT.]"},
        None,
        "interrupted: the command got SIGINT before it finished (no exit code)",
        None,
    ),
    (
        "hard-timeout-suffix",
        {"suffix": "\n[The command timed out after 120.0 seconds. You may wait longer.]"},
        None,
        None,
        "no exit code: the command timed out, still running when OpenHands stopped waiting",
    ),
    (
        "timeout-flag",
        {"suffix": "", "timeout": True},
        None,
        None,
        "no exit code: the command timed out, still running when OpenHands stopped waiting",
    ),
    ("code-in-metadata-only", {"suffix": "", "drop_top": True, "meta_code": 3}, 3, None, None),
    ("no-code-no-error", {"suffix": "", "top": None}, None, None, None),
]


@pytest.mark.parametrize(
    ("how", "code", "error", "note"), [m[1:] for m in MINUS_ONE], ids=[m[0] for m in MINUS_ONE]
)
def test_how_a_terminal_call_ended(
    tmp_path: Path, how: dict[str, Any], code: int | None, error: str | None, note: str | None
) -> None:
    act, obs = json.loads(json.dumps(EVENTS[6])), json.loads(json.dumps(EVENTS[7]))
    o = obs["observation"]
    o["metadata"]["suffix"] = how["suffix"]
    o["metadata"]["exit_code"] = how.get("meta_code", -1)
    o["exit_code"] = how.get("top", -1)
    o["timeout"] = how.get("timeout", False)
    if how.get("drop_top"):
        del o["exit_code"]
    path = tmp_path / "events.json"
    path.write_text(json.dumps([act, obs]), encoding="utf-8")
    _run, spans = _spans(path)
    assert (spans[0].exit_code, spans[0].error, spans[0].raw.get("exit_note")) == (
        code,
        error,
        note,
    )


SNIFF = [
    ("event-line", json.dumps(EVENTS[2]) + "\n", "openhands-v1"),
    ("pretty-array", json.dumps(EVENTS[:4], indent=2), "openhands-v1"),
    ("one-event-file", json.dumps(EVENTS[3]), "openhands-v1"),
    (
        "instance-with-v1-history",
        json.dumps({"instance_id": "x", "history": EVENTS[:4]}) + "\n",
        "openhands-v1",
    ),
    (
        "instance-with-v0-history",
        json.dumps({"instance_id": "x", "history": [{"id": 1, "source": "agent", "action": "run"}]})
        + "\n",
        "openhands",
    ),
    (
        "v0-event-line",
        json.dumps({"id": 3, "source": "agent", "action": "run"}) + "\n",
        "openhands",
    ),
    ("kind-but-no-event", json.dumps({"kind": "Widget", "id": 1}) + "\n", None),
]


@pytest.mark.parametrize(("text", "want"), [s[1:] for s in SNIFF], ids=[s[0] for s in SNIFF])
def test_sniff(tmp_path: Path, text: str, want: str | None) -> None:
    path = tmp_path / "trace.json"
    path.write_text(text, encoding="utf-8")
    assert sniff(str(path)) == want


def test_the_older_openhands_fixture_is_still_the_older_format() -> None:
    assert sniff(str(AGENTS / "openhands_output.jsonl")) == "openhands"


def test_summary_cli_counts_the_calls() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tracetui", "summary", str(ARRAY), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (out.returncode, out.stderr) == (0, "")
    facts = json.loads(out.stdout)
    assert (facts["spans"], facts["truncated"], facts["bad_lines"]) == (11, 2, [])
    assert facts["chains"] == [
        {"root": "toolu_03", "attempts": ["toolu_03", "toolu_04"], "final_exit_code": 130}
    ]


def test_a_broken_event_file_in_the_folder_is_noted(tmp_path: Path) -> None:
    folder = _copy_folder(tmp_path) / "events"
    bad = sorted(os.listdir(folder))[3]
    (folder / bad).write_text('{"kind": "Observat', encoding="utf-8")
    run, spans = _spans(folder)
    assert len(run.notes) == 1
    assert run.notes[0].startswith("openhands-v1 import: 11 tool call(s) imported; 1 problem(s): ")
    assert bad in run.notes[0]
    assert spans[0].raw.get("result_missing") is True  # its observation was the broken file


def test_a_conversation_error_names_only_the_calls_before_it(tmp_path: Path) -> None:
    act = EVENTS[25]  # python -m pytest, never answered
    error = EVENTS[26]
    later = json.loads(json.dumps(act).replace("toolu_12", "toolu_13").replace("a0012", "a0013"))
    path = tmp_path / "events.json"
    path.write_text(json.dumps([act, error, later]), encoding="utf-8")
    _run, spans = _spans(path)
    assert [s.raw.get("exit_note") for s in spans] == [
        "no observation: the conversation stopped with an error "
        "(LLMBadRequestError: The model refused the request.)",
        "no observation recorded (the conversation ended before the tool returned?)",
    ]


def _big_system_prompt() -> dict[str, Any]:
    """A system prompt with its tools, bigger than the 64 KB head: the SDK writes ``kind``
    last, so the head never shows it."""
    tools = [{"name": f"tool{i}", "description": "d" * 1000} for i in range(80)]
    return {
        "id": "s0",
        "timestamp": "2025-09-01T10:00:00.000000",
        "source": "agent",
        "system_prompt": {"type": "text", "text": "You are an agent."},
        "tools": tools,
        "kind": "SystemPromptEvent",
    }


@pytest.mark.parametrize("shape", ["array", "sdk-folder"])
def test_a_head_without_any_kind_is_still_v1(tmp_path: Path, shape: str) -> None:
    events = [_big_system_prompt(), *EVENTS[2:4]]
    if shape == "array":
        path = tmp_path / "events.json"
        path.write_text(json.dumps(events), encoding="utf-8")
    else:
        path = tmp_path / "events"
        path.mkdir()
        for i, ev in enumerate(events):
            (path / f"event-{i:05d}-{i:08x}-bbbb.json").write_text(json.dumps(ev), "utf-8")
    assert len(json.dumps(events[0])) > 64 << 10
    run, spans = _spans(path)
    assert (run.source_format, [s.command_id for s in spans]) == ("openhands-v1", ["toolu_01"])


def test_event_lines_whose_first_line_is_huge(tmp_path: Path) -> None:
    first = _big_system_prompt()
    first["tools"] = [{"name": "t", "description": "d" * (2 << 20)}]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in [first, *EVENTS[2:4]]), "utf-8")
    run, spans = _spans(path)
    assert (run.notes, [s.command_id for s in spans]) == ([], ["toolu_01"])
