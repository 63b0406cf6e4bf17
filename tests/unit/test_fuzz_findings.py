"""What a differential fuzzing pass over the C extensions found (2026-12-01), each held here.

- A value nested a thousand deep (JSON parsers accept 1,024 levels) made ``str()`` raise
  RecursionError while the span read it: ``lint`` and ``export`` of the whole run crashed
  (exit 3). It now reads as a short text (``model.fields.as_text``).
- A field nested past orjson's 255 writable levels in another agent's trace (a Claude Code
  ``sessionId``) made writing the converted record raise: every command on that session exited
  3. Such a value is kept as a short text, and its call stays (``importers._common.json_safe``).
- The OTLP C writer copied zero bytes from a NULL buffer (an empty ``started_at`` on the first
  row; undefined behaviour, caught by UBSan) and took a negative first row unchecked.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from records import encode_line, tool

from tracetui.export import otlp, otlp_fast, otlp_rows
from tracetui.importers._common import MAX_DEPTH, json_safe
from tracetui.model.fields import Fields, as_text
from tracetui.store.build import build_index
from tracetui.store.live_import import encode
from tracetui.store.runset import open_path


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tracetui", *args], capture_output=True, text=True, timeout=120
    )


def deep_line(depth: int, field: str) -> bytes:
    return b"".join(
        [
            b'{"schema":"tracetui/1","command_id":"a","argv":["x"],"exit_code":1,"',
            field.encode(),
            b'":',
            b"[" * depth,
            b"]" * depth,
            b"}\n",
        ]
    )


@pytest.mark.parametrize("depth", [10, 300, 1000, 1023, 1024], ids=lambda d: f"depth-{d}")
@pytest.mark.parametrize("field", ["agent_note", "tool_name", "error", "cwd"])
def test_a_deep_value_in_our_record_is_read_not_crashed_on(
    tmp_path: Path, depth: int, field: str
) -> None:
    run = tmp_path / "B.jsonl"
    run.write_bytes(deep_line(depth, field) + encode_line(tool("b")))
    lint = cli("lint", str(run))
    assert lint.returncode == 1, lint.stderr  # findings, not a crash
    assert "internal error" not in lint.stderr and "Traceback" not in lint.stderr
    export = cli("export", "--otlp-json", str(tmp_path / "out.json"), str(run))
    assert export.returncode == 0, export.stderr
    assert len(json.loads((tmp_path / "out.json").read_text())["resourceSpans"]) == 1
    summary = cli("summary", "--json", str(run))
    assert summary.returncode == 0
    got = json.loads(summary.stdout)
    # 1,024 levels in all is orjson's limit: one more and the line is a bad line, said so.
    bad = 1 if depth + 1 > 1024 else 0
    assert (got["spans"], len(got["bad_lines"])) == (2 - bad, bad)


def test_as_text_of_a_value_too_deep_for_str() -> None:
    assert as_text(nested(5)) == "[[[[[]]]]]"
    assert as_text(nested(100_000)) == "[a list nested too deeply to show]"
    f = Fields({"agent_note": nested(100_000)})
    assert f.str_("agent_note") == "[a list nested too deeply to show]"
    assert f.problems == ["agent_note: expected a string, got list"]


SESSION = (
    '{{"sessionId": {deep}, "uuid": "u-2", "type": "assistant", "message": {{"role": "assistant",'
    ' "content": [{{"type": "tool_use", "id": "t1", "name": "Bash", "input": {{"command": "ls"}}}}]}}}}\n'
)


@pytest.mark.parametrize("depth", [64, 256, 1000], ids=lambda d: f"depth-{d}")
def test_a_deep_field_in_another_agents_trace_keeps_the_call(tmp_path: Path, depth: int) -> None:
    trace = tmp_path / "session.jsonl"
    trace.write_text(SESSION.format(deep="[" * depth + "]" * depth))
    summary = cli("summary", "--json", str(trace))
    assert summary.returncode == 0, summary.stderr
    assert json.loads(summary.stdout)["spans"] == 1
    for args in (["lint"], ["export", "--otlp-json", str(tmp_path / "o.json")]):
        done = cli(*args, str(trace))
        assert done.returncode in (0, 1), done.stderr
        assert "internal error" not in done.stderr


def test_json_safe_cuts_deep_values_and_big_ints() -> None:
    record = {"deep": nested(1000), "big": 2**70, "ok": [1, {"a": "b"}], "n": -(2**63)}
    safe = json_safe(record)
    assert safe["big"] == str(2**70) and safe["n"] == -(2**63) and safe["ok"] == [1, {"a": "b"}]
    cut = safe["deep"]
    for _ in range(MAX_DEPTH - 1):
        cut = cut[0]
    assert cut == "[a list nested too deeply to keep]"
    orjson.dumps(safe)  # writable now
    assert orjson.loads(encode(record)) == orjson.loads(orjson.dumps(safe))


@pytest.mark.parametrize("stamp", ["", " ", "2026-11-02T09:00:00Z"], ids=["empty", "space", "time"])
def test_first_row_start_times_export_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stamp: str
) -> None:
    run = tmp_path / "B.jsonl"
    run.write_bytes(encode_line(tool("a", started_at=stamp)) + encode_line(tool("b")))
    index = build_index(open_path(str(run))[0])
    ref, fast = io.BytesIO(), io.BytesIO()
    assert otlp.write_json([index], ref) == otlp_fast.write_json([index], fast) == 2
    assert fast.getvalue() == ref.getvalue()


@pytest.mark.skipif(not otlp_fast.c_available(), reason="OTLP C writer not built")
def test_the_c_writer_refuses_a_negative_first_row(tmp_path: Path) -> None:
    run = tmp_path / "B.jsonl"
    run.write_bytes(encode_line(tool("a")))
    index = build_index(open_path(str(run))[0])
    rows = otlp_fast._c_rows(index, otlp_rows.RowWriter(index))
    assert rows is not None
    columns = (index.offset, index.length, index.flags, index.member_no, index.line_no)
    data = run.read_bytes()
    with pytest.raises(ValueError, match="first must not be negative"):
        rows.run(data, 0, -1, 1, 0, b'"B.jsonl"', bytearray(), 10, *columns)
