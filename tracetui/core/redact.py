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


def _rule(name: str, regex: str, flags: int = 0) -> Rule:
    return Rule(name, re.compile(regex, flags))


DEFAULT_RULES: tuple[Rule, ...] = (
    _rule("private-key", r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|.*\Z)", re.S),
    _rule("bearer", r"(?P<keep>\b[Bb]earer\s+)[A-Za-z0-9\-._~+/]{8,}=*"),
    _rule("password", r"(?P<keep>\b(?i:password|passwd|pwd)\s*[=:]\s*)(?!\[REDACTED\])[^\s\"'&,;]+"),
    _rule("api-key", r"(?P<keep>\b(?i:api[_-]?key)\s*[=:]\s*)(?!\[REDACTED\])[^\s\"'&,;]+"),
    _rule("aws-key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    _rule("slack-token", r"\bxox[abposr]-[0-9A-Za-z-]{10,}"),
)


@dataclass(slots=True)
class Redactor:
    """Applies a set of rules; configurable with extra patterns."""

    rules: tuple[Rule, ...] = DEFAULT_RULES
    extra: list[Rule] = field(default_factory=list)

    @classmethod
    def with_patterns(cls, patterns: Iterable[str], *, defaults: bool = True) -> "Redactor":
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

    def findings(self, text: str) -> list[str]:
        """Names of the rules that match somewhere in ``text`` (for lint)."""
        return [r.name for r in self.all_rules() if r.pattern.search(text)]


def _replace(m: re.Match[str]) -> str:
    keep = m.groupdict().get("keep") or ""
    return keep + REPLACEMENT
