"""How the re-run pane (:mod:`tracetui.ui.widgets.rerun_pane`) words and colours what it shows:
style names for verdicts and diff lines, exit codes as text. Pure; the pane maps the style names
to the theme."""

from __future__ import annotations

from rich.text import Text

from tracetui.rerun import diff

VERDICT_STYLE = {
    diff.IDENTICAL: "good",
    diff.BOTH_MATCH: "good",
    diff.HEAD_MATCHES: "warn",
    diff.TAIL_MATCHES: "warn",
    diff.DIFFERS: "bad",
    diff.UNKNOWN: "dim",
}


def diff_style(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "label"
    if line.startswith("@@"):
        return "hunk"
    if line.startswith("+"):
        return "added"
    if line.startswith("-"):
        return "removed"
    return ""


def newline(t: Text) -> None:
    if t.plain and not t.plain.endswith("\n"):
        t.append("\n")


def exit_text(code: int | None) -> str:
    return "none" if code is None else str(code)
