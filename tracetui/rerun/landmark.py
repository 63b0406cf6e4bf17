"""Where a re-run's never-seen output gets interesting: its first failure or error line.

The re-run pane used to open the never-seen part at its first byte, usually more passing tests.
What a person wants is the line the agent would have acted on: the first ``AssertionError``,
``Traceback``, ``error:``, ``panic``… (else a ``FAILED``). This module decides which line, so the
viewer and any other reader agree; it reads a bounded amount of the part (:data:`SCAN`), in
pieces, and never decodes more than one piece at a time.
"""

from __future__ import annotations

import re

from tracetui.rerun.diff import Output, Windows, read_unseen

SCAN = 4 << 20
"""Bytes of the never-seen part searched at most (a failure further in is left to paging)."""
PIECE = 64 << 10
"""Bytes read at a time."""

ERROR = re.compile(
    rb"Traceback \(most recent call last\)"
    rb"|\b[A-Z]\w*(?:Error|Exception)\b"
    rb"|\b(?:error|fatal|panic)(?:\[\w+\])?:"
    rb"|\bpanicked at\b"
    rb"|^E\s{2,}",
    re.MULTILINE,
)
"""A line that says what went wrong: Python tracebacks and exceptions, pytest's ``E`` lines,
compilers' ``error:``, Go and Rust panics, git's and shells' ``fatal:``."""
VERDICT = re.compile(rb"\bFAILED\b|\bFAIL\b|\bFAILURES\b")
"""A line that only says that something failed (a test runner's progress line): used when no
line says what went wrong."""


def first_failure(new: Output, windows: Windows, scan: int = SCAN) -> int | None:
    """The offset, into the never-seen part, of the start of its first line saying what went
    wrong (:data:`ERROR`), else of its first line saying that something failed (:data:`VERDICT`);
    None when neither is in the first ``scan`` bytes. (A test runner prints ``FAILED`` as it goes
    and the assertion itself at the end: the assertion is what the agent needed.)"""
    for pattern in (ERROR, VERDICT):
        at = _first(new, windows, pattern, min(windows.unseen_bytes, scan))
        if at is not None:
            return at
    return None


def _first(new: Output, windows: Windows, pattern: re.Pattern[bytes], total: int) -> int | None:
    """The start of the first line matching ``pattern`` in the part's first ``total`` bytes."""
    offset = 0
    carry = b""  # the unfinished last line of the previous piece (a bounded part of it)
    carry_from = 0  # where that line starts in the part
    while offset < total:
        piece = read_unseen(new, windows, offset, min(PIECE, total - offset))
        if not piece:
            break
        data = carry + piece
        base = offset - len(carry)
        found = pattern.search(data)
        if found is not None:
            newline = data.rfind(b"\n", 0, found.start())
            return base + newline + 1 if newline >= 0 else carry_from
        cut = data.rfind(b"\n") + 1
        if cut:
            carry_from = base + cut
        # Keep the unfinished line for the next piece (a match may straddle), but only its last
        # PIECE bytes: an endless line must not grow without bound.
        carry = data[max(cut, len(data) - PIECE) :]
        offset += len(piece)
    return None
