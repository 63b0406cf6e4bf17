"""Redaction of secret-looking text: one set of patterns for the recorder, re-runs and lint.

The patterns are the rule table of :mod:`tracetui.record.redact_rules`; each match is replaced by
``[REDACTED]`` (keeping a recognisable prefix such as ``password=`` so a reader still knows what
was there). Hashes are never taken over redacted text: the recorder hashes the raw bytes.

Entry points: :meth:`Redactor.redact` (a text), :meth:`Redactor.redact_window` (a window cut
from a longer stream), :meth:`Redactor.redact_argv` (an argv list, item by item, so a flag and
its value in two items are still seen together), :meth:`Redactor.redact_bytes` (a whole output
in memory; chunk by chunk it is :class:`tracetui.record.redact_stream.StreamRedactor`),
:meth:`Redactor.findings` (lint). :func:`redacted_argv_refusal` tells re-run not to run an argv that holds redactions.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tracetui.record.redact_rules import (
    ARG_SEP,
    DEFAULT_RULES,
    REPLACEMENT,
    Rule,
    make_rule,
)

_WORD_BITS = {
    w: 1 << i for i, w in enumerate(dict.fromkeys(h for r in DEFAULT_RULES for h in r.hints))
}
"""The default rules' hint words, a bit each, as the one-pass finder reports them."""

try:
    from tracetui.record import _hints  # type: ignore[attr-defined]

    _hints.set_words([w.encode() for w in _WORD_BITS])
    _found: Callable[[str | bytes], int | None] | None = _hints.found
except ImportError:  # built without its C part: every word is looked for on its own
    _found = None

Span = tuple[int, int, str]
"""``(start, end, rule name)`` of one replacement in a text."""
Match = tuple[int, int, int, str]
"""``(match start, start, end, rule name)``: a :data:`Span` and where its whole match begins."""


