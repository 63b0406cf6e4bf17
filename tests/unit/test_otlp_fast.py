"""The fast OTLP/JSON writer (export/otlp_fast.py) writes exactly the reference's bytes.

``otlp.write_json`` (a Span per row, a dict per attribute) is the reference. The fast writer
must match it byte for byte on every fixture, every case table of the lint and OTLP tests, a
generated set with hostile rows mixed in (with and without the C scanner, in small batches and
large), and the edges of its own shortcuts: fields of odd types, times, ids, markers, batches.
It must also take its fast road for ordinary rows (else the comparison proves little).
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import test_lint_fast
import test_otlp
from records import Line, encode_line, imported, tool

from tracetui.export import otlp, otlp_fast, otlp_rows
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path


@pytest.fixture(autouse=True)
def _cold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")


def index_of(path: Path) -> RunIndex:
    return build_index(open_path(str(path))[0])


def write(tmp_path: Path, lines: Sequence[Line], name: str = "B.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"".join(encode_line(x) for x in lines))
    return path


def both(indexes: list[RunIndex], batch: int = otlp_fast.BATCH) -> tuple[bytes, int]:
    """The fast writer's document, after checking it against the reference's."""
    ref, fast = io.BytesIO(), io.BytesIO()
    n_ref = otlp.write_json(indexes, ref)
    n_fast = otlp_fast.write_json(indexes, fast, batch=batch)
    assert fast.getvalue() == ref.getvalue()
    assert n_fast == n_ref
    return fast.getvalue(), n_fast


class Fallbacks:
    """Counts the rows the fast writer hands to the reference path."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.rows = 0
        real = otlp_rows.parse_line

        def counting(*args: Any) -> Any:
            self.rows += 1
            return real(*args)

        monkeypatch.setattr(otlp_rows, "parse_line", counting)


# ------------------------------------------------------------------ fixtures and case tables
FIXTURES = test_lint_fast.FIXTURE_PATHS


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixtures_same_bytes(path: Path) -> None:
    both([index_of(path)])


TABLES = [*test_lint_fast.TABLES, ("otlp-records", test_otlp.RECORDS)]


@pytest.mark.parametrize(("case", "lines"), TABLES, ids=[c[0] for c in TABLES])
def test_case_tables_same_bytes(tmp_path: Path, case: str, lines: list[Any]) -> None:
    both([index_of(write(tmp_path, lines))])


def test_several_runs_one_document(tmp_path: Path) -> None:
    a = index_of(write(tmp_path, [tool("a"), tool("b", parent_command_id="a")], "A.jsonl"))
    b = index_of(write(tmp_path, [tool("a", exit_code=3)], "B.jsonl"))
    doc, n = both([a, b], batch=1)
    assert n == 3
    runs = [r["resource"]["attributes"][1]["value"] for r in json.loads(doc)["resourceSpans"]]
    assert [r["stringValue"].rsplit("/", 1)[-1] for r in runs] == ["A.jsonl", "B.jsonl"]


# ------------------------------------------------------------------ the shortcuts' edges
ODD_VALUES: list[Any] = [None, 0, -1, 2**63, 2**64 - 1, 1.5, 3.0, 1e300, True, "", "x", []]
ODD_VALUES += [["a", 1], {}]
FIELDS = sorted(
    {k for k, _ in otlp_rows._FIELDS} | {"schema", "kind", "span_type", "source_line", "meta"}
)


@pytest.mark.parametrize("field", FIELDS)
def test_every_field_with_odd_values(tmp_path: Path, field: str) -> None:
    """Each value in turn, in a record of each dialect: the two writers agree."""
    lines: list[Line] = []
    for n, value in enumerate(ODD_VALUES):
        lines.append(tool(f"t{n}", **{field: value}))
        lines.append(imported(f"i{n}", **{field: value}))
        feedback = {"command": ["make"], "stdout_tail": "x", "exit_code": 1, "command_id": f"f{n}"}
        lines.append({**feedback, field: value})
        span = {"span_type": "tool", "argv": ["pytest"], "returncode": 0, "command_id": f"s{n}"}
        lines.append({**span, field: value})
    both([index_of(write(tmp_path, lines))], batch=7)


TIMES = [
    "2026-11-02T09:00:00Z",
    "2026-11-02T09:00:59.123456789Z",
    "2026-11-02T09:00:60Z",  # a leap second, read as :59
    "2026-11-02 09:00:00.5+05:30",
    "2026-11-02T09:00:00.1234567891-0800",
    "2026-11-02t09:00:00z",
    "  2026-11-02T09:00:00Z  ",
    "2026-02-30T09:00:00Z",  # no such day: time unknown
    "2026-11-02T24:00:00Z",
    "2026-11-02T09:00:00+24:00",  # no such zone
    "1969-12-31T23:59:59.999Z",
    "yesterday",
    "",
    None,
]


