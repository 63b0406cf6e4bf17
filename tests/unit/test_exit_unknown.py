"""Exit unknown is not failure: one rule for the span, the index's facts and the C scanner.

A call failed when its exit is nonzero, or when it has no exit but an ``error`` says why. A call
with no exit and no error is *exit unknown*: flagged EXIT_UNKNOWN, counted apart, never the latest
failure. Each case runs through ``parse_line`` (a Span), ``parse_facts`` and ``build_index`` with
and without the C scanner; all must give the case's ``(failed, exit unknown)``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from records import tool

from tracetui.analysis.rows import RowView, row_cells
from tracetui.export import otlp
from tracetui.export.report import render_report
from tracetui.model import flags
from tracetui.store import fastindex
from tracetui.store.build import build_index
from tracetui.store.reader import BadLine, RawLine, parse_facts, parse_line
from tracetui.store.runset import open_path

SPAN = {"span_type": "tool", "argv": ["pytest"], "stdout_bytes": 3, "stdout_cap": 99}
FEED = {"command": ["make"], "stdout_tail": "ok\n", "stderr_tail": ""}


def imported(**fields: Any) -> dict[str, Any]:
    """An importer's record (``import/<format>``), as importers/_common.py writes them."""
    return tool("i", schema="import/claude-code", **fields)


# (id, record or hand-written line, (failed, exit unknown), C judges it itself)
CASES: list[tuple[str, dict[str, Any] | str, tuple[bool, bool], bool]] = [
    ("exit-zero", tool("a", exit_code=0), (False, False), True),
    ("exit-nonzero", tool("a", exit_code=1), (True, False), True),
    ("exit-signal", tool("a", exit_code=-9), (True, False), True),
    ("exit-zero-with-error", tool("a", exit_code=0, error="odd"), (False, False), True),
    ("exit-nonzero-with-error", tool("a", exit_code=2, error="x"), (True, False), True),
    ("null-with-error", tool("a", exit_code=None, error="spawn failed"), (True, False), True),
    ("null-no-error", tool("a", exit_code=None, error=None), (False, True), True),
    ("null-empty-error", tool("a", exit_code=None, error=""), (False, True), True),
    ("missing-exit-and-error", {k: v for k, v in tool("a").items() if k not in ("exit_code", "error")}, (False, True), True),
    ("null-escaped-error", '{"schema":"tracetui/1","argv":["x"],"exit_code":null,"error":"\\u0041"}', (True, False), True),
    ("null-error-not-a-string", tool("a", exit_code=None, error=True), (True, False), False),
    ("exit-wrong-type", tool("a", exit_code="1"), (False, True), False),
    ("import-null-no-error", imported(exit_code=None), (False, True), True),
    ("import-null-error", imported(exit_code=None, error="is_error: true"), (True, False), True),
    ("span-returncode-null", {**SPAN, "returncode": None}, (False, True), True),
    ("span-returncode-null-error", {**SPAN, "returncode": None, "error": "timeout"}, (True, False), True),
    ("span-returncode-3", {**SPAN, "returncode": 3}, (True, False), True),
    ("feedback-no-exit", FEED, (False, True), True),
    ("feedback-null-error", {**FEED, "exit_code": None, "error": "x"}, (True, False), True),
    ("feedback-exit-0", {**FEED, "exit_code": 0}, (False, False), True),
]  # fmt: skip
IDS = [c[0] for c in CASES]


def line_of(case: dict[str, Any] | str) -> bytes:
    return (case if isinstance(case, str) else json.dumps(case)).encode() + b"\n"


def raw_line(case: dict[str, Any] | str) -> RawLine:
    data = line_of(case)[:-1]
    return RawLine(1, 0, len(data), data)


@pytest.mark.parametrize(("case", "want"), [(c[1], c[2]) for c in CASES], ids=IDS)
def test_span_path(case: dict[str, Any] | str, want: tuple[bool, bool]) -> None:
    span = parse_line(raw_line(case), "E.jsonl")
    assert not isinstance(span, BadLine)
    assert (span.failed, span.exit_unknown) == want


@pytest.mark.parametrize(("case", "want"), [(c[1], c[2]) for c in CASES], ids=IDS)
def test_facts_path(case: dict[str, Any] | str, want: tuple[bool, bool]) -> None:
    facts = parse_facts(raw_line(case), "E.jsonl")
    assert not isinstance(facts, BadLine)
    assert (facts.failed, facts.exit_unknown) == want


