"""Exit unknown is not failure: one rule for the span, the index's facts and the C scanner.

A call failed when its exit is nonzero, or when it has no exit but an ``error`` says why. A call
with no exit and no error is *exit unknown*: flagged EXIT_UNKNOWN, counted apart, never the latest
failure. Each case runs through ``parse_line`` (a Span), ``parse_facts`` and ``build_index`` with
and without the C scanner; all must give the case's ``(failed, exit unknown)``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from records import tool

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
    assert ix.find(0, flags.FAILED, 1) is None
