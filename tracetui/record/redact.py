"""Redaction of secret-looking text, used on write (recorder) and as a lint rule.

Patterns are plain regexes; each match is replaced by ``[REDACTED]`` (keeping a recognisable
prefix such as ``password=`` so a reader still knows what was there). Hashes are never taken
over redacted text: the recorder hashes the raw bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

REPLACEMENT = "[REDACTED]"


@dataclass(frozen=True, slots=True)
class Rule:
    """One redaction pattern."""

    name: str
    """Short name reported by lint (``bearer``, ``aws-key``…)."""
    pattern: re.Pattern[str]
    """What to find. Group ``keep``, when present, is kept in front of the replacement."""
    partial_end: re.Pattern[str] | None = None
    """A visible start of this secret at the end of a window cut there; None: no such shape."""
    partial_start: re.Pattern[str] | None = None
    """A visible end of this secret at the start of a window cut there; None: no such shape."""


def _rule(name: str, regex: str, flags: int = 0, *, end: str = "", start: str = "") -> Rule:
    return Rule(
        name,
        re.compile(regex, flags),
        re.compile(end) if end else None,
        re.compile(start) if start else None,
    )


# The partial shapes (`end=`, `start=`) are what is still recognisable when a cap cuts the secret
# and no withheld context is at hand: a key-id prefix, a token prefix, a key block's last lines.
DEFAULT_RULES: tuple[Rule, ...] = (
    _rule(
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|.*\Z)",
        re.S,
        start=r"\A[A-Za-z0-9+/=\s]*-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----",
    ),
    _rule(
        "bearer",
        r"(?P<keep>\b[Bb]earer\s+)[A-Za-z0-9\-._~+/]{8,}=*",
        end=r"(?P<keep>\b[Bb]earer\s+)[A-Za-z0-9\-._~+/]+=*\Z",
    ),
    _rule(
        "password", r"(?P<keep>\b(?i:password|passwd|pwd)\s*[=:]\s*)(?!\[REDACTED\])[^\s\"'&,;]+"
    ),
    _rule("api-key", r"(?P<keep>\b(?i:api[_-]?key)\s*[=:]\s*)(?!\[REDACTED\])[^\s\"'&,;]+"),
    _rule("aws-key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", end=r"\b(?:AKIA|ASIA)[0-9A-Z]{0,16}\Z"),
    _rule("slack-token", r"\bxox[abposr]-[0-9A-Za-z-]{10,}", end=r"\bxox[abposr]-[0-9A-Za-z-]*\Z"),
)


@dataclass(slots=True)
class Redactor:
    """Applies a set of rules; configurable with extra patterns."""

    rules: tuple[Rule, ...] = DEFAULT_RULES
    extra: list[Rule] = field(default_factory=list)

    @classmethod
    def with_patterns(cls, patterns: Iterable[str], *, defaults: bool = True) -> Redactor:
        """Defaults plus user regexes (``--redact REGEX``). Invalid regexes raise ``re.error``."""
        extra = [_rule(f"custom-{i + 1}", p) for i, p in enumerate(patterns)]
        return cls(DEFAULT_RULES if defaults else (), extra)

    def all_rules(self) -> tuple[Rule, ...]:
        return (*self.rules, *self.extra)

    def redact(self, text: str) -> tuple[str, int]:
        """Return ``(redacted text, number of replacements)``."""
        total = 0
        for rule in self.all_rules():
            text, n = rule.pattern.subn(_replace, text)
            total += n
        return text, total

    def redact_window(
        self,
        text: str,
        *,
        before: str = "",
        after: str = "",
        cut_before: bool = False,
        cut_after: bool = False,
    ) -> tuple[str, int]:
        """Redact a window shown from a longer stream: ``(redacted window, replacements)``.

        ``before``/``after`` are withheld text just outside the window (context the reader never
        sees). A secret that straddles the window edge matches in the joined text and its visible
        part is replaced, so a cap that cuts ``password=hunter2`` in two leaks neither half.
        ``cut_before``/``cut_after`` say the window edge is a cut: with no context to decide, a
        partial secret touching the cut (``AKIAIOSF``, ``xoxb-12``…) is replaced all the same.
        """
        if not (before or after or cut_before or cut_after):
            return self.redact(text)
        lo, hi = len(before), len(before) + len(text)
        joined = before + text + after
        spans: list[tuple[int, int]] = []
        for rule in self.all_rules():
            for m in rule.pattern.finditer(joined):
                keep_end = m.end("keep") if "keep" in rule.pattern.groupindex else -1
                start, end = max(m.start(), keep_end, lo), min(m.end(), hi)
                if start < end:  # only the part inside the window matters (and nothing when the
                    spans.append((start - lo, end - lo))  # window only holds the `password=`)
        text, count = _replace_spans(text, spans)
        edge: list[tuple[int, int]] = []
        patterns = [r.partial_end for r in self.all_rules() if cut_after and r.partial_end]
        patterns += [r.partial_start for r in self.all_rules() if cut_before and r.partial_start]
        for pattern in patterns:
            found = pattern.search(text)
            if found is not None:
                keep_end = found.end("keep") if "keep" in pattern.groupindex else found.start()
                if keep_end < found.end():
                    edge.append((keep_end, found.end()))
        text, more = _replace_spans(text, edge)
        return text, count + more

    def findings(self, text: str) -> list[str]:
        """Names of the rules that match somewhere in ``text`` (for lint)."""
        return [r.name for r in self.all_rules() if r.pattern.search(text)]


def _replace_spans(text: str, spans: list[tuple[int, int]]) -> tuple[str, int]:
    """Replace each span (merged when they overlap) by the replacement text; count them."""
    if not spans:
        return text, 0
    spans.sort()
    merged = [list(spans[0])]
    for start, end in spans[1:]:
        if start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, pos = [], 0
    for start, end in merged:
        out += [text[pos:start], REPLACEMENT]
        pos = end
    out.append(text[pos:])
    return "".join(out), len(merged)


def _replace(m: re.Match[str]) -> str:
    keep = m.groupdict().get("keep") or ""
    return keep + REPLACEMENT