def write_cases(tmp_path: Path) -> Path:
    path = tmp_path / "E.jsonl"
    path.write_bytes(b"".join(line_of(c[1]) for c in CASES))
    return path


def index_verdicts(path: Path) -> tuple[dict[str, tuple[bool, bool]], Any, int | None]:
    ix = build_index(open_path(str(path))[0])
    got = {}
    for case_id, f in zip(IDS, ix.flags, strict=True):
        assert not f & flags.BAD, case_id
        # EXIT_UNKNOWN always comes with NULL_EXIT, never with FAILED
        if f & flags.EXIT_UNKNOWN:
            assert f & flags.NULL_EXIT and not f & flags.FAILED, case_id
        got[case_id] = (bool(f & flags.FAILED), bool(f & flags.EXIT_UNKNOWN))
    snap = ix.snapshot()
    return got, snap.stats, snap.latest_failure


WANT = {c[0]: c[2] for c in CASES}
WANT_FAILED = sum(1 for c in CASES if c[2][0])
WANT_UNKNOWN = sum(1 for c in CASES if c[2][1])
LAST_FAILED_ROW = max(i for i, c in enumerate(CASES) if c[2][0])

needs_c = pytest.mark.skipif(
    fastindex._scan is None, reason="the C extension tracetui.store._scan is not built"
)


@pytest.mark.parametrize(
    "use_c", [pytest.param(False, id="python"), pytest.param(True, id="c", marks=needs_c)]
)
def test_index_flags_counts_and_latest_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_c: bool
) -> None:
    if use_c:
        monkeypatch.delenv("TRACETUI_NO_C", raising=False)
    else:
        monkeypatch.setenv("TRACETUI_NO_C", "1")
    got, stats, latest = index_verdicts(write_cases(tmp_path))
    assert got == WANT
    assert (stats.failed, stats.exit_unknown) == (WANT_FAILED, WANT_UNKNOWN)
    assert latest == LAST_FAILED_ROW


@needs_c
def test_c_judges_the_exit_rule_itself(tmp_path: Path) -> None:
    data = write_cases(tmp_path).read_bytes()
    result = fastindex._scan.scan(data, 0, 1)
    slow = set(memoryview(result[8]).cast("i"))
    assert {c[0] for row, c in enumerate(CASES) if row not in slow} == {c[0] for c in CASES if c[3]}


@pytest.mark.parametrize(
    "use_c", [pytest.param(False, id="python"), pytest.param(True, id="c", marks=needs_c)]
)
def test_an_unknown_exit_after_a_failure_is_not_the_latest_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, use_c: bool
) -> None:
    if use_c:
        monkeypatch.delenv("TRACETUI_NO_C", raising=False)
    else:
        monkeypatch.setenv("TRACETUI_NO_C", "1")
    path = tmp_path / "L.jsonl"
    rows = [tool("a", exit_code=1), tool("b", exit_code=None), tool("c", exit_code=None)]
    path.write_bytes(b"".join(line_of(r) for r in rows))
    ix = build_index(open_path(str(path))[0])
    snap = ix.snapshot()
    assert (snap.latest_failure, snap.stats.failed, snap.stats.exit_unknown) == (0, 1, 2)
    assert ix.find(0, flags.FAILED, 1) is None  # e from the failure: no next failure
    assert ix.find(2, flags.FAILED, -1) == 0  # E from the last row: back to the failure
    assert list(RowView(ix, flags.FAILED).rows or []) == [0]  # F: failures only


# ------------------------------------------------------------------ the importers' exit rules
# Each case is one call in a small trace of one format; the verdict is read back through the
# public path (open_path → build_index → span): (exit code, failed, exit unknown, submission).
def _claude(result: dict[str, Any] | None, tool_result: Any = None) -> str:
    base = {"sessionId": "s", "cwd": "/w", "parentUuid": None, "timestamp": "2025-07-01T10:00:00Z"}
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "make"}}
    lines = [
        {
            **base,
            "uuid": "u1",
            "type": "assistant",
            "message": {"role": "assistant", "id": "m1", "content": [call]},
        },
    ]
    if result is not None:
        item = {"type": "tool_result", "tool_use_id": "toolu_1", **result}
        line = {
            **base,
            "uuid": "u2",
            "type": "user",
            "message": {"role": "user", "content": [item]},
        }
        if tool_result is not None:
            line["toolUseResult"] = tool_result
        lines.append(line)
    return "".join(json.dumps(x) + "\n" for x in lines)


