"""Normalisation of the three dialects into the span model, truncation judged from evidence."""

from __future__ import annotations

from typing import Any

import pytest
from records import tool

from tracetui.model.spans import FEEDBACK, TRACETUI, TRUNCATION_SPAN, NotASpan, normalize

TRUNC_SPAN = {
    "span_type": "tool",
    "tool_name": "pytest",
    "argv": ["pytest"],
    "cwd": ".",
    "returncode": 1,
    "preview_stdout": "x" * 512,
    "preview_stderr": "",
    "stdout_bytes": 24000,
    "stdout_cap": 8192,
    "stdout_truncated": True,
    "stderr_bytes": 0,
    "stderr_cap": 8192,
    "stderr_truncated": False,
    "stdout_sha256": None,
    "stderr_sha256": "00",
    "stdout_head_sha256": "aa",
    "stdout_tail_sha256": "bb",
    "encoding": "utf-8",
    "ok_preview": False,
}
FEED = {
    "command": ["make", "test"],
    "stdout_tail": "a\n...truncated 40 lines...\nb\n",
    "stderr_tail": "",
    "exit_code": 2,
    "duration_ms": 5,
    "started_at": "2026-11-02T09:00:00Z",
    "agent_note": "expect pass",
}

# (case id, record, expected (dialect, exit, truncated, hidden, stdout clip, argv))
CASES: list[tuple[str, dict[str, Any], tuple[Any, ...]]] = [
    ("tracetui-clean", tool("a"), (TRACETUI, 0, False, 0, None, ("echo", "hi"))),
    (
        "tracetui-head-cut",
        tool(
            "a",
            stdout_bytes=24000,
            stdout_truncated=True,
            stdout_clip="head",
            stdout_head_bytes=8192,
            preview_stdout="x\n…[truncated 15808 bytes]…\n",
        ),
        (TRACETUI, 0, True, 15808, "head", ("echo", "hi")),
    ),
    (
        "tracetui-head-tail",
        tool(
            "a",
            stdout_bytes=10000,
            stdout_truncated=True,
            stdout_clip="head_tail",
            stdout_head_bytes=2000,
            stdout_tail_bytes=2000,
        ),
        (TRACETUI, 0, True, 6000, "head_tail", ("echo", "hi")),
    ),
    (
        "lying-flag-bytes-over-cap",
        tool("a", stdout_bytes=9000, stdout_truncated=False),
        (TRACETUI, 0, True, 808, "head", ("echo", "hi")),
    ),
    (
        "marker-only-evidence",
        tool("a", preview_stdout="abc\n…[truncated 99 bytes]…\n"),
        (TRACETUI, 0, True, 0, "head", ("echo", "hi")),
    ),
    ("truncation-span", TRUNC_SPAN, (TRUNCATION_SPAN, 1, True, 15808, "head", ("pytest",))),
    ("feedback-marker", FEED, (FEEDBACK, 2, True, None, "tail", ("make", "test"))),
    (
        "feedback-no-marker",
        {**FEED, "stdout_tail": "ok\n"},
        (FEEDBACK, 2, None, None, None, ("make", "test")),
    ),
    (
        "feedback-runner-failed",
        {**FEED, "exit_code": None, "error": "spawn failed"},
        (FEEDBACK, None, True, None, "tail", ("make", "test")),
    ),
    (
        "import-dialect",
        {"schema": "import/codex", "argv": ["ls"], "exit_code": 0, "preview_stdout": "a"},
        ("codex", 0, None, None, None, ("ls",)),
    ),
]


@pytest.mark.parametrize(("record", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_normalize(record: dict[str, Any], expected: tuple[Any, ...]) -> None:
    span = normalize(record)
    got = (
        span.dialect,
        span.exit_code,
        span.truncated,
        span.hidden_bytes,
        span.stdout.clip,
        span.argv,
    )
    assert got == expected


def test_marker_only_counts_its_bytes_when_no_byte_counts() -> None:
    rec = {
        "schema": "tracetui/1",
        "argv": ["x"],
        "exit_code": 0,
        "preview_stdout": "a\n…[truncated 77 bytes]…\n",
    }
    assert normalize(rec).hidden_bytes == 77


def test_unknown_keys_are_kept_for_the_raw_view() -> None:
    span = normalize(tool("a", my_extension={"k": 1}))
    assert span.raw["my_extension"] == {"k": 1}


WRONG_TYPES = [
    ("exit-as-string", {"exit_code": "1"}, "exit_code: expected an integer, got str"),
    ("bytes-as-string", {"stdout_bytes": "3"}, "stdout_bytes: expected an integer, got str"),
    ("flag-as-int", {"stdout_truncated": 1}, "stdout_truncated: expected true or false, got int"),
    ("argv-as-string", {"argv": "ls -l"}, "argv: expected an argv list, got a shell string"),
    ("preview-as-list", {"preview_stdout": ["a"]}, "preview_stdout: expected a string, got list"),
]


@pytest.mark.parametrize(
    ("fields", "problem"), [c[1:] for c in WRONG_TYPES], ids=[c[0] for c in WRONG_TYPES]
)
def test_wrong_types_become_problems_not_crashes(fields: dict[str, Any], problem: str) -> None:
    span = normalize(tool("a", **fields))
    assert problem in span.problems


NOT_SPANS = [
    ("list", [1, 2], "expected a JSON object, got list"),
    ("number", 3, "expected a JSON object, got int"),
    ("unknown-object", {"hello": 1}, "not a span record of any known dialect (keys: hello)"),
]


@pytest.mark.parametrize(
    ("value", "message"), [c[1:] for c in NOT_SPANS], ids=[c[0] for c in NOT_SPANS]
)
def test_not_a_span(value: Any, message: str) -> None:
    with pytest.raises(NotASpan, match=message.replace("(", r"\(").replace(")", r"\)")):
        normalize(value)
