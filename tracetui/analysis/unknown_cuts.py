"""Spans whose cut cannot be measured: the counts that keep "0 truncated, 0 B hidden" honest.

Two kinds, read from the index's columns (no row is read from disk):

- *truncation unknown* (``TRUNC_UNKNOWN``): the format carries no byte counts and no marker, so
  whether the agent saw the whole output cannot be told (Codex's ``exec --json``, a feedback
  record without a marker). Such a span is not counted as truncated, and adds nothing to the
  hidden bytes: "0 truncated" alone would say nothing was cut.
- *cut, size unknown*: the span was cut (``TRUNCATED``) but no cut of it says how much (a marker
  with no count): it adds nothing to the hidden bytes either.

``summary --json`` reports both (``truncation_unknown``, ``hidden_bytes_unknown_spans``, the
second counting both kinds), and the viewer's header says ``N trunc ?`` and ``? hidden``. A
span with one cut of known size and another of unknown size counts as known: its hidden bytes
are then a lower bound, which the columns cannot tell apart.
"""

from __future__ import annotations

from tracetui.model.flags import BAD, NO_VALUE, SIDECAR, TRUNC_UNKNOWN, TRUNCATED
from tracetui.store.fastindex import count_picked
from tracetui.store.index import RunIndex

# One byte per flags value: 1 where the row is of the kind counted (a re-run from the sidecar is
# a row of its chain, not a fact about the trace, as everywhere else), else 0.
_UNKNOWN = bytes(int(bool(v & TRUNC_UNKNOWN) and not v & (SIDECAR | BAD)) for v in range(256))
_CUT = bytes(int(bool(v & TRUNCATED) and not v & (SIDECAR | BAD)) for v in range(256))


def _flags(index: RunIndex, rows: int | None) -> bytes:
    n = len(index.flags) if rows is None else rows
    return index.flags[:n].tobytes()


def truncation_unknown(index: RunIndex, rows: int | None = None) -> int:
    """Spans among the first ``rows`` (all by default) whose truncation cannot be told."""
    return _flags(index, rows).translate(_UNKNOWN).count(1)


def size_unknown_cuts(index: RunIndex, rows: int | None = None) -> int:
    """Cut spans among the first ``rows`` for which no hidden byte count is known."""
    cut = _flags(index, rows).translate(_CUT)
    # A cut that hid 0 known bytes: none of its cuts said how many (at C speed, no int a row).
    return count_picked(cut, index.hidden, 0, NO_VALUE)


def hidden_unknown_spans(index: RunIndex, rows: int | None = None) -> int:
    """Spans whose hidden bytes are unknown: truncation unknown, or cut with no size said."""
    return truncation_unknown(index, rows) + size_unknown_cuts(index, rows)
