"""Truncation markers: the one tracetui writes, and the families other wrappers write.

A marker in a preview is evidence that bytes were withheld, whatever the flags say. tracetui's own
marker always sits on a line of its own (``"\\n…[truncated N bytes]…\\n"``) so that the kept
windows can be recovered exactly from a preview by :func:`split_preview`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MARKER_TEXT = "…[truncated {n} bytes]…"
_OWN = re.compile(r"\n…\[truncated (\d+) bytes\]…\n")


def marker_line(withheld: int) -> str:
    """The exact text the recorder puts at the clip point (deterministic for a given count)."""
    return "\n" + MARKER_TEXT.format(n=withheld) + "\n"


@dataclass(frozen=True, slots=True)
class Marker:
    """One truncation marker found in a preview."""

    family: str
    """Which wrapper writes this kind of marker (``tracetui``, ``feedback``, ``claude-code``…)."""
    clip: str | None
    """Where the cut was: ``head`` (the start was kept), ``tail``, ``head_tail``, or None if unsaid."""
    count: int | None
    """The withheld amount the marker states; None when it states none, or one too long to read."""
    unit: str | None
    """Unit of ``count``: ``bytes``, ``chars``, ``lines``, ``tokens`` or ``kb``; None with no count."""
    start: int
    """Offset of the marker in the preview text."""
    end: int
    """Offset just past the marker."""


# (family, regex, clip, unit, group holding the count). Order matters: the first match wins, so
# the specific forms of a family come before the generic ones (``<response clipped>`` last of all).
_FAMILIES: list[tuple[str, re.Pattern[str], str | None, str | None, int]] = [
    ("tracetui", re.compile(r"…\[truncated (\d+) bytes\]…"), None, "bytes", 1),
    ("feedback", re.compile(r"\.\.\.truncated (\d+) lines\.\.\."), "tail", "lines", 1),
    # Claude Code: a middle cut, or (newer) a persisted output with a 2 KB preview of its head.
    # (The blank lines around the middle-cut marker belong to it: the kept windows exclude them.)
    (
        "claude-code",
        re.compile(r"(?:\n\n)?\.\.\. \[(\d+) characters truncated\] \.\.\.(?:\n\n)?"),
        "head_tail",
        "chars",
        1,
    ),
    (
        "claude-code",
        re.compile(r"(?:\n\n)?\.\.\. \[(\d+) lines truncated\] \.\.\.(?:\n\n)?"),
        "head_tail",
        "lines",
        1,
    ),
    # The size is Claude Code's formatFileSize: KB, or MB / GB for a bigger output.
    ("claude-code", re.compile(r"Output too large \((\d+(?:\.\d+)?)([KMG])B\)"), "head", "kb", 1),
    ("claude-code", re.compile(r"\(Results are truncated\.[^)]*\)"), "head", None, 0),
    # SWE-agent: the observation limit (their typo "exceeded" kept, "exceed" accepted too).
    (
        "swe-agent",
        re.compile(
            r"Observations should not exceeded? (\d+) characters\. (\d+) characters were elided"
        ),
        "head",
        "chars",
        2,
    ),
    (
        "mini-swe-agent",
        re.compile(r"<elided_chars>\s*(\d+) characters elided\s*</elided_chars>"),
        "head_tail",
        "chars",
        1,
    ),
    (
        "openhands",
        re.compile(r"\[Previous command outputs are truncated\. Showing the last (\d+) lines"),
        "tail",
        None,
        0,
    ),
    (
        "openhands",
        re.compile(r"\[\.\.\. Observation truncated due to length \.\.\.\]"),
        "head_tail",
        None,
        0,
    ),
    (
        "openhands",
        re.compile(r"<response clipped><NOTE>Due to the max output limit"),
        "head",
        None,
        0,
    ),
    (
        "swe-agent",
        re.compile(r"<response clipped><NOTE>(?:To save on context|Observations)"),
        "head",
        None,
        0,
    ),
    (
        "inspect-ai",
        re.compile(r"The output of your call to \S+ was too long to be displayed\."),
        "head_tail",
        None,
        0,
    ),
    ("generic", re.compile(r"<response clipped>"), "head", None, 0),
    ("codex", re.compile(r"…(\d+) tokens truncated…"), "head_tail", "tokens", 1),
    ("codex", re.compile(r"…(\d+) chars truncated…"), "head_tail", "chars", 1),
    (
        "codex",
        re.compile(r"Warning: truncated output \(original token count: (\d+)\)"),
        None,
        None,
        0,
    ),
    (
        "codex",
        re.compile(r"\[\.\.\. omitted (\d+) of (\d+) lines \.\.\.\]"),
        "head_tail",
        "lines",
        1,
    ),
    (
        "codex",
        re.compile(r"\[\.\.\. output truncated to fit (\d+) bytes \.\.\.\]"),
        "head",
        None,
        0,
    ),
    (
        "swe-agent",
        re.compile(r"Old environment output: \((\d+) lines omitted\)"),
        "tail",
        "lines",
        1,
    ),
    # SWE-agent's file viewer shows a window of a file: the lines outside it were never shown.
    ("swe-agent", re.compile(r"\((\d+) more lines below\)"), "head", "lines", 1),
    ("swe-agent", re.compile(r"\((\d+) more lines above\)"), "tail", "lines", 1),
]

# Claude Code states the TOTAL size of a persisted output, not what was withheld; the preview
# that follows this header is what the model saw, so withheld = total - preview.
_PERSISTED_PREVIEW = re.compile(r"Preview \([^)\n]*\):\n")
_PERSISTED_END = "</persisted-output>"
_PERSISTED_ENDINGS = ("\n...\n", "\n")
"""What Claude Code writes after the preview: ``\n...\n`` when there is more, ``\n`` otherwise.
Its own punctuation, not output the model saw."""


def persisted_preview(text: str, start: int = 0) -> tuple[str, bool] | None:
    """``(preview, closed)`` of a Claude Code persisted output whose ``Preview (…):`` header is
    at or after ``start``; None when there is no such header.

    The preview is what follows the header up to the block's closing tag (its last one), less
    the ending Claude Code adds; ``closed`` is False when the tag is missing (the text was cut
    after the header), and the preview then runs to the end of the text. The one rule for what
    the model saw of a persisted output: the marker's withheld count (below) and the kept
    output's unseen range (:mod:`tracetui.record.kept_imported`) both read it here.
    """
    m = _PERSISTED_PREVIEW.search(text, start)
    if m is None:
        return None
    end = text.rfind(_PERSISTED_END, m.end())
    body = text[m.end() : end if end >= 0 else len(text)]
    for ending in _PERSISTED_ENDINGS:
        if body.endswith(ending):
            body = body[: -len(ending)]
            break
    return body, end >= 0


def find_marker(text: str) -> Marker | None:
    """The first known truncation marker in ``text``, or None.

    Cheap when there is none: a quick substring pre-check skips the regexes for most previews.
    """
    if not text or not _maybe_marked(text):
        return None
    for family, pattern, clip, unit, group in _FAMILIES:
        m = pattern.search(text)
        if m is None:
            continue
        count: int | None = None
        if group:
            raw = m.group(group)
            if unit != "kb":
                count = _count(raw)
            else:
                kb = _count_kb(raw, m.group(2))
                count = None if kb is None else _persisted_withheld(text, m.end(), kb)
                unit = "bytes"
        return Marker(family, clip, count, unit if count is not None else None, m.start(), m.end())
    return None


_HINTS = (
    "truncated",
    "clipped",
    "elided",
    "omitted",
    "too large",
    "Truncated",
    "more lines",
    "too long",
)


_MAX_DIGITS = 30
"""A count of more digits is no count (and int() of a few thousand digits would raise)."""


def _count(raw: str) -> int | None:
    return int(raw) if len(raw) <= _MAX_DIGITS else None


def _count_kb(raw: str, unit: str = "K") -> float | None:
    # float() of a long digit string is inf, which int() refuses: such a size is no size.
    return float(raw) * _KB_PER[unit] if len(raw) <= _MAX_DIGITS else None


_KB_PER = {"K": 1, "M": 1 << 10, "G": 1 << 20}


def _persisted_withheld(text: str, after: int, total_kb: float) -> int:
    """Bytes withheld by a Claude Code persisted output: the stated total minus the preview.

    Approximate (the total is stated in KB with one decimal, so to within about 51 bytes). The
    ending Claude Code adds after the preview is not counted as preview.
    """
    total = int(total_kb * 1024)
    found = persisted_preview(text, after)
    if found is None:
        return total
    return max(0, total - len(found[0].encode("utf-8", errors="replace")))


def _maybe_marked(text: str) -> bool:
    return any(h in text for h in _HINTS)  # substring scans beat one regex alternation here


def split_preview(preview: str) -> tuple[str, int | None, str]:
    """Split a tracetui preview at its own marker: ``(before, withheld, after)``.

    Without a marker the whole preview is ``before`` and ``withheld`` is None. For a head cut
    ``after`` is empty, for a tail cut ``before`` is.
    """
    m = _OWN.search(preview)
    if m is None:
        return preview, None, ""
    return preview[: m.start()], _count(m.group(1)), preview[m.end() :]  # 5000 digits: None
