"""Redaction of secret-looking text: one set of patterns for the recorder, re-runs and lint.

The patterns are the rule table of :mod:`tracetui.record.redact_rules`; each match is replaced by
``[REDACTED]`` (keeping a recognisable prefix such as ``password=`` so a reader still knows what
was there). Hashes are never taken over redacted text: the recorder hashes the raw bytes.

Entry points: :meth:`Redactor.redact` (a text), :meth:`Redactor.redact_window` (a window cut
from a longer stream), :meth:`Redactor.redact_argv` (an argv list, item by item, so a flag and
its value in two items are still seen together), :meth:`Redactor.redact_bytes` and
:class:`StreamRedactor` (whole outputs, in memory or chunk by chunk), :meth:`Redactor.findings`
(lint). :func:`redacted_argv_refusal` tells re-run not to run an argv that holds redactions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
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
CONTEXT = 256
"""Raw characters kept before the held text of a :class:`StreamRedactor` for look-behinds (the
rules' look back at most 16)."""
Match = tuple[int, int, int, str]
"""``(match start, start, end, rule name)``: a :data:`Span` and where its whole match begins."""
Edit = tuple[int, int, int, int]
"""``(raw start, raw end, out start, out end)``: one replacement made by a :class:`StreamRedactor`,
as byte offsets in the stream fed and in the bytes returned."""


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
            for m in rule.pattern.finditer(text, pos):
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
        return _replace_spans(text, self.spans(text))

    def redact_text(self, text: str) -> str:
        """The redacted text alone (for a note, an error message, a kept output decoded)."""
        return self.redact(text)[0]

    def redact_bytes(self, data: bytes) -> tuple[bytes, int]:
        """Redact raw output: ``(bytes, replacements)``. Bytes that are not UTF-8 pass unchanged
        (surrogate escapes), so a binary stream stays byte for byte the same outside its secrets."""
        text, count = self.redact(_decode(data))
        return (_encode(text) if count else data), count

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
        text, count = _replace_spans(text, [(s - lo, e - lo, n) for s, e, n in found])
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
        text, more = _replace_spans(text, edge)
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
            text, count = _replace_spans(item, found)
            items.append(text)
            total += count
        return items, total

    def findings(self, text: str) -> list[str]:
        """Names of the rules that would replace something in ``text`` (for lint)."""
        return _names(self.spans(text))

    def argv_findings(self, argv: Sequence[str]) -> list[str]:
        """Names of the rules that would replace something in ``argv`` (for lint)."""
        return _names([s for found in self.argv_spans(argv) for s in found])


class StreamRedactor:
    """Redacts a whole output chunk by chunk (kept outputs): ``feed()`` each chunk, then
    ``finish()``; the bytes returned, joined, equal :meth:`Redactor.redact_bytes` of the whole.

    The last ``hold`` characters are held back until more arrives, and never cut inside a
    match (its kept prefix included), so a secret split across chunks is seen whole when it is
    at most ``hold`` long; the :data:`CONTEXT` characters before the held text stay as what
    the rules' look-behinds see there, as in the whole output. A
    match still open after ``max_hold`` characters is not held longer: a key block is then hidden up
    to its END line (or to the end of the output, as :meth:`Redactor.redact` would), any other
    match is cut there and what follows it is judged afresh.
    """

    def __init__(
        self,
        redactor: Redactor,
        hold: int = 4096,
        max_hold: int = 1 << 20,
        on_edit: Callable[[Edit], None] | None = None,
    ) -> None:
        self.redactor = redactor
        self.hold = hold
        self.max_hold = max(max_hold, 2 * hold)
        self.count = 0
        """Replacements made so far."""
        self.on_edit = on_edit
        """Told of each replacement, in order, as ``(raw start, raw end, out start, out end)``
        byte offsets (the kept store maps the clip points of the raw stream with them)."""
        self._buffer = b""
        self._raw_at = 0
        """Raw byte offset of the start of ``_buffer``."""
        self._out_at = 0
        """Bytes returned so far."""
        self._open_at: tuple[int, int] = (0, 0)
        """Raw and out offsets where the open key block's replacement began."""
        self._open: Rule | None = None
        """The rule of a key block being hidden until its closing line."""
        self._context = ""
        """The last raw text before ``_buffer`` (already returned): what the rules' look-behinds
        see there, as they would in the whole output (``postgres`` before ``://ann:…@``)."""

    def feed(self, data: bytes) -> bytes:
        """Take the next chunk; return the redacted bytes that can be written now."""
        self._buffer += data
        if self._open is not None and not self._skip_open():
            return b""
        if len(self._buffer) < 2 * self.hold:  # bytes: a cheap first test before decoding
            return b""
        if self.redactor.none_can_match(self._buffer):  # most of a long output: no decoding
            return self._pass(len(self._buffer) - self.hold)
        text = _decode(self._buffer)
        if len(text) < 2 * self.hold:
            return b""
        matches = self._matches(text)
        found = [(start, end, name) for _first, start, end, name in matches]
        point = len(text) - self.hold
        # Never cut inside a match, its kept prefix included: `Authorization: Ba|sic …` emitted
        # up to the cut would leave the secret after it with no keyword to be found by.
        for first, _start, end, _name in sorted(matches, reverse=True):
            if first < point < end:
                point = first
        if point > 0:
            return self._emit(text, found, point)
        if len(text) < self.max_hold:
            return b""
        # A match open since the start of the held text, max_hold long: stop holding it.
        name = min((first, -e, n) for first, _s, e, n in matches if first == 0)[2]
        rule = next((r for r in self.redactor.all_rules() if r.name == name), None)
        if rule is None or rule.closing is None:
            return self._emit(text, found, len(text) - self.hold)
        self.count += 1
        self._open = rule
        self._open_at = (self._raw_at, self._out_at)
        self._out_at += len(REPLACEMENT)
        self._skip_open()
        return REPLACEMENT.encode()

    def finish(self) -> bytes:
        """The rest, redacted; the redactor is empty afterwards."""
        if self._open is not None and not self._skip_open():
            self._raw_at += len(self._buffer)
            self._closed()
            self._buffer = b""  # never closed: hidden to the end
        text = _decode(self._buffer)
        found = [(start, end, name) for _first, start, end, name in self._matches(text)]
        return self._emit(text, found, len(text))

    def _pass(self, point: int) -> bytes:
        """Return the first ``point`` bytes of an ASCII buffer holding no match, as they are."""
        head = self._buffer[:point]
        self._consumed(head[-CONTEXT:].decode("ascii"))
        self._buffer = self._buffer[point:]
        self._raw_at += point
        self._out_at += point
        return head

    def _matches(self, text: str) -> list[Match]:
        """The matches in ``text`` (the held text), searched after the context before it."""
        n = len(self._context)
        if not n:
            return self.redactor.matches(text)
        found = self.redactor.matches(self._context + text, n, pos=n)
        return [(first - n, start - n, end - n, name) for first, start, end, name in found]

    def _consumed(self, text: str) -> None:
        """``text`` (raw) now lies before the buffer: keep its end as the context."""
        self._context = (self._context + text[-CONTEXT:])[-CONTEXT:]

    def _emit(self, text: str, found: list[Span], point: int) -> bytes:
        head = text[:point]
        self._consumed(head)
        spans = [(s, min(e, point), n) for s, e, n in found]
        done, count = _replace_spans(head, spans)
        self.count += count
        if count and self.on_edit is not None:
            self._report(head, spans)
        rest = _encode(text[point:])
        out = _encode(done)
        self._raw_at += len(self._buffer) - len(rest)
        self._out_at += len(out)
        self._buffer = rest
        return out

    def _report(self, head: str, spans: list[Span]) -> None:
        """Tell ``on_edit`` where each merged replacement of ``head`` sits, in bytes."""
        assert self.on_edit is not None
        raw, out, last = self._raw_at, self._out_at, 0
        for start, end in _merged(spans):
            gap = len(_encode(head[last:start]))
            raw, out = raw + gap, out + gap
            cut = len(_encode(head[start:end]))
            self.on_edit((raw, raw + cut, out, out + len(REPLACEMENT)))
            raw, out, last = raw + cut, out + len(REPLACEMENT), end

    def _closed(self) -> None:
        """The open key block ends at ``_raw_at``: report its replacement."""
        if self.on_edit is not None:
            raw, out = self._open_at
            self.on_edit((raw, self._raw_at, out, out + len(REPLACEMENT)))
        self._open = None

    def _skip_open(self) -> bool:
        """Drop the open key block's text up to its closing line: True once it is closed."""
        assert self._open is not None and self._open.closing is not None
        text = _decode(self._buffer)
        end = self._open.closing.search(text)
        if end is None:
            self._consumed(text[: max(0, len(text) - self.hold)])
            kept = _encode(text[-self.hold :])  # may hold the start of the END line
            self._raw_at += len(self._buffer) - len(kept)
            self._buffer = kept
            return False
        self._consumed(text[: end.end()])
        rest = _encode(text[end.end() :])
        self._raw_at += len(self._buffer) - len(rest)
        self._buffer = rest
        self._closed()
        return True


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


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _encode(text: str) -> bytes:
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


def _merged(spans: list[Span]) -> list[list[int]]:
    """The non-empty spans as ``[start, end]`` pairs, sorted, overlapping or touching ones merged."""
    ordered = sorted((s, e) for s, e, _n in spans if s < e)
    merged: list[list[int]] = []
    for start, end in ordered:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def _replace_spans(text: str, spans: list[Span]) -> tuple[str, int]:
    """Replace each span (merged when they overlap or touch) by the replacement; count them."""
    if not spans:
        return text, 0
    merged = _merged(spans)
    if not merged:
        return text, 0
    out, pos = [], 0
    for start, end in merged:
        out += [text[pos:start], REPLACEMENT]
        pos = end
    out.append(text[pos:])
    return "".join(out), len(merged)