def _codex(end: dict[str, Any] | None) -> str:
    start = {
        "id": "item_0",
        "type": "command_execution",
        "command": "/bin/bash -lc 'make'",
        "aggregated_output": "",
        "exit_code": None,
        "status": "in_progress",
    }
    lines = [{"type": "thread.started", "thread_id": "t"}, {"type": "item.started", "item": start}]
    if end is not None:
        lines.append(
            {"type": "item.completed", "item": {**start, "aggregated_output": "x\n", **end}}
        )
    return "".join(json.dumps(x) + "\n" for x in lines)


def _openhands(obs: dict[str, Any] | None) -> str:
    action = {
        "id": 1,
        "timestamp": "2025-05-01T12:00:01",
        "source": "agent",
        "action": "run",
        "args": {"command": "make", "is_input": False},
    }
    history: list[dict[str, Any]] = [action]
    if obs is not None:
        history.append(
            {
                "id": 2,
                "timestamp": "2025-05-01T12:00:02",
                "source": "agent",
                "cause": 1,
                "observation": "run",
                "content": "x",
                **obs,
            }
        )
    return json.dumps({"instance_id": "i", "instruction": "", "history": history}) + "\n"


def _swe(action: str, observation: str) -> str:
    step = {
        "action": action,
        "observation": observation,
        "response": "",
        "thought": "t",
        "state": "{}",
    }
    return json.dumps({"trajectory": [step], "history": [], "info": {"exit_status": "submitted"}})


def _mini2(result: dict[str, Any] | None, command: str = "make") -> str:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": command})},
    }
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "s"},
        {"role": "assistant", "content": "run", "tool_calls": [call], "extra": {"timestamp": 1.0}},
    ]
    if result is not None:
        messages.append(result)
    return json.dumps({"info": {"mini_version": "2.0.0"}, "messages": messages})


def _mini1(command: str, answer: str) -> str:
    messages = [
        {"role": "system", "content": "mini-swe-agent"},
        {"role": "assistant", "content": f"do\n```mswea_bash_command\n{command}\n```"},
        {"role": "user", "content": answer},
    ]
    return json.dumps({"info": {"mini_version": "1.0"}, "messages": messages})


def _inspect(event: dict[str, Any]) -> str:
    ev = {
        "event": "tool",
        "type": "function",
        "id": "call_1",
        "function": "bash",
        "arguments": {"cmd": "make"},
        "result": "x",
        "timestamp": "2025-06-01T10:00:01+00:00",
        "completed": "2025-06-01T10:00:02+00:00",
        "error": None,
        "truncated": None,
        **event,
    }
    sample = {"id": "t", "epoch": 1, "input": "", "target": "", "messages": [], "events": [ev]}
    return json.dumps(
        {"version": 2, "status": "success", "eval": {"task": "t"}, "samples": [sample]}
    )


