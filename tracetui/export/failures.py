"""Finding the lines that explain a failure in output the agent never saw (for the postmortem).

Used by :mod:`tracetui.export.report` on a re-run's never-seen part and by
:mod:`tracetui.export.kept_unseen` on the kept one: the same patterns, strongest first.
"""

from __future__ import annotations

import re

from tracetui.export.markdown import bounded_lines, num

UNSEEN_LINES = 45
"""Lines of a re-run's never-seen part shown per stream."""
FAILURE_LINES = 8
"""Failure-looking lines listed per stream from the never-seen part."""

# Lines that usually explain a failure, strongest first: the verdict quotes the first hit.
_FAILURE_PATTERNS = [
    re.compile(p)
    for p in (
        r"\b\w*(Error|Exception)\b:",
        r"\bassert(ion)?\b",
        r"^Traceback \(most recent call last\)",
        r"\bpanicked at\b",
        r"^(error|fatal)(\[\w+\])?:",
        r"\b(FAILED|FAILURES?|FAIL)\b",
        r"\berror\b",
    )
]


def _failure_rank(line: str) -> int | None:
    for rank, pattern in enumerate(_FAILURE_PATTERNS):
        if pattern.search(line):
            return rank
    return None


def failure_lines(text: str, limit: int = FAILURE_LINES) -> list[str]:
    """Lines that look like they explain a failure, in order, at most ``limit``."""
    out = []
    for line in text.split("\n"):
        if line.strip() and _failure_rank(line) is not None:
            out.append(line.strip())
            if len(out) >= limit:
                break
    return out


def strongest_failure(text: str) -> str | None:
    """The single line the verdict quotes: the first line of the strongest failure kind."""
    best: tuple[int, str] | None = None
    for line in text.split("\n"):
        rank = _failure_rank(line) if line.strip() else None
        if rank is not None and (best is None or rank < best[0]):
            best = (rank, line.strip())
    return best[1] if best else None


def unseen_window(text: str) -> list[str]:
    """Up to :data:`UNSEEN_LINES` of the never-seen text, from a little before its strongest failure."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    best = strongest_failure(text)
    start = 0
    if best is not None and len(lines) > UNSEEN_LINES:
        first = next(i for i, x in enumerate(lines) if x.strip() == best)
        start = max(0, min(first - UNSEEN_LINES // 3, len(lines) - UNSEEN_LINES))
    end = min(len(lines), start + UNSEEN_LINES)
    body = bounded_lines("\n".join(lines[start:end]), UNSEEN_LINES, keep="start", what="")
    if start:
        body.insert(0, f"[… {num(start)} lines before this not shown here …]")
    if end < len(lines):
        body.append(f"[… {num(len(lines) - end)} more lines not shown here …]")
    return body
