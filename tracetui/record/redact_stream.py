"""Redacting a whole output chunk by chunk, as it is captured (the kept-output store).

:class:`StreamRedactor` gives, joined, the same bytes as :meth:`Redactor.redact_bytes` of the
whole output, holding back only the end of what it was fed (see its docstring for the limits).
"""

from __future__ import annotations

from collections.abc import Callable

from tracetui.record.redact import (
    Match,
    Redactor,
    Span,
    decode_output,
    encode_output,
    merged_spans,
    replace_spans,
)
from tracetui.record.redact_rules import REPLACEMENT, Rule

CONTEXT = 256
"""Raw characters kept before the held text of a :class:`StreamRedactor` for look-behinds (the
rules' look back at most 16)."""
Edit = tuple[int, int, int, int]
"""``(raw start, raw end, out start, out end)``: one replacement made by a :class:`StreamRedactor`,
as byte offsets in the stream fed and in the bytes returned."""


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
        text = decode_output(self._buffer)
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
        text = decode_output(self._buffer)
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
        done, count = replace_spans(head, spans)
        self.count += count
        if count and self.on_edit is not None:
            self._report(head, spans)
        rest = encode_output(text[point:])
        out = encode_output(done)
        self._raw_at += len(self._buffer) - len(rest)
        self._out_at += len(out)
        self._buffer = rest
        return out

    def _report(self, head: str, spans: list[Span]) -> None:
        """Tell ``on_edit`` where each merged replacement of ``head`` sits, in bytes."""
        assert self.on_edit is not None
        raw, out, last = self._raw_at, self._out_at, 0
        for start, end in merged_spans(spans):
            gap = len(encode_output(head[last:start]))
            raw, out = raw + gap, out + gap
            cut = len(encode_output(head[start:end]))
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
        text = decode_output(self._buffer)
        end = self._open.closing.search(text)
        if end is None:
            self._consumed(text[: max(0, len(text) - self.hold)])
            kept = encode_output(text[-self.hold :])  # may hold the start of the END line
            self._raw_at += len(self._buffer) - len(kept)
            self._buffer = kept
            return False
        self._consumed(text[: end.end()])
        rest = encode_output(text[end.end() :])
        self._raw_at += len(self._buffer) - len(rest)
        self._buffer = rest
        self._closed()
        return True
