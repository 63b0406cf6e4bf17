"""An adversarial review of lint's chosen reading (the scanner's verdicts, the quick reading of
the rows only TT019 and TT022 may fire on) and of summary's suspicion count: hostile records
where the scanner's marks, the byte looks and the rules could disagree, each held to the full
reading (every row, every rule), ``lint_index(ix, every_row=True)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from records import tool

from tracetui.analysis.lint import Issue, lint_index
from tracetui.analysis.suspicions import CODES, count_suspicions, suspicious_rows
from tracetui.model import marks
from tracetui.store import fastindex
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="C scanner not built")


@pytest.fixture(autouse=True)
def _cold(monkeypatch: pytest.MonkeyPatch) -> None:
    """The marks come from the scanner, never from a cached index."""
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")


def index_of(path: Path) -> RunIndex:
    return build_index(open_path(str(path))[0])


def write_lines(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "R.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def per_code_rows(found: list[Issue]) -> dict[str, int]:
    """Rows firing each incident code, as ``count_suspicions`` counts them."""
    counts = dict.fromkeys(CODES, 0)
    for _file, _line, code in {(i.file, i.line, i.code) for i in found if i.code in CODES}:
        counts[code] += 1
    return counts


def assert_agree(path: Path) -> list[Issue]:
    """Lint's chosen reading, its full reading and summary's count agree on ``path``."""
    full = lint_index(index_of(path), every_row=True)
    assert lint_index(index_of(path)) == full
    ix = index_of(path)
    assert count_suspicions(ix) == per_code_rows(full)
    by_row = {(ix.location(r)[1], c) for r, codes in suspicious_rows(ix).items() for c in codes}
    assert by_row == {(i.line, i.code) for i in full if i.code in CODES}
    return full


def cut(cid: str, **fields: Any) -> dict[str, Any]:
    """A tracetui/1 record whose stdout was cut (its tail kept), that breaks no contract rule."""
    defaults: dict[str, Any] = {
        "exit_code": 0,
        "stdout_bytes": 9000,
        "stdout_truncated": True,
        "stdout_clip": "tail",
        "stdout_sha256": None,
        "ok_preview": False,
        "preview_stdout": "x" * 10,
    }
    return tool(cid, **(defaults | fields))


def line(rec: dict[str, Any]) -> str:
    return json.dumps(rec, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------ a note only nested
def test_nested_note_of_a_retry_is_no_note(tmp_path: Path) -> None:
    """A cut retry of a cut parent (another command: no blind retry) with a field of an odd type
    and no note of its own, whose only ``agent_note`` is inside another object: nothing
    predicted success, lint says so, and summary's count must not take the nested note for the
    record's (its byte look trusted the one occurrence of the key on a row the scanner judged)."""
    parent = cut("a", agent_note="expect it to fail")
    retry = cut("b", parent_command_id="a", argv=["echo", "other"], duration_ms="slow")
    del retry["agent_note"]
    retry["meta"] = {"agent_note": "expect green"}
    path = write_lines(tmp_path, [line(parent), line(retry)])
    ix = index_of(path)
    assert ix.marks[1] == marks.TYPES  # judged by the scanner, no note of its own
    found = assert_agree(path)
    assert [i.code for i in found] == ["TT014"]


# ------------------------------------------------------------------ byte counts only nested
def test_cut_of_unknown_size_with_a_nested_byte_count(tmp_path: Path) -> None:
    """A cut stream with no byte count of its own (TT020 fires), on a line the scanner leaves to
    Python (its preview holds a marker's word, no marker), whose only ``stdout_bytes`` is inside
    another object: summary's byte look took the nested count for the record's and skipped
    TT020. (Not a tool span: TT001 would stop it.)"""
    rec = cut("a", span_type="llm", preview_stdout="the word truncated, and no marker")
    del rec["stdout_bytes"]
    rec["meta"] = {"stdout_bytes": 5}
    path = write_lines(tmp_path, [line(rec)])
    assert index_of(path).marks[0] == marks.ALL
    found = assert_agree(path)
    assert [i.code for i in found] == ["TT020"]
