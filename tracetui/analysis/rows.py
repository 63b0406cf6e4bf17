"""What the span list shows, without the UI: row views (all rows or a filter) and cell text.

A filtered view is an ``array`` of row numbers, never copies of spans, so filtering a million
rows costs four bytes a match. Rows only ever arrive at the end of an index; :meth:`RowView.sync`
extends a filtered view with the new matches. Cell formatting lives here so it can be tested
without Textual; the UI only picks colours for the style names returned.
"""

from __future__ import annotations

import os
from array import array
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import dataclass

from tracetui.analysis.suspicions import may_be_suspicious, suspicions_at
from tracetui.model.flags import (
    BAD,
    EXIT_UNKNOWN,
    FAILED,
    NULL_EXIT,
    SIDECAR,
    TRUNC_UNKNOWN,
    TRUNCATED,
)
from tracetui.model.spans import Span, StreamFacts
from tracetui.model.text import neutralize_line
from tracetui.store.ids import cell_id
from tracetui.store.index import RunIndex
from tracetui.store.reader import BadLine


class RowView:
    """The rows the list shows: every row of the index, or the rows matching a flag mask."""

    def __init__(self, index: RunIndex, mask: int = 0) -> None:
        self.index = index
        self.mask = mask
        """Flag mask of the filter; 0 means every row."""
        self.rows: array[int] | None = None if mask == 0 else array("q")
        self._seen = 0
        self.sync()

    def sync(self) -> int:
        """Take in rows appended to the index since the last call; returns how many joined."""
        n = len(self.index)
        if self.rows is None:
            added = n - self._seen
            self._seen = n
            return added
        flags = self.index.flags
        before = len(self.rows)
        self.rows.extend(r for r in range(self._seen, n) if flags[r] & self.mask)
        self._seen = n
        return len(self.rows) - before

    def __len__(self) -> int:
        return self._seen if self.rows is None else len(self.rows)

    def row_at(self, pos: int) -> int:
        """The index row shown at list position ``pos``."""
        return pos if self.rows is None else self.rows[pos]

    def pos_of(self, row: int) -> int | None:
        """The list position of index row ``row``, or None when the filter hides it."""
        if self.rows is None:
            return row if 0 <= row < self._seen else None
        i = bisect_left(self.rows, row)
        return i if i < len(self.rows) and self.rows[i] == row else None

    def nearest_pos(self, row: int) -> int:
        """The position of ``row``, or of the first shown row after it (the last one if none)."""
        if self.rows is None:
            return max(0, min(row, self._seen - 1))
        i = bisect_left(self.rows, row)
        return max(0, min(i, len(self.rows) - 1))

    def find(self, pos: int, mask: int, step: int, *, wrap: bool = False) -> int | None:
        """Position of the next shown row after ``pos`` whose flags meet ``mask``."""
        if self.rows is None:
            row = self.index.find(pos, mask, step, wrap=wrap)
            return None if row is None or row >= self._seen else row
        flags = self.index.flags
        rows = self.rows
        n = len(rows)
        spans = [range(pos + step, n if step > 0 else -1, step)]
        if wrap:
            spans.append(range(0 if step > 0 else n - 1, pos, step))
        for positions in spans:
            for p in positions:
                if flags[rows[p]] & mask:
                    return p
        return None

    def search(
        self,
        pos: int,
        match: Callable[[int], bool],
        step: int = 1,
        cancelled: Callable[[], bool] = lambda: False,
    ) -> int | None:
        """Position of the next shown row (wrapping) for which ``match(row)`` holds."""
        n = len(self)
        for i in range(1, n + 1):
            if i % 1024 == 0 and cancelled():
                return None
            p = (pos + i * step) % n
            if match(self.row_at(p)):
                return p
        return None


# ---------------------------------------------------------------------------- cell formatting
def fmt_size(n: int | None) -> str:
    """A byte count in at most four characters: ``512``, ``9.8K``, ``16K``, ``1.2M``."""
    if n is None:
        return "?"
    for unit, scale in (("", 1), ("K", 1024), ("M", 1024**2), ("G", 1024**3), ("T", 1024**4)):
        value = n / scale
        if unit == "" and n < 1000:
            return str(n)
        if unit and value < 9.95:
            return f"{value:.1f}{unit}"
        if unit and value < 999.5:
            return f"{value:.0f}{unit}"
    return f"{n / 1024**4:.0f}T"


