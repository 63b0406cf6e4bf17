"""The kept unseen part of a stream, quoted in the postmortem without a re-run.

``tracetui run`` keeps each stream whole (:mod:`tracetui.record.kept`). When the span's stream
was cut and kept, the report reads the part the agent never saw — after checking the whole kept
file against its hash (:func:`tracetui.record.kept_read.open_verified`) — and quotes its
failure-looking lines and a window around the strongest one. A kept file that fails its check
is named, not quoted; a stream with nothing kept adds nothing. At most :data:`SCAN_LIMIT` bytes
of the unseen part are read.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracetui.export.failures import failure_lines, strongest_failure, unseen_window
from tracetui.export.markdown import bounded_lines, code_span, fence, num
from tracetui.model.spans import Span, StreamFacts
from tracetui.record.kept_read import KeptMismatch, NotKept, find_kept, open_verified
from tracetui.store.index import RunIndex

SCAN_LIMIT = 8 << 20
"""Bytes of a kept unseen part read for the report."""
TAIL_LINES = 10
"""Last lines quoted from a kept unseen part with no failure-looking line."""


@dataclass(frozen=True, slots=True)
class KeptUnseen:
    """What was read of one stream's kept unseen part."""

    text: str
    """The bytes read, decoded (invalid UTF-8 replaced); empty when ``problem`` is set."""
    start: int
    """Where the unseen part starts in the kept bytes."""
    size: int
    """Its length."""
    complete: bool
    """False when only the first :data:`SCAN_LIMIT` bytes were read."""
    problem: str | None
    """Why the kept bytes are not quoted (changed, damaged): one line."""
    note: str | None = None
    """For another agent's copy (an imported trace): what was checked instead of a hash."""


def kept_unseen(index: RunIndex, span: Span, stream: str) -> KeptUnseen | None:
    """The kept unseen part of ``span``'s ``stream``; None when the stream was not cut or kept."""
    facts = span.stream(stream)
    if not facts.truncated:
        return None
    try:
        kept = find_kept(index.run.base, span.raw, stream, imported=index.run.source_format)
    except NotKept:
        return None
    start, end = kept.unseen_start, kept.unseen_end
    if end <= start:
        return None
    stop = min(end, start + SCAN_LIMIT)
    try:
        with open_verified(kept) as verified:
            data = b"".join(verified.chunks(start, stop))
    except KeptMismatch as exc:
        return KeptUnseen("", start, end - start, False, str(exc))
    except NotKept:
        return None  # gone (evicted) or refused: the report says what the record says
    text = data.decode("utf-8", "replace")
    return KeptUnseen(text, start, end - start, stop == end, None, kept.note)


def kept_strongest(index: RunIndex, span: Span, stream: str) -> str | None:
    """The line the verdict quotes from the kept unseen part, if any."""
    found = kept_unseen(index, span, stream)
    return strongest_failure(found.text) if found is not None and found.text else None


def kept_section(index: RunIndex, span: Span, f: StreamFacts) -> list[str]:
    """The attempt's paragraph on ``f``'s kept unseen part; empty when nothing was kept."""
    found = kept_unseen(index, span, f.name)
    if found is None:
        return []
    head = f"**{f.name} the agent never saw, as kept**"
    if found.problem is not None:
        return ["", f"{head}: not quoted, {code_span(found.problem)}"]
    where = f"bytes {num(found.start)} to {num(found.start + found.size)} of the kept output"
    more = "" if found.complete else f"; only its first {num(SCAN_LIMIT)} bytes read here"
    how = "redacted, checked against its hash" if found.note is None else "not verified by a hash"
    out = ["", f"{head} ({where}, {how}{more}):"]
    if found.note is not None:  # kept by another agent: say what was checked, path and all
        out += ["", code_span(found.note)]
    fails = failure_lines(found.text)
    if not fails:  # a passing run: its last lines (the summary) say the most
        out += ["", "No line of it looks like a failure. Its last lines:", ""]
        out.extend(fence(bounded_lines(found.text, TAIL_LINES, keep="end", what="earlier lines")))
        return out
    out.append("")
    out.extend(f"- {code_span(x[:300])}" for x in fails)
    out.append("")
    out.extend(fence(unseen_window(found.text)))
    return out
