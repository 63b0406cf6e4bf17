"""An imported call that was never cut: its preview is the whole stream (record/kept_imported.py).

Only a trace that says so (``stdout_truncated: false``) makes the preview the whole output; an
unknown cut, or a byte count larger than the preview, keeps the old refusal."""

from __future__ import annotations

from typing import Any

import pytest

from tracetui.record.kept_imported import find_agent_kept
from tracetui.record.kept_read import NotKept

TEXT = " M src/lib.rs\n é\n"
SIZE = len(TEXT.encode())


def record(**facts: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "preview_stdout": TEXT,
        "preview_stderr": "",
        "stdout_truncated": False,
        "stderr_truncated": False,
        "stdout_bytes": None,
    }
    return {**base, **facts}


@pytest.mark.parametrize(
    ("raw", "stream", "whole"),
    [
        (record(), "stdout", TEXT),
        (record(stdout_bytes=SIZE), "stdout", TEXT),
        (record(preview_stdout=""), "stdout", ""),
        (record(preview_stderr="warning: x\n"), "stderr", "warning: x\n"),
    ],
    ids=["not-cut", "counted-and-matching", "empty-output", "own-stderr"],
)
def test_an_uncut_preview_is_the_whole_stream(raw: dict[str, Any], stream: str, whole: str) -> None:
    kept = find_agent_kept(raw, stream, "codex")
    data = whole.encode()
    assert (kept.size, kept.unseen_start, kept.unseen_end) == (len(data), len(data), len(data))
    assert (kept.opener().read() if kept.opener else b"") == data
    assert kept.note == (
        f"not cut: this is the preview in the codex trace, and it is the whole {stream} "
        "(complete; not verified by a hash)"
    )


@pytest.mark.parametrize(
    ("raw", "stream", "reason"),
    [
        (record(stdout_truncated=None), "stdout", "which kept no full output"),
        (record(stdout_bytes=SIZE + 1), "stdout", "which kept no full output"),
        (
            record(stdout_truncated=True, preview_stdout="x\n[... 9 bytes truncated ...]\n"),
            "stdout",
            "which kept no full output",
        ),
        (record(), "stderr", "kept no separate stderr"),
    ],
    ids=["cut-unknown", "more-bytes-than-the-preview", "cut", "merged-stderr"],
)
def test_otherwise_nothing_is_kept(raw: dict[str, Any], stream: str, reason: str) -> None:
    with pytest.raises(NotKept, match=reason):
        find_agent_kept(raw, stream, "codex")