SUBMIT = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"
DIFF = "diff --git a/x b/x\n+fixed\n"
ERR = {"is_error": True}
# (id, file name, trace text, (exit, failed, exit unknown, submission))
FORMAT_CASES: list[tuple[str, str, str, tuple[int | None, bool, bool, bool]]] = [
    ("claude-exit-code", "s.jsonl", _claude({"content": "Exit code 2\nboom", **ERR}), (2, True, False, False)),
    ("claude-is-error", "s.jsonl", _claude({"content": "sh: tsc: not found", **ERR}), (None, True, False, False)),
    ("claude-ok", "s.jsonl", _claude({"content": "done", "is_error": False}), (0, False, False, False)),
    ("claude-interrupted", "s.jsonl", _claude({"content": "[Request interrupted by user for tool use]", **ERR}), (None, True, False, False)),
    ("claude-interrupted-flag", "s.jsonl", _claude({"content": "partial"}, {"stdout": "partial", "stderr": "", "interrupted": True}), (None, True, False, False)),
    ("claude-refused", "s.jsonl", _claude({"content": "The user doesn't want to proceed with this tool use. The tool use was rejected.", **ERR}), (None, True, False, False)),
    ("claude-no-result", "s.jsonl", _claude(None), (None, False, True, False)),
    ("codex-exit", "c.jsonl", _codex({"exit_code": 3, "status": "failed"}), (3, True, False, False)),
    ("codex-failed-no-code", "c.jsonl", _codex({"status": "failed"}), (None, True, False, False)),
    ("codex-completed-no-code", "c.jsonl", _codex({"status": "completed"}), (None, False, True, False)),
    ("codex-no-end", "c.jsonl", _codex(None), (None, False, True, False)),
    ("openhands-exit", "o.jsonl", _openhands({"extras": {"metadata": {"exit_code": 1}}}), (1, True, False, False)),
    ("openhands-error-observation", "o.jsonl", _openhands({"observation": "error"}), (None, True, False, False)),
    ("openhands-not-finished", "o.jsonl", _openhands({"extras": {"metadata": {"exit_code": -1}}}), (None, False, True, False)),
    ("openhands-no-code", "o.jsonl", _openhands({"extras": {}}), (None, False, True, False)),
    ("openhands-no-observation", "o.jsonl", _openhands(None), (None, False, True, False)),
    ("swe-traceback", "t.traj", _swe("python x.py", "Traceback (most recent call last):\n  x\n"), (None, True, False, False)),
    ("swe-plain", "t.traj", _swe("ls", "a\nb\n"), (None, False, True, False)),
    ("swe-submit", "t.traj", _swe("submit", DIFF), (None, False, True, True)),
    ("mini2-returncode", "m.traj.json", _mini2({"role": "tool", "tool_call_id": "call_1", "content": "<returncode>1</returncode>", "extra": {"returncode": 1}}), (1, True, False, False)),
    ("mini2-timeout", "m.traj.json", _mini2({"role": "tool", "tool_call_id": "call_1", "content": "The command timed out and has been killed."}), (None, True, False, False)),
    ("mini2-no-code", "m.traj.json", _mini2({"role": "tool", "tool_call_id": "call_1", "content": "<output>x</output>"}), (None, False, True, False)),
    ("mini2-submission", "m.traj.json", _mini2({"role": "exit", "content": DIFF, "extra": {"exit_status": "Submitted", "submission": DIFF}}, SUBMIT), (None, False, True, True)),
    ("mini2-no-result", "m.traj.json", _mini2(None), (None, False, True, False)),
    ("mini1-submission", "m.traj.json", _mini1("echo MINI_SWE_AGENT_FINAL_OUTPUT && git diff", DIFF), (None, False, True, True)),
    ("mini1-returncode", "m.traj.json", _mini1("make", "<returncode>0</returncode>\n<output>ok</output>"), (0, False, False, False)),
    ("inspect-sandbox-exit", "i.json", _inspect({"events": [{"event": "sandbox", "action": "exec", "result": 2}]}), (2, True, False, False)),
    ("inspect-error", "i.json", _inspect({"error": {"type": "timeout", "message": "timed out"}}), (None, True, False, False)),
    ("inspect-ok", "i.json", _inspect({}), (0, False, False, False)),
    ("inspect-approval", "i.json", _inspect({"error": {"type": "approval", "message": "no"}}), (None, True, False, False)),
    ("inspect-pending", "i.json", _inspect({"pending": True, "result": "", "completed": None}), (None, False, True, False)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "text", "want"), [c[1:] for c in FORMAT_CASES], ids=[c[0] for c in FORMAT_CASES]
)
def test_importer_exit_rules(
    tmp_path: Path, name: str, text: str, want: tuple[int | None, bool, bool, bool]
) -> None:
    path = tmp_path / name
    path.write_text(text)
    runs = open_path(str(path))
    ix = build_index(runs[0])
    assert runs[0].source_format is not None, runs[0].notes
    assert len(ix) == 1, [ix.get(r) for r in range(len(ix))]
    span = ix.span(0)
    assert span is not None
    assert (span.exit_code, span.failed, span.exit_unknown, span.is_submission) == want
    # the row's bits say the same, so the list, F, e/E and L agree with the span
    f = ix.flags[0]
    assert (bool(f & flags.FAILED), bool(f & flags.EXIT_UNKNOWN)) == want[1:3]
    assert (ix.snapshot().latest_failure is None) == (not want[1])
    if want[2]:
        assert span.exit_note  # an unknown exit always says why no code is known


