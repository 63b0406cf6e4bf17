"""The C span writer (export/_otlp_row.c) writes exactly the reference's bytes, or declines.

Three roads write a span of ``export --otlp-json``: the C extension for the ordinary shape of
record, the Python row writer (export/otlp_rows.py) for what C declines, the reference exporter
for what that declines. Every document here is written three ways (the reference
``otlp.write_json``; the fast writer with the C road; the fast writer with ``TRACETUI_NO_C=1``)
and the three must be byte for byte the same: on every fixture under tests/ and sample_runs/, on
a generated set shaped like the benchmark's, on random records, and on hostile lines (odd types,
huge numbers, invalid UTF-8, escapes, control and bidi characters, lone surrogates, missing
fields, repeated and escaped keys: test_otlp_row_hostile.py). The C road must also be the one
taken for ordinary rows (else the comparison proves little), and its pieces (sha256, times,
string escaping) are checked on their own against the Python functions they stand for
(test_otlp_row_pieces.py). The three-ways check and the random records: otlp_row_helpers.py.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from otlp_row_helpers import ROOT, index_of, json_text, random_record, three_ways, write_lines
from records import encode_line, tool

from tracetui.export import otlp, otlp_fast, otlp_rows
from tracetui.model import markers
from tracetui.model.flags import BAD, SIDECAR, TRUNC_UNKNOWN, TRUNCATED

pytestmark = pytest.mark.skipif(otlp_fast._otlp_row is None, reason="C span writer not built")


@pytest.fixture(autouse=True)
def _cold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    monkeypatch.delenv("TRACETUI_NO_C", raising=False)


# ------------------------------------------------------------------ whole documents
def _fixture_paths() -> list[Path]:
    found = [p for p in (ROOT / "tests").rglob("*") if p.is_file() and ".jsonl" in p.name]
    found += [ROOT / "sample_runs" / r for r in ("flaky-billing", "silent-json", "rotated")]
    agents = ROOT / "tests" / "data" / "agents"
    found += [p for p in agents.iterdir() if p.suffix not in (".py", ".txt")]
    return sorted(set(found))


FIXTURES = _fixture_paths()


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(ROOT)) for p in FIXTURES])
def test_fixtures_three_ways(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    three_ways(monkeypatch, [index_of(path)])


def test_benchmark_shaped_set(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A small set from benchmarks/make_big_set.py (the figures' data): all C, all the same."""
    script = ROOT / "benchmarks" / "make_big_set.py"
    subprocess.run(
        [sys.executable, str(script), "--spans", "3000", "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    base = min((p for p in tmp_path.iterdir()), key=lambda p: len(p.name))
    doc, handed = three_ways(monkeypatch, [index_of(base)], batch=250)
    assert doc.count(b'"spanId"') > 2900
    assert handed == 0


# ------------------------------------------------------------------ random records
@pytest.mark.parametrize("seed", range(4))
def test_random_records_three_ways(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    lines = []
    for i in range(700):
        rec = random_record(rng, i)
        lines.append((json_text(rng, rec, escape_keys=rng.random() < 0.03) + "\n").encode())
    doc, handed = three_ways(monkeypatch, [write_lines(tmp_path, lines)], batch=rng.choice([1, 64]))
    spans = doc.count(b'"spanId"')
    assert spans > 500
    assert 0 < handed < spans // 2  # both roads taken, the C one mostly


def test_iter_span_json_is_the_documents_spans(tmp_path: Path) -> None:
    """The per-span iterator (the OTLP/HTTP sender's source) gives the document's spans."""
    rng = random.Random(9)
    lines = [(json_text(rng, random_record(rng, i)) + "\n").encode() for i in range(300)]
    ix = write_lines(tmp_path, lines)
    doc = io.BytesIO()
    otlp_fast.write_json([ix], doc)
    spans = json.loads(doc.getvalue())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert [json.loads(s) for s in otlp_fast.iter_span_json(ix)] == spans
    assert b",".join(otlp_fast.iter_span_json(ix)) in doc.getvalue()


# ------------------------------------------------------------------ tracetui's marker in C
OWN_MARKERS = [
    # (case, preview text, whether C reads it alone: else it asks find_marker)
    ("plain", "a\n…[truncated 808 bytes]…\nz", True),
    ("second-occurrence", "…[truncated x]… then …[truncated 7 bytes]…", True),
    ("no-digits", "…[truncated  bytes]… and the word truncated", False),
    ("digits-to-end", "…[truncated 12", False),
    ("other-family-first", "<response clipped> …[truncated 9 bytes]…", True),
    ("other-family-only", "x ...truncated 12 lines... y", False),
    ("digits-19", "…[truncated 9223372036854775807 bytes]…", True),
    ("digits-19-past", "…[truncated 9223372036854775808 bytes]…", True),
    ("digits-30", "…[truncated " + "9" * 30 + " bytes]…", True),
    ("digits-31", "…[truncated " + "9" * 31 + " bytes]…", True),
    ("zeros", "…[truncated 000 bytes]…", True),
    ("unicode-digit", "…[truncated ١٢ bytes]…", False),
    ("unicode-after-digits", "…[truncated 1٢ bytes]…", False),
    ("unicode-then-own", "…[truncated …[truncated 5 bytes]…", False),
]


@pytest.mark.parametrize(("case", "text", "alone"), OWN_MARKERS, ids=[c[0] for c in OWN_MARKERS])
def test_own_marker_three_ways(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, case: str, text: str, alone: bool
) -> None:
    """C finds tracetui's marker itself; for anything else in a hinted text it asks Python."""
    lines = [
        tool("a", preview_stdout=text, stdout_bytes=None, stdout_truncated=None),
        tool("b", preview_stderr=text, stderr_bytes=100, stderr_cap=10),
        {"command": ["make"], "stdout_tail": text, "stderr_tail": text, "exit_code": 0},
    ]
    ix = write_lines(tmp_path, lines)
    asked = 0
    real = markers.find_marker

    def counting(text: str) -> Any:
        nonlocal asked
        asked += 1
        return real(text)

    monkeypatch.setattr(markers, "find_marker", counting)  # what the C road calls back
    _, handed = three_ways(monkeypatch, [ix])
    assert (handed, asked == 0) == (0, alone)


def test_a_member_name_that_is_no_utf8(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An undecodable file name (a lone surrogate in the path): Python's road, same bytes."""
    name = os.fsencode(tmp_path) + b"/R\xff.jsonl"
    with open(name, "wb") as fh:
        fh.write(b"".join(encode_line(tool(f"c{i}", parent_command_id="c0")) for i in range(3)))
    doc, handed = three_ways(monkeypatch, [index_of(Path(os.fsdecode(name)))])
    assert (doc.count(b'"spanId"'), handed) == (6, 3)  # three spans, three links


def test_one_row_at_a_time_equals_the_runs(tmp_path: Path) -> None:
    """``Rows.span`` (one row) gives the bytes ``Rows.run`` joins, or None where it declines."""
    rng = random.Random(12)
    lines = [(json_text(rng, random_record(rng, i)) + "\n").encode() for i in range(200)]
    ix = write_lines(tmp_path, lines)
    crows = otlp_fast._c_rows(ix, otlp_rows.RowWriter(ix))
    path_json = otlp_fast._path_json(ix.members[0].member.path)
    data = (tmp_path / "R.jsonl").read_bytes()
    singles = []
    for row in range(len(ix)):
        line = data[ix.offset[row] : ix.offset[row] + ix.length[row]]
        if not ix.flags[row] & (BAD | SIDECAR):
            may_mark = ix.flags[row] & (TRUNCATED | TRUNC_UNKNOWN)
            singles.append(crows.span(row, line, may_mark, path_json, ix.line_no[row]))
    crows = otlp_fast._c_rows(ix, otlp_rows.RowWriter(ix))
    spans: list[bytes | None] = []
    row, columns = 0, (ix.offset, ix.length, ix.flags, ix.member_no, ix.line_no)
    while row < len(ix):
        out: list[bytes] = []
        done, n = crows.run(data, 0, row, len(ix), 0, path_json, out, 50, *columns)
        assert n == len(out)
        spans += out
        if done == row:  # declined: what Python would read, here None
            if not ix.flags[row] & (BAD | SIDECAR):
                spans.append(None)
            row += 1
        else:
            row = done
    assert singles == spans
    assert singles.count(None) < len(singles) // 2


@pytest.mark.parametrize("switch", ["TRACETUI_NO_C", "TRACETUI_NO_C_OTLP"])
def test_switches_turn_the_c_road_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, switch: str
) -> None:
    ix = write_lines(tmp_path, [tool(f"c{i}") for i in range(5)])
    ref, off = io.BytesIO(), io.BytesIO()
    otlp.write_json([ix], ref)
    monkeypatch.setenv(switch, "1")
    assert not otlp_fast.c_available()
    handed = 0
    real = otlp_rows.RowWriter.row

    def counting(writer: otlp_rows.RowWriter, *args: Any) -> Any:
        nonlocal handed
        handed += 1
        return real(writer, *args)

    monkeypatch.setattr(otlp_rows.RowWriter, "row", counting)
    otlp_fast.write_json([ix], off)
    assert (off.getvalue(), handed) == (ref.getvalue(), 5)