def fmt_duration(ms: float | None) -> str:
    """A duration in at most five characters: ``12ms``, ``1.2s``, ``14s``, ``3m04``, ``2h05``, ``4d04``, ``518d``."""
    if ms is None:
        return "?"
    if ms < 1000:
        return f"{ms:.0f}ms"
    s = ms / 1000
    if s < 9.95:
        return f"{s:.1f}s"
    if s < 59.5:
        return f"{s:.0f}s"
    m, sec = divmod(round(s), 60)
    if m < 60:
        return f"{m}m{sec:02d}"
    h, m = divmod(m, 60)
    if h < 100:
        return f"{h}h{m:02d}"
    # A call still running (or never answered) in an old session: days, so it stays a duration.
    d, h = divmod(h, 24)
    return f"{d}d{h:02d}" if d < 10 else f"{d}d"


def fmt_time(started_at: str | None) -> str:
    """``HH:MM:SS`` of an RFC 3339 time (as recorded, no clock involved); ``?`` when unknown."""
    if not started_at:
        return "?"
    t = started_at.find("T")
    if t < 0:
        t = started_at.find(" ")
    clock = started_at[t + 1 : t + 9] if t >= 0 else started_at[:8]
    return neutralize_line(clock) or "?"


def fmt_stream(s: StreamFacts) -> str:
    """``bytes/cap`` of a stream: ``16K/8.0K``; no cap → ``16K``; unknown bytes → ``?``."""
    size = fmt_size(s.bytes)
    return f"{size}/{fmt_size(s.cap)}" if s.cap is not None else size


def _stream_cell(s: StreamFacts, *, rerun: bool) -> Cell:
    """The OUT or ERR cell. A re-run (a sidecar row) ran uncapped and was compared whole: its
    record's cap only bounds the previews kept for the diff, so the cell shows the bytes alone."""
    if rerun:
        return Cell(fmt_size(s.bytes), "")
    return Cell(fmt_stream(s), "trunc" if s.truncated else "")


def fmt_exit(code: int | None, flags: int = 0) -> str:
    """The exit as shown: the code; ``?`` when unknown (no exit and no error: not a failure);
    ``ERR`` when the call failed without one (an error says why)."""
    if code is not None:
        return str(code)
    return "?" if flags & EXIT_UNKNOWN else "ERR"


def share(part: int, whole: int | None) -> str:
    """``66%`` of ``whole``; ``<1%`` for a small non-zero part; empty when it cannot be told."""
    if not whole or part <= 0:
        return ""
    pct = part * 100 / whole
    return "<1%" if pct < 1 else f"{pct:.0f}%"


def hidden_words(s: StreamFacts) -> str:
    """The amount a cut stream hid, in the unit it was counted in: ``16,014 bytes``.

    When the record holds no byte count, the amount is the marker's own: Claude Code's
    ``[N characters truncated]`` counts characters (``N characters``: at least N bytes, more when
    they are not ASCII), and its ``Output too large (85.4KB)`` states a rounded total
    (``about N bytes``). Empty when the amount is unknown.
    """
    hidden = s.hidden_bytes
    if hidden is None:
        return ""
    m = s.marker
    if s.bytes is None and m is not None and m.count == hidden:
        if m.unit == "chars":
            return f"{hidden:,} characters"
        if m.family != "tracetui":
            return f"about {hidden:,} bytes"  # a total stated in KB, less the preview
    return f"{hidden:,} bytes"


def _marker_words(s: StreamFacts) -> str:
    """``212 lines``: the amount a marker states, when the record gives no bytes."""
    m = s.marker
    if m is None or m.count is None:
        return ""
    return f"{m.count:,} {'characters' if m.unit == 'chars' else m.unit}"


def never_shown(s: StreamFacts) -> str:
    """The detail pane's verdict on one stream: what the consumer never saw."""
    if s.truncated is None:
        return "truncation unknown (no byte counts in this dialect)"
    if s.truncated is False:
        return "none: all bytes shown"
    hidden = s.hidden_bytes
    if hidden is None:
        said = _marker_words(s)
        return f"{said} never shown (per the marker)" if said else "truncated; how much is unknown"
    amount = hidden_words(s)
    if amount != f"{hidden:,} bytes":
        return f"{amount} never shown (per the marker)"
    pct = share(hidden, s.bytes)
    return f"{amount} ({pct}) never shown" if pct else f"{amount} never shown"


