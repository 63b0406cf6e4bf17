"""Markdown building blocks of the postmortem (:mod:`tracetui.export.report`): numbers and sizes
in words, and trace text put safely in code spans and fenced blocks, bounded in lines and width.

Trace text is untrusted: it is neutralised and only ever placed inside code, with a fence longer
than any backtick run it holds, so it cannot close its own span or block.
"""

from __future__ import annotations

import re

from tracetui.model.text import neutralize, neutralize_line


def num(n: int | float | None) -> str:
    """``16,014``; ``?`` when unknown."""
    return "?" if n is None else f"{int(n):,}"


def share(part: int | None, whole: int | None) -> str:
    """``66%`` (``<1%`` for a sliver); empty when it cannot be told."""
    if part is None or not whole or part <= 0:
        return ""
    pct = 100 * part / whole
    return "<1%" if pct < 1 else f"{round(pct)}%"


def duration(ms: float | None) -> str:
    if ms is None:
        return "?"
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    minutes, seconds = divmod(int(ms // 1000), 60)
    return f"{minutes}m {seconds:02d}s"


def _longest_run(text: str, ch: str = "`") -> int:
    runs = re.findall(re.escape(ch) + "+", text)
    return max((len(r) for r in runs), default=0)


def code_span(text: str, *, cell: bool = False) -> str:
    """Untrusted one-line text as a code span no backtick inside can close.

    The only way trace text enters running Markdown: inside code nothing is markup, HTML or an
    autolink. In a table ``cell`` a pipe is escaped: GitHub splits cells at a bare ``|`` even
    inside code.
    """
    text = neutralize_line(text)
    if cell:
        text = text.replace("|", "\\|")
    ticks = "`" * (_longest_run(text) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def fence(lines: list[str]) -> list[str]:
    """A fenced block around already-neutralised lines, longer than any backtick run in them."""
    ticks = "`" * max(3, _longest_run("\n".join(lines)) + 1)
    return [f"{ticks}text", *lines, ticks]


LINE_CHARS = 400
"""Longest line shown in a fenced block; longer ones are cut with a note."""


def bounded_lines(text: str, limit: int, *, keep: str, what: str) -> list[str]:
    """At most ``limit`` neutralised lines of ``text`` from its ``start`` or ``end``, elision noted."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    dropped = max(0, len(lines) - limit)
    lines = lines[-limit:] if keep == "end" else lines[:limit]
    shown = [_cut(neutralize(x).replace("\t", "    ")) for x in lines]
    if dropped and what:
        note = f"[… {num(dropped)} {what} not shown here …]"
        if keep == "end":
            shown.insert(0, note)
        else:
            shown.append(note)
    return shown


def _cut(line: str) -> str:
    if len(line) <= LINE_CHARS:
        return line
    return line[:LINE_CHARS] + f" [… {num(len(line) - LINE_CHARS)} more characters …]"


# ------------------------------------------------------------------ re-runs from the sidecar