@dataclass(slots=True)
class Redactor:
    """Applies a set of rules; configurable with extra patterns."""

    rules: tuple[Rule, ...] = DEFAULT_RULES
    extra: list[Rule] = field(default_factory=list)

    @classmethod
    def with_patterns(cls, patterns: Iterable[str], *, defaults: bool = True) -> Redactor:
        """Defaults plus user regexes (``--redact REGEX``). Invalid regexes raise ``re.error``."""
        extra = [make_rule(f"custom-{i + 1}", p) for i, p in enumerate(patterns)]
        return cls(DEFAULT_RULES if defaults else (), extra)

    def all_rules(self) -> tuple[Rule, ...]:
        return (*self.rules, *self.extra)

    def spans(self, text: str, lo: int = 0, hi: int | None = None) -> list[Span]:
        """What every rule would replace in ``text``, clipped to ``[lo, hi)``; empty parts dropped.

        The ``keep`` part of a match is not replaced, so ``password=`` alone yields nothing.
        """
        return [(start, end, name) for _first, start, end, name in self.matches(text, lo, hi)]

    def matches(
        self, text: str, lo: int = 0, hi: int | None = None, *, pos: int = 0
    ) -> list[Match]:
        """:meth:`spans`, each with where its whole match begins (its ``keep`` part included).

        Matches begin at ``pos`` or later; the text before it is context for look-behinds only.
        """
        hi = len(text) if hi is None else hi
        found: list[Match] = []
        folded: str | None = None
        present: dict[str, bool] = {}  # each word looked for once per text
        bits = _found(text) if _found is not None else None  # None: not ASCII, or no C part
        low: str | None = None
        where: dict[str, list[int]] = {}  # each word's offsets, found once per text
        for rule in self.all_rules():
            if rule.hints:
                mask = _mask(rule.hints) if bits is not None else 0
                if mask:
                    assert bits is not None
                    if not bits & mask:
                        continue
                else:
                    folded = _fold(text) if folded is None else folded
                    if not any(_has(folded, h, present) for h in rule.hints):
                        continue
            keeps = "keep" in rule.pattern.groupindex
            if bits is not None and rule.hints and rule.hint_offset is not None:
                low = text.lower() if low is None else low  # ASCII: the same offsets
                hits: Iterable[re.Match[str]] = _at_words(rule, text, low, pos, where)
            else:
                hits = rule.pattern.finditer(text, pos)
            for m in hits:
                start = max(m.start(), m.end("keep") if keeps else -1, lo)
                end = min(m.end(), hi)
                if start < end:
                    found.append((m.start(), start, end, rule.name))
        return found

    def none_can_match(self, data: bytes) -> bool:
        """True when ``data`` is ASCII and holds none of the hint words of any rule, so no rule
        can match in it (False when that cannot be told quickly: a rule without hints, text that
        is not ASCII, no C part)."""
        if _found is None:
            return False
        mask = 0
        for rule in self.all_rules():
            bits = _mask(rule.hints)
            if not bits:
                return False
            mask |= bits
        found = _found(data)
        return found is not None and not found & mask

    def redact(self, text: str) -> tuple[str, int]:
        """Return ``(redacted text, number of replacements)``."""
        return replace_spans(text, self.spans(text))

    def redact_text(self, text: str) -> str:
        """The redacted text alone (for a note, an error message, a kept output decoded)."""
        return self.redact(text)[0]

    def redact_bytes(self, data: bytes) -> tuple[bytes, int]:
        """Redact raw output: ``(bytes, replacements)``. Bytes that are not UTF-8 pass unchanged
        (surrogate escapes), so a binary stream stays byte for byte the same outside its secrets."""
        text, count = self.redact(decode_output(data))
        return (encode_output(text) if count else data), count

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
        lo = len(before)
        found = self.spans(before + text + after, lo, lo + len(text))
        text, count = replace_spans(text, [(s - lo, e - lo, n) for s, e, n in found])
        partials = [
            (r.partial_end, r.name) for r in self.all_rules() if cut_after and r.partial_end
        ]
        partials += [
            (r.partial_start, r.name) for r in self.all_rules() if cut_before and r.partial_start
        ]
        edge: list[Span] = []
        for pattern, name in partials:
            hit = pattern.search(text)
            if hit is not None:
                keep_end = hit.end("keep") if "keep" in pattern.groupindex else hit.start()
                if keep_end < hit.end():
                    edge.append((keep_end, hit.end(), name))
        text, more = replace_spans(text, edge)
        return text, count + more

    def argv_spans(self, argv: Sequence[str]) -> list[list[Span]]:
        """Per argv item, what to replace in it: each item is matched alone and between its
        neighbours (joined by :data:`ARG_SEP`), so ``--password`` ``hunter2`` hides ``hunter2``."""
        out: list[list[Span]] = []
        for i, item in enumerate(argv):
            before = argv[i - 1] + ARG_SEP if i else ""
            after = ARG_SEP + argv[i + 1] if i + 1 < len(argv) else ""
            lo = len(before)
            joined = self.spans(before + item + after, lo, lo + len(item))
            out.append(self.spans(item) + [(s - lo, e - lo, n) for s, e, n in joined])
        return out

    def redact_argv(self, argv: Sequence[str]) -> tuple[list[str], int]:
        """``(argv with its secrets replaced, replacements)``; items are never added or removed."""
        items: list[str] = []
        total = 0
        for item, found in zip(argv, self.argv_spans(argv), strict=True):
            text, count = replace_spans(item, found)
            items.append(text)
            total += count
        return items, total

    def findings(self, text: str) -> list[str]:
        """Names of the rules that would replace something in ``text`` (for lint)."""
        return _names(self.spans(text))

    def argv_findings(self, argv: Sequence[str]) -> list[str]:
        """Names of the rules that would replace something in ``argv`` (for lint)."""
        return _names([s for found in self.argv_spans(argv) for s in found])