# ------------------------------------------------------------------ where it shows
def _summary(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tracetui", "summary", str(path), *extra],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_summary_counts_unknown_exits_apart(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(_claude(None))  # the session ended before the result: exit unknown
    got = _summary(path, "--json")
    assert got.returncode == 0, got.stderr
    doc = json.loads(got.stdout)
    assert (doc["spans"], doc["failed"], doc["exit_unknown"], doc["latest_failure"]) == (
        1,
        0,
        1,
        None,
    )
    text = _summary(path)
    assert "exit ?      1 with no exit recorded (not counted as failed)" in text.stdout.splitlines()
    assert "latest failure" not in text.stdout


# (id, trace file name, text, what the list's EXIT cell shows and its style, OTLP status code)
SHOWN: list[tuple[str, str, str, tuple[str, str], int | None]] = [
    ("unknown", "s.jsonl", _claude(None), ("?", "dim"), None),
    ("failed-no-code", "s.jsonl", _claude({"content": "no such file", **ERR}), ("ERR", "null"), 2),
    ("failed-code", "s.jsonl", _claude({"content": "Exit code 2\nx", **ERR}), ("2", "failed"), 2),
    ("ok", "s.jsonl", _claude({"content": "ok", "is_error": False}), ("0", "ok"), None),
    ("submission", "m.traj.json", _mini1("echo MINI_SWE_AGENT_FINAL_OUTPUT", DIFF), ("sub", "dim"), None),
]  # fmt: skip


def _one_row(tmp_path: Path, name: str, text: str) -> Any:
    path = tmp_path / name
    path.write_text(text)
    return build_index(open_path(str(path))[0])


@pytest.mark.parametrize(
    ("name", "text", "cell", "status"), [c[1:] for c in SHOWN], ids=[c[0] for c in SHOWN]
)
def test_list_cell_and_otlp_status(
    tmp_path: Path, name: str, text: str, cell: tuple[str, str], status: int | None
) -> None:
    ix = _one_row(tmp_path, name, text)
    exit_cell = row_cells(ix, 0, ix.get(0))[2]
    assert (exit_cell.text, exit_cell.style) == cell
    (span,) = otlp.iter_spans(ix)
    assert span.get("status", {}).get("code") == status  # unset for an unknown exit, 2 = ERROR
    attrs = {a["key"] for a in span["attributes"]}
    assert ("tracetui.exit_unknown" in attrs) == (cell[1] == "dim")


@pytest.mark.parametrize(
    ("case", "words"),
    [("unknown", "unknown (not recorded)"), ("submission", "unknown (the submission step)")],
)
def test_report_names_an_unknown_exit(tmp_path: Path, case: str, words: str) -> None:
    _id, name, text, _cell, _status = next(c for c in SHOWN if c[0] == case)
    ix = _one_row(tmp_path, name, text)
    report = render_report(ix, 0)
    assert f"exit {words}" in report
    assert "runner error" not in report


@pytest.mark.parametrize(
    ("case", "shown"),
    [("swe-plain", "exit ?"), ("swe-submit", "exit sub"), ("swe-traceback", "exit —")],
)
def test_tail_line_names_the_exit(tmp_path: Path, case: str, shown: str) -> None:
    _id, name, text, _want = next(c for c in FORMAT_CASES if c[0] == case)
    path = tmp_path / name
    path.write_text(text)
    got = subprocess.run(
        [sys.executable, "-m", "tracetui", "tail", str(path), "--once"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert got.returncode == 0, got.stderr
    (line,) = got.stdout.splitlines()
    assert f"  {shown} " in line


def test_summary_text_shows_a_failure_without_a_code_as_a_dash(tmp_path: Path) -> None:
    _id, name, text, _want = next(c for c in FORMAT_CASES if c[0] == "swe-traceback")
    path = tmp_path / name
    path.write_text(text)
    got = _summary(path)
    assert got.returncode == 0, got.stderr
    (line,) = [x for x in got.stdout.splitlines() if x.startswith("latest failure")]
    assert line.startswith("latest failure  exit —  bash -lc 'python x.py'")