def banner(s: StreamFacts) -> str:
    """The text at the clip point of a preview."""
    hidden = s.hidden_bytes
    if hidden is not None and hidden > 0:
        return f"{hidden_words(s)} the agent never saw"
    said = _marker_words(s)
    return f"{said} the agent never saw" if said else "output the agent never saw (amount unknown)"


def span_hidden_words(span: Span) -> str:
    """A span's hidden amount over both streams: ``16,014 B``, ``48,213 chars`` when every cut
    stream was counted in characters, ``≥N B`` when some were (a character is a byte or more)."""
    cut = [s for s in span.streams if s.hidden_bytes]
    total = sum(s.hidden_bytes or 0 for s in cut)
    chars = [s for s in cut if hidden_words(s).endswith("characters")]
    if cut and len(chars) == len(cut):
        return f"{total:,} chars"
    return f"≥{total:,} B" if chars else f"{total:,} B"


def items_note(s: StreamFacts) -> str:
    """``50 items at source, 20 shown`` when the record knows, else empty."""
    if s.items is None and s.preview_items is None:
        return ""
    src = "?" if s.items is None else f"{s.items:,}"
    shown = "?" if s.preview_items is None else f"{s.preview_items:,}"
    return f"{src} items at source, {shown} shown"


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of a list row."""

    text: str
    """Already neutralised, one line."""
    style: str
    """A style name the UI maps to a colour (``failed``, ``null``, ``trunc``, ``dim``, ``""``)."""


SUSPICION_GLYPH = "⚑"
"""Before ARGV on a row an incident lint rule fires on (``w``/``W`` walk them in the viewer)."""

COLUMNS = (("TIME", 8), ("ID", 8), ("EXIT", 4), ("DUR", 5), ("OUT", 9), ("ERR", 9), ("✂", 1))
"""Fixed columns before ARGV, which takes the rest of the width."""


def row_cells(index: RunIndex, row: int, item: Span | BadLine) -> list[Cell]:
    """The cells of one row: the fixed columns, then ARGV (or file:line and reason)."""
    flags = index.flags[row]
    if isinstance(item, BadLine) or flags & BAD:
        if isinstance(item, BadLine):
            where = f"{os.path.basename(item.file)}:{item.line}"
            reason = item.reason
        else:  # the row was a span when indexed but can no longer be read
            path, line = index.location(row)
            where, reason = f"{os.path.basename(path)}:{line}", "unreadable"
        return [
            Cell("", ""),
            Cell("", ""),
            Cell("BAD", "bad"),
            Cell("", ""),
            Cell("", ""),
            Cell("", ""),
            Cell("", ""),
            Cell(neutralize_line(f"{where}  {reason}"), "bad"),
        ]
    span = item
    exit_text = fmt_exit(span.exit_code, flags)
    if flags & EXIT_UNKNOWN:  # never the error colour: the format recorded no exit
        exit_style = "dim"
        if span.is_submission:
            exit_text = "sub"  # the agent's submission step (docs/importers.md)
    elif flags & NULL_EXIT:
        exit_style = "null"
    elif flags & FAILED:
        exit_style = "failed"
    else:
        exit_style = "ok"
    if flags & TRUNCATED:
        mark, mark_style = "✂", "trunc"
    elif flags & TRUNC_UNKNOWN:
        mark, mark_style = "?", "dim"
    else:
        mark, mark_style = "", ""
    argv = " ".join(span.argv) if span.argv else (span.tool_name or "?")
    if may_be_suspicious(index, row) and suspicions_at(index, row):
        # An incident rule fires (TT019-TT025): the agent may have acted on a partial document.
        argv = f"{SUSPICION_GLYPH} {argv}"
    return [
        Cell(fmt_time(span.started_at), "dim"),
        Cell(cell_id(index, span.command_id), "dim"),  # the run's one id rule (store/ids.py)
        Cell(exit_text, exit_style),
        Cell(fmt_duration(span.duration_ms), "dim"),
        *(_stream_cell(s, rerun=bool(flags & SIDECAR)) for s in (span.stdout, span.stderr)),
        Cell(mark, mark_style),
        Cell(neutralize_line(argv), "failed" if flags & FAILED else ""),
    ]
