"""Normalisation rules for diffing a stored preview against a re-run's output.

Two runs of the same command rarely print the same bytes: colours come and go with the
terminal, clocks move, timings jitter, addresses and temp directories are random. Each rule here
replaces one such family with a fixed placeholder so a diff shows what really changed. Every rule
can be switched off on its own (``--no-normalize RULE`` in the CLI, a toggle in the pane).

Rules apply in :data:`RULES` order: ANSI first (a colour code inside a timestamp would hide it),
timestamps before durations (``12:30:05.5s`` is a time, not a duration).
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rule:
    """One normalisation rule."""

    name: str
    """What the user types to switch it off (``ansi``, ``timestamps``…)."""
    description: str
    """One line for help texts."""
    patterns: tuple[tuple[re.Pattern[str], str], ...]
    """(pattern, replacement) pairs applied in order."""


_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
_DAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*"
_ZONE = r"(?:\s?(?:Z|UTC|GMT|[+-]\d{2}:?\d{2})\b|Z)?"
_TIME = r"\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?"

# Paths under the usual temporary roots, and whatever this machine's temp dir is.
_TEMP_ROOTS = sorted(
    {
        "/tmp/",
        "/var/tmp/",
        "/var/folders/",
        "/private/var/folders/",
        "/private/tmp/",
        "/dev/shm/",
        tempfile.gettempdir().rstrip("/") + "/",
    },
    key=len,
    reverse=True,
)
# A path runs until whitespace, a quote, or closing punctuation; `:` is kept out so that
# `/tmp/x/test.py:12:` keeps its line number.
_PATH_CHARS = r"[^\s'\"`:;,()\[\]{}<>]*"

RULES: tuple[Rule, ...] = (
    Rule(
        "ansi",
        "ANSI escape sequences (colours, cursor moves, titles)",
        (
            (re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"), ""),  # OSC … BEL/ST
            (re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]"), ""),  # CSI
            (re.compile(r"\x1b[@-Z\\-_]"), ""),  # two-byte escapes
        ),
    ),
    Rule(
        "timestamps",
        "dates and times (2026-11-01T00:30:00Z, 12:30:05, Nov 29 22:20:48)",
        (
            (re.compile(rf"\b\d{{4}}-\d{{2}}-\d{{2}}[T ]{_TIME}{_ZONE}"), "<TIME>"),
            (
                re.compile(rf"\b(?:{_DAY},?\s+)?\d{{1,2}}\s+{_MONTH}\s+\d{{4}}\s+{_TIME}{_ZONE}"),
                "<TIME>",
            ),
            (
                re.compile(
                    rf"\b(?:{_DAY}\s+)?{_MONTH}\s+\d{{1,2}}\s+{_TIME}(?:\s+\d{{4}})?{_ZONE}"
                ),
                "<TIME>",
            ),
            (re.compile(r"\b\d{4}[-/]\d{2}[-/]\d{2}\b"), "<DATE>"),
            (re.compile(rf"\b{_TIME}{_ZONE}"), "<TIME>"),
        ),
    ),
    Rule(
        "durations",
        "durations (0.42s, 12 ms, 1m30s, 3.5 seconds)",
        (
            (
                re.compile(
                    r"(?<![\w.])(?:\d+(?:\.\d+)?(?:h|m)(?=\d))*\d+(?:\.\d+)?\s?"
                    r"(?:ns|us|µs|μs|ms|s|sec|secs|seconds?|min|mins|minutes?|h|hrs?|hours?)(?!\w)"
                ),
                "<DURATION>",
            ),
        ),
    ),
    Rule(
        "hex",
        "hex addresses (0x7f3a2b1c)",
        ((re.compile(r"\b0x[0-9a-fA-F]{4,}\b"), "<HEX>"),),
    ),
    Rule(
        "tmp",
        "temporary paths (/tmp/…, /var/folders/…)",
        (
            (
                re.compile("(?:" + "|".join(re.escape(r) for r in _TEMP_ROOTS) + ")" + _PATH_CHARS),
                "<TMP>",
            ),
        ),
    ),
)

RULE_NAMES: tuple[str, ...] = tuple(r.name for r in RULES)
_ALIASES = {
    "ansi": "ansi",
    "timestamp": "timestamps",
    "timestamps": "timestamps",
    "dates": "timestamps",
    "times": "timestamps",
    "duration": "durations",
    "durations": "durations",
    "hex": "hex",
    "addresses": "hex",
    "tmp": "tmp",
    "temp": "tmp",
    "paths": "tmp",
}


def parse_rules(names: Iterable[str]) -> frozenset[str]:
    """Rule names as typed by a user (aliases accepted, case ignored); ValueError for unknown ones."""
    out: set[str] = set()
    for raw in names:
        for name in raw.split(","):
            key = name.strip().lower()
            if not key:
                continue
            if key == "all":
                out.update(RULE_NAMES)
                continue
            if key not in _ALIASES:
                raise ValueError(
                    f"unknown normalisation rule {name!r} (rules: {', '.join(RULE_NAMES)}, all)"
                )
            out.add(_ALIASES[key])
    return frozenset(out)


def normalize_text(text: str, enabled: Iterable[str] = RULE_NAMES) -> str:
    """``text`` with every enabled rule applied, in rule order."""
    on = set(enabled)
    for rule in RULES:
        if rule.name in on:
            for pattern, replacement in rule.patterns:
                text = pattern.sub(replacement, text)
    return text
