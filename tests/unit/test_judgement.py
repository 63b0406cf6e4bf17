"""One truncation judgement: the span, the index's fast facts and the C scanner agree on every record.

Each case is one line, run through ``parse_line`` (a Span), ``parse_facts`` (the index's facts)
and ``build_index`` with and without the C scanner; all must give the case's exact
``(truncated, hidden bytes, failed)``. The ``c`` column says whether the C scanner must judge the
line itself (True) or may hand it back to Python (False: markers, odd types, absurd numbers).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from records import tool

from tracetui.model import flags
from tracetui.model.truncation import HIDDEN_LIMIT, judge_stream
from tracetui.store import fastindex
from tracetui.store.build import build_index
from tracetui.store.reader import BadLine, RawLine, parse_facts, parse_line
from tracetui.store.runset import open_path

LIMIT = HIDDEN_LIMIT
FEED = {"command": ["make"], "stdout_tail": "ok\n", "stderr_tail": "", "exit_code": 0}
SPAN = {
    "span_type": "tool",
    "argv": ["pytest"],
    "returncode": 0,
    "stdout_bytes": 100,
    "stdout_cap": 8192,
    "stdout_truncated": False,
    "stderr_bytes": 0,
    "stderr_cap": 8192,
    "stderr_truncated": False,
}
OWN = "a\n…[truncated 77 bytes]…\n"


def raw(text: str) -> str:
    """A line written by hand (escapes, repeated keys) rather than by json.dumps."""
    return text


# (id, the record or a hand-written line, (truncated, hidden, failed), C judges it itself)
CASES: list[tuple[str, dict[str, Any] | str, tuple[bool | None, int | None, bool], bool]] = [
    # --- tracetui/1: flags
    ("clean", tool("a"), (False, 0, False), True),
    ("flag-true-under-cap", tool("a", stdout_truncated=True), (True, 0, False), True),
    ("flag-null-bytes-known", tool("a", stdout_truncated=None), (False, 0, False), True),
    ("flag-string-true", tool("a", stdout_truncated="true"), (False, 0, False), False),
    ("flag-int-1", tool("a", stdout_truncated=1), (False, 0, False), False),
    ("flag-list", tool("a", stdout_truncated=[True]), (False, 0, False), False),
    (
        "flag-string-true-over-cap",
        tool("a", stdout_bytes=9000, stdout_truncated="true"),
        (True, 808, False),
        False,
    ),
    (
        "flag-only",
        tool("a", stdout_bytes=None, stdout_cap=None, stdout_truncated=True),
        (True, 0, False),  # stdout's hidden bytes are unknown; stderr's 0 is the known sum
        True,
    ),
    (
        "flag-false-only",
        tool("a", stdout_bytes=None, stdout_cap=None, stdout_truncated=False),
        (False, 0, False),
        True,
    ),
    # --- bytes against the cap
    ("bytes-over-cap-flag-false", tool("a", stdout_bytes=9000), (True, 808, False), True),
    ("bytes-equal-cap", tool("a", stdout_bytes=8192), (False, 0, False), True),
    ("bytes-over-no-cap", tool("a", stdout_bytes=9000, stdout_cap=None), (False, 0, False), True),
    ("bytes-as-string", tool("a", stdout_bytes="9000"), (False, 0, False), False),
    ("bytes-as-bool", tool("a", stdout_bytes=True, stdout_cap=0), (False, 0, False), False),
    ("bytes-float-integral", tool("a", stdout_bytes=9000.0), (True, 808, False), False),
    ("bytes-float-fraction", tool("a", stdout_bytes=9000.5), (False, 0, False), False),
    (
        "no-bytes-no-flag",
        tool("a", stdout_bytes=None, stdout_truncated=None),
        (None, 0, False),
        True,
    ),
    (
        "both-streams-unknown",
        tool(
            "a", stdout_bytes=None, stdout_truncated=None, stderr_bytes=None, stderr_truncated=None
        ),
        (None, None, False),
        True,
    ),
    (
        "both-streams-cut",
        tool("a", stdout_bytes=9000, stderr_bytes=8200, stderr_truncated=True),
        (True, 816, False),
        True,
    ),
    ("stderr-only-cut", tool("a", stderr_bytes=10000), (True, 1808, False), True),
    ("negative-bytes", tool("a", stdout_bytes=-5), (False, 0, False), True),
    ("negative-cap", tool("a", stdout_cap=-1), (True, 4, False), True),
    # --- head / tail window lengths recorded
    (
        "head-bytes",
        tool("a", stdout_bytes=10000, stdout_truncated=True, stdout_head_bytes=2000),
        (True, 8000, False),
        True,
    ),
    (
        "head-and-tail-bytes",
        tool(
            "a",
            stdout_bytes=10000,
            stdout_truncated=True,
            stdout_head_bytes=2000,
            stdout_tail_bytes=2000,
        ),
        (True, 6000, False),
        True,
    ),
    (
        "tail-bytes-beat-the-cap",
        tool("a", stdout_bytes=10000, stdout_tail_bytes=1000),
        (True, 9000, False),
        True,
    ),
    (
        "head-over-bytes",
        tool("a", stdout_bytes=9000, stdout_head_bytes=9500),
        (True, 0, False),
        True,
    ),
    (
        "head-negative",
        tool("a", stdout_bytes=9000, stdout_head_bytes=-1000),
        (True, 10000, False),
        True,
    ),
    (
        "head-string-untruncated",
        tool("a", stdout_head_bytes="x"),
        (False, 0, False),
        False,
    ),
    (
        "head-string-truncated",
        tool("a", stdout_bytes=9000, stdout_head_bytes="x"),
        (True, 808, False),
        False,
    ),
    (
        "head-bytes-no-bytes",
        tool("a", stdout_bytes=None, stdout_truncated=True, stdout_head_bytes=5),
        (True, 0, False),
        True,
    ),
    # --- markers
    (
        "marker-only",
        tool("a", stdout_bytes=None, stdout_cap=None, stdout_truncated=None, preview_stdout=OWN),
        (True, 77, False),
        False,
    ),
    ("marker-with-bytes-under-cap", tool("a", preview_stdout=OWN), (True, 0, False), False),
    (
        "marker-with-flag-false",
        tool("a", stdout_bytes=9000, preview_stdout=OWN),
        (True, 808, False),
        True,  # bytes over the cap decide both answers: the marker changes neither
    ),
    (
        "marker-no-count",
        tool("a", stdout_bytes=None, stdout_truncated=None, preview_stdout="x<response clipped>"),
        (True, 0, False),
        False,
    ),
    (
        "marker-no-count-both-unknown",
        tool(
            "a",
            stdout_bytes=None,
            stdout_truncated=None,
            preview_stdout="x<response clipped>",
            stderr_bytes=None,
            stderr_truncated=None,
        ),
        (True, None, False),
        False,
    ),
    (
        "marker-chars",
        tool(
            "a",
            stdout_bytes=None,
            stdout_truncated=None,
            preview_stdout="a\n\n... [120 characters truncated] ...\n\nb",
        ),
        (True, 120, False),
        False,
    ),
    (
        "marker-lines",
        tool(
            "a", stdout_bytes=None, stdout_truncated=None, preview_stdout="...truncated 9 lines..."
        ),
        (True, 0, False),
        False,
    ),
    (
        "marker-absurd-count",
        tool(
            "a",
            stdout_bytes=None,
            stdout_truncated=None,
            preview_stdout="a\n…[truncated " + "9" * 400 + " bytes]…\n",
        ),
        (True, 0, False),
        False,
    ),
    (
        "marker-count-at-limit",
        tool(
            "a",
            stdout_bytes=None,
            stdout_truncated=None,
            preview_stdout=f"a\n…[truncated {LIMIT} bytes]…\n",
        ),
        (True, 0, False),
        False,
    ),
    (
        "marker-kb-absurd",
        tool(
            "a",
            stdout_bytes=None,
            stdout_truncated=None,
            preview_stdout="Output too large (" + "9" * 400 + "KB)",
        ),
        (True, 0, False),
        False,
    ),
    (
        "marker-spelt-with-escapes",
        raw(
            '{"schema": "tracetui/1", "argv": ["x"], "exit_code": 0, "stdout_cap": 8192, '
            '"preview_stdout": "a\\n\\u2026[trunc\\u0061ted 77 bytes]\\u2026\\n"}\n'
        ),
        (True, 77, False),
        False,
    ),
    (
        "hint-word-but-no-marker",
        tool("a", preview_stdout="the output was truncated by me\n"),
        (False, 0, False),
        False,
    ),
    (
        "ansi-escapes-no-marker",
        raw(
            '{"schema": "tracetui/1", "argv": ["x"], "exit_code": 0, "stdout_bytes": 9, '
            '"stdout_cap": 8192, "stdout_truncated": false, "stderr_bytes": 0, '
            '"stderr_cap": 8192, "stderr_truncated": false, '
            '"preview_stdout": "\\u001b[31mred\\u001b[0m\\n"}\n'
        ),
        (False, 0, False),
        True,
    ),
    (
        "repeated-key-last-wins",
        raw(
            '{"schema": "tracetui/1", "argv": ["x"], "exit_code": 0, "stdout_bytes": 9000, '
            '"stdout_cap": 8192, "stdout_bytes": 3, "stdout_truncated": false, '
            '"stderr_bytes": 0, "stderr_cap": 8192, "stderr_truncated": false}\n'
        ),
        (False, 0, False),
        True,
    ),
    # --- absurd numbers
    (
        "bytes-2-62",
        tool("a", stdout_bytes=2**62, stdout_cap=0, stdout_truncated=True),
        (True, 0, False),
        False,
    ),
    ("bytes-1e30", tool("a", stdout_bytes=10**30, stdout_cap=0), (True, 0, False), False),
    ("bytes-int64-max", tool("a", stdout_bytes=2**63 - 1, stdout_cap=-5), (True, 0, False), False),
    ("bytes-uint64-max", tool("a", stdout_bytes=2**64 - 1), (True, 0, False), False),
    (
        "hidden-just-under-limit",
        tool("a", stdout_bytes=LIMIT - 1, stdout_cap=0),
        (True, LIMIT - 1, False),
        True,
    ),
    ("hidden-at-limit", tool("a", stdout_bytes=LIMIT, stdout_cap=0), (True, 0, False), False),
    (
        "hidden-summed-over-limit",
        tool("a", stdout_bytes=LIMIT - 1, stdout_cap=0, stderr_bytes=LIMIT - 1, stderr_cap=0),
        (True, 2 * LIMIT - 2, False),
        True,
    ),
    (
        "head-absurd-negative",
        tool("a", stdout_bytes=9000, stdout_head_bytes=-(2**62)),
        (True, 0, False),
        False,
    ),
    # --- exit codes
    ("exit-nonzero", tool("a", exit_code=2), (False, 0, True), True),
    # an exit of the wrong type is no exit: with no error, exit unknown (not failed), a problem
    ("exit-string", tool("a", exit_code="0"), (False, 0, False), False),
    ("exit-float-zero", tool("a", exit_code=0.0), (False, 0, False), False),
    ("exit-null", tool("a", exit_code=None, error="spawn failed"), (False, 0, True), True),
    ("exit-null-no-error", tool("a", exit_code=None, error=None), (False, 0, False), True),
    ("exit-huge", tool("a", exit_code=2**40), (False, 0, True), False),
    # --- truncation-span dialect
    ("span-clean", SPAN, (False, 0, False), True),
    (
        "span-cut",
        {**SPAN, "returncode": 1, "stdout_bytes": 24000, "stdout_truncated": True},
        (True, 15808, True),
        True,
    ),
    ("span-lying-flag", {**SPAN, "stdout_bytes": 9000}, (True, 808, False), True),
    ("span-flag-string", {**SPAN, "stdout_truncated": "false"}, (False, 0, False), False),
    # returncode wins over exit_code; null with no error is exit unknown, not a failure
    ("span-returncode-null", {**SPAN, "returncode": None, "exit_code": 0}, (False, 0, False), True),
    (
        "span-no-counts",
        {"span_type": "tool", "argv": ["x"], "returncode": 0, "preview_stdout": "hi"},
        (None, None, False),
        True,
    ),
    # --- feedback-record dialect (no byte counts)
    ("feedback-no-marker", FEED, (None, None, False), True),
    (
        "feedback-lines-marker",
        {**FEED, "stdout_tail": "a\n...truncated 40 lines...\nb\n", "exit_code": 2},
        (True, None, True),
        False,
    ),
    ("feedback-bytes-marker", {**FEED, "stdout_tail": OWN}, (True, 77, False), False),
    ("feedback-tail-not-text", {**FEED, "stdout_tail": 5}, (None, None, False), False),
    ("feedback-tail-null", {**FEED, "stdout_tail": None}, (None, None, False), True),
    ("feedback-runner-failed", {**FEED, "exit_code": None, "error": "x"}, (None, None, True), True),
    # --- an importer's record, read like tracetui/1
    (
        "import-no-counts",
        {"schema": "import/codex", "argv": ["ls"], "exit_code": 0, "preview_stdout": "a"},
        (None, None, False),
        True,
    ),
    (
        "import-marker",
        {
            "schema": "import/codex",
            "argv": ["ls"],
            "exit_code": 0,
            "preview_stdout": "…12 chars truncated…",
        },
        (True, 12, False),
        False,
    ),
]
IDS = [c[0] for c in CASES]


def line_of(case: dict[str, Any] | str) -> bytes:
    return case.encode() if isinstance(case, str) else (json.dumps(case) + "\n").encode()


def raw_line(case: dict[str, Any] | str) -> RawLine:
    data = line_of(case).rstrip(b"\n")
    return RawLine(1, 0, len(data), data)


@pytest.mark.parametrize(("case", "want"), [(c[1], c[2]) for c in CASES], ids=IDS)
def test_span_path(case: dict[str, Any] | str, want: tuple[Any, ...]) -> None:
    span = parse_line(raw_line(case), "B.jsonl")
    assert not isinstance(span, BadLine)
    assert (span.truncated, span.hidden_bytes, span.failed) == want


@pytest.mark.parametrize(("case", "want"), [(c[1], c[2]) for c in CASES], ids=IDS)
def test_facts_path(case: dict[str, Any] | str, want: tuple[Any, ...]) -> None:
    facts = parse_facts(raw_line(case), "B.jsonl")
    assert not isinstance(facts, BadLine)
    assert (facts.truncated, facts.hidden_bytes, facts.failed) == want


@pytest.mark.parametrize(("case", "want"), [(c[1], c[2]) for c in CASES], ids=IDS)
def test_stream_verdicts_are_the_judgement(
    case: dict[str, Any] | str, want: tuple[Any, ...]
) -> None:
    """Each stream of the span carries exactly what judge_stream says of its fields."""
    span = parse_line(raw_line(case), "B.jsonl")
    assert not isinstance(span, BadLine)
    for st in span.streams:
        got = judge_stream(st.bytes, st.cap, st.flag, st.marker, st.head_bytes, st.tail_bytes)
        assert got == (st.truncated, st.hidden_bytes), st.name


def index_rows(path: Path) -> list[tuple[bool | None, int | None, bool]]:
    ix = build_index(open_path(str(path))[0])
    rows = []
    for f, hidden in zip(ix.flags, ix.hidden, strict=True):
        assert not f & flags.BAD
        truncated = True if f & flags.TRUNCATED else (None if f & flags.TRUNC_UNKNOWN else False)
        rows.append(
            (truncated, None if hidden == flags.NO_VALUE else hidden, bool(f & flags.FAILED))
        )
    return rows


def write_cases(tmp_path: Path) -> Path:
    path = tmp_path / "B.jsonl"
    path.write_bytes(b"".join(line_of(c[1]) for c in CASES))
    return path


def test_index_without_c(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_NO_C", "1")
    got = dict(zip(IDS, index_rows(write_cases(tmp_path)), strict=True))
    assert got == {c[0]: c[2] for c in CASES}


needs_c = pytest.mark.skipif(
    fastindex._scan is None, reason="the C extension tracetui.store._scan is not built"
)


@needs_c
def test_index_with_c(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRACETUI_NO_C", raising=False)
    got = dict(zip(IDS, index_rows(write_cases(tmp_path)), strict=True))
    assert got == {c[0]: c[2] for c in CASES}


@needs_c
def test_c_judges_what_it_can_and_hands_back_the_rest(tmp_path: Path) -> None:
    data = write_cases(tmp_path).read_bytes()
    result = fastindex._scan.scan(data, 0, 1)
    slow = set(memoryview(result[8]).cast("i"))
    judged_in_c = {c[0] for row, c in enumerate(CASES) if row not in slow}
    assert judged_in_c == {c[0] for c in CASES if c[3]}


@needs_c
def test_c_hidden_sum_never_overflows() -> None:
    """Rows whose hidden bytes would overflow the scanner's 64-bit sum go to Python instead."""
    line = line_of(
        tool("a", stdout_bytes=LIMIT - 1, stdout_cap=0, stderr_bytes=LIMIT - 1, stderr_cap=0)
    )
    n = 700  # 700 * (2**54 - 2) is past 2**63
    result = fastindex._scan.scan(line * n, 0, 1)
    slow = list(memoryview(result[8]).cast("i"))
    hidden_sum = result[13]
    assert 0 < hidden_sum < 2**63
    assert hidden_sum + len(slow) * (2 * LIMIT - 2) == n * (2 * LIMIT - 2)


@needs_c
def test_c_constants_are_the_model_constants() -> None:
    """The scanner's row bits and column values are the ones tracetui.model.flags defines."""
    c = fastindex._scan
    shared = [
        "FAILED",
        "TRUNCATED",
        "TRUNC_UNKNOWN",
        "NULL_EXIT",
        "EXIT_UNKNOWN",
        "NO_EXIT",
        "NO_VALUE",
    ]
    assert {name: getattr(c, name) for name in shared} == {
        name: getattr(flags, name) for name in shared
    }
    assert c.HIDDEN_LIMIT == HIDDEN_LIMIT