def test_times(tmp_path: Path) -> None:
    lines = [tool(f"c{n}", started_at=t, duration_ms=n * 1.5) for n, t in enumerate(TIMES)]
    # The same minute again after another: the remembered minute must not leak its validity.
    lines += [tool(f"d{n}", started_at=t) for n, t in enumerate(reversed(TIMES))]
    doc, _ = both([index_of(write(tmp_path, lines))])
    spans = json.loads(doc)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert spans[1]["startTimeUnixNano"] == "1793610059123456789"


STREAM_CASES = [
    ("plain", {}),
    ("cut-flag", {"stdout_truncated": True, "stdout_bytes": 9000}),
    ("cut-bytes", {"stdout_bytes": 9000, "stdout_truncated": False}),
    ("marker-only", {"preview_stdout": "a\n…[truncated 808 bytes]…\n"}),
    ("marker-no-bytes", {"stdout_bytes": None, "preview_stdout": "…[truncated 8 bytes]…"}),
    ("marker-other", {"preview_stderr": "x\n<response clipped><NOTE>Observations"}),
    ("clip-odd", {"stdout_truncated": True, "stdout_clip": "middle"}),
    ("clip-tail", {"stdout_truncated": True, "stdout_clip": "tail"}),
    ("windows", {"stdout_bytes": 9000, "stdout_head_bytes": 10, "stdout_tail_bytes": 20}),
    ("unknown", {"stdout_bytes": None, "stdout_truncated": None}),
    ("huge-hidden", {"stdout_bytes": 2**62, "stdout_cap": 1}),
    ("items", {"stdout_items": 40, "preview_stdout_items": 3, "stdout_full_sha256": "ef" * 32}),
    ("submission", {"kind": "submission"}),
    ("signal", {"exit_code": -9}),
    ("runner-error", {"exit_code": None, "error": "cannot start"}),
    ("exit-unknown", {"exit_code": None}),
    ("no-name", {"tool_name": None, "argv": ["/usr/bin/env", "x"]}),
    ("nothing", {"tool_name": None, "argv": None}),
    ("unsafe-text", {"agent_note": "a\u202eb\u200bc\x85", "preview_stdout": "\u2066x"}),
    ("number-id", {"command_id": 7, "parent_command_id": 7}),
    ("empty-id", {"command_id": "", "parent_command_id": ""}),
]


@pytest.mark.parametrize(("case", "fields"), STREAM_CASES, ids=[c[0] for c in STREAM_CASES])
def test_judged_fields(tmp_path: Path, case: str, fields: dict[str, Any]) -> None:
    lines = [tool("first"), {**tool("x", parent_command_id="first"), **fields}, tool("y", **fields)]
    both([index_of(write(tmp_path, lines))])


def test_duplicated_ids_and_missing_parents(tmp_path: Path) -> None:
    lines = [tool("a"), tool("a", exit_code=1), tool("b", parent_command_id="a")]
    lines += [tool("a"), tool("c", parent_command_id="gone"), tool(None), tool(None)]
    both([index_of(write(tmp_path, lines))], batch=2)


def test_a_vanished_member_is_left_out(tmp_path: Path) -> None:
    write(tmp_path, [tool("old")], "B.jsonl.1")
    ix = index_of(write(tmp_path, [tool("new", parent_command_id="old")]))
    (tmp_path / "B.jsonl.1").unlink()
    _, n = both([ix])
    assert n == 1


# ------------------------------------------------------------------ a generated hostile set
@pytest.mark.parametrize(
    ("scanner", "batch"), [("c", 1000), ("c", 3), ("python", 1000)], ids=["c", "c-b3", "python"]
)
def test_hostile_set_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scanner: str, batch: int
) -> None:
    if scanner == "python":
        monkeypatch.setenv("TRACETUI_NO_C", "1")
    rng = random.Random(18)
    members = {"B.jsonl.1": range(0, 1500), "B.jsonl": range(1500, 3000)}
    for name, rows in members.items():
        lines = [test_lint_fast.hostile_line(rng, i) for i in rows]
        (tmp_path / name).write_bytes(b"".join(lines))
    fallbacks = Fallbacks(monkeypatch)
    _, n = both([index_of(tmp_path / "B.jsonl")], batch=batch)
    assert n > 2500
    assert 0 < fallbacks.rows < n // 2  # both roads are taken, the fast one mostly


def test_ordinary_rows_take_the_fast_road(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows: list[Line] = []
    for i in range(200):
        cut = {"stdout_bytes": 9000, "stdout_truncated": True, "stdout_clip": "head"}
        rows.append(tool(f"c{i}", parent_command_id=f"c{i - 1}" if i % 3 else None, **cut))
        rows.append(imported(f"i{i}"))
        rows.append({"command": ["make"], "stdout_tail": "…[truncated 9 bytes]…", "exit_code": 1})
    fallbacks = Fallbacks(monkeypatch)
    _, n = both([index_of(write(tmp_path, rows))])
    assert (n, fallbacks.rows) == (600, 0)