def _at_words(
    rule: Rule, text: str, low: str, pos: int, where: dict[str, list[int]]
) -> Iterator[re.Match[str]]:
    """What ``rule.pattern.finditer(text, pos)`` yields, trying the rule only where a match can
    begin: ``hint_offset`` before each of its words in ``low`` (``text`` lower-cased, ASCII).

    finditer takes, from where the last match ended, the first position the pattern matches
    at; every match begins at one of these positions, so trying them in order, from where the
    last match ended, finds the same matches (none of the rules matches an empty text)."""
    assert rule.hint_offset is not None
    starts: set[int] = set()
    for word in rule.hints:
        if word not in where:
            where[word] = _offsets(low, word)
        starts.update(at - rule.hint_offset for at in where[word])
    done = pos
    for start in sorted(starts):
        if start >= done:
            m = rule.pattern.match(text, start)
            if m is not None:
                yield m
                done = max(m.end(), start + 1)


def _offsets(low: str, word: str) -> list[int]:
    found = []
    at = low.find(word)
    while at >= 0:
        found.append(at)
        at = low.find(word, at + 1)
    return found


def _mask(hints: tuple[str, ...]) -> int:
    """The finder's bits of ``hints``; 0 when one of them is not a default rule's word."""
    mask = 0
    for word in hints:
        bit = _WORD_BITS.get(word)
        if bit is None:
            return 0
        mask |= bit
    return mask


def _has(folded: str, word: str, present: dict[str, bool]) -> bool:
    found = present.get(word)
    if found is None:
        found = present[word] = word in folded
    return found


def _fold(text: str) -> str:
    """``text`` case-folded so that every character a ``(?i:…)`` letter matches becomes that
    letter: ``casefold`` does it for all but the dotless i (U+0131), which ``re`` matches as i."""
    if text.isascii():
        return text.lower()  # the same for ASCII, and ~40 times faster
    return text.casefold().replace("\u0131", "i")


def decode_output(data: bytes) -> str:
    """Output bytes as text, bytes that are not UTF-8 kept as surrogate escapes."""
    return data.decode("utf-8", "surrogateescape")


def encode_output(text: str) -> bytes:
    """The bytes :func:`decode_output` read ``text`` from."""
    return text.encode("utf-8", "surrogateescape")


def redacted_argv_refusal(record: Mapping[str, Any], argv: object) -> str | None:
    """Why ``argv`` (the argv of ``record``) must not be re-run, or None when it may be.

    The recorder writes ``argv_redacted: N`` when it replaced N secrets in the argv: running it
    would pass ``[REDACTED]`` where the real value was. A record without a usable count (written
    before the field existed, or by another tool) is refused when an item holds the replacement.
    """
    marked = record.get("argv_redacted")
    if isinstance(marked, float) and marked.is_integer():
        marked = int(marked)
    if isinstance(marked, bool) or not isinstance(marked, int):
        items = argv if isinstance(argv, list) else []  # no usable count: look at the argv
        marked = sum(item.count(REPLACEMENT) for item in items if isinstance(item, str))
    if marked <= 0:
        return None
    # The count comes from the trace: shown only when it is a sane one.
    count = "" if marked > 1_000_000 else f"{marked} "
    secrets = "secret" if marked == 1 else "secrets"
    return (
        f"the argv holds {count}redacted {secrets} ({REPLACEMENT} in the record): "
        "re-run it yourself with the real values"
    )


def _names(found: list[Span]) -> list[str]:
    return sorted({name for _s, _e, name in found})


def merged_spans(spans: list[Span]) -> list[list[int]]:
    """The non-empty spans as ``[start, end]`` pairs, sorted, overlapping or touching ones merged."""
    ordered = sorted((s, e) for s, e, _n in spans if s < e)
    merged: list[list[int]] = []
    for start, end in ordered:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def replace_spans(text: str, spans: list[Span]) -> tuple[str, int]:
    """Replace each span (merged when they overlap or touch) by the replacement; count them."""
    if not spans:
        return text, 0
    merged = merged_spans(spans)
    if not merged:
        return text, 0
    out, pos = [], 0
    for start, end in merged:
        out += [text[pos:start], REPLACEMENT]
        pos = end
    out.append(text[pos:])
    return "".join(out), len(merged)
