"""Suspicions: the incident rules (TT019–TT025) asked of one span, of a row, or of a whole run.

The same rule functions (or, for counting, their own predicates) as ``tracetui lint``
(:mod:`tracetui.analysis.lint_incidents`), so the summary, the viewer and lint agree; this
module only chooses which rows to ask, and how cheaply.

- :func:`suspicions_of` (a span) and :func:`suspicions_at` (a row of an index, with the retry
  rule, which needs the row's parent) are for the detail pane: one or two parsed rows, read
  through the index (cached, safe while a run grows and rotates).
- :func:`may_be_suspicious` says from the index's columns alone whether a row could fire, and
  :func:`next_suspicious` walks to the next row that does (row by row: for a short walk);
  :func:`suspicious_rows` gives every firing row of a run (or of its rows from one on) in one
  pass: for the list's marks and the keys that walk them on a large run.
- :func:`count_suspicions` is ``summary --json``'s ``suspicions``, for a finished index. On a
  tracetui run it reads only the rows that can fire (the columns say which: failed, truncated,
  retries of truncated rows, narrowed by the scanner's row marks) in large reads of their members; a row that can only fire TT022 is
  judged by a look at its note's bytes, a cut row from its fields; only retries, imported records
  and records of unexpected types go to the rules in full. On an imported run every call is
  asked. One difference with lint, by design: an ``import/`` record inside a tracetui file that
  neither failed nor was cut is not read, so a marker it wrote into a file (TT024) is lint's
  alone (tracetui never writes such a file).
"""

from __future__ import annotations

from tracetui.analysis.lint import check_record
from tracetui.analysis.lint_incidents import blind_retry
from tracetui.analysis.lint_registry import RULES
from tracetui.analysis.suspicion_scan import (
    CODES,
    RETRY,
    count,
    record_rules,
    scan,
    truncated_parent,
)
from tracetui.model.flags import BAD, FAILED, TRUNCATED
from tracetui.model.spans import Span
from tracetui.store.index import RunIndex

__all__ = [
    "CODES",
    "Suspicion",
    "count_suspicions",
    "may_be_suspicious",
    "next_suspicious",
    "suspicions_at",
    "suspicions_of",
    "suspicious_rows",
]

Suspicion = tuple[str, str]
"""``(code, reason)``: the rule's code and its one-line message, as lint prints them."""


def suspicions_of(span: Span) -> list[Suspicion]:
    """The incident findings of one span, without TT021 (see :func:`suspicions_at`)."""
    found = check_record(span.raw, span, record_rules())
    return [(code, msg) for code, msg in found if code in CODES]


def suspicions_at(index: RunIndex, row: int) -> list[Suspicion]:
    """Every incident finding of one row of ``index`` (TT021 included), in code order."""
    span = index.span(row)
    if span is None:
        return []
    found = check_record(span.raw, span, record_rules())
    if found and RULES[found[0][0]].gate:
        return []
    out = [(code, msg) for code, msg in found if code in CODES]
    parent = truncated_parent(index, row)
    if parent is not None:
        parent_span = index.span(parent)
        why = blind_retry(span, parent_span) if parent_span else None
        if why is not None:
            out.append((RETRY, why))
    out.sort(key=lambda s: s[0])
    return out


def may_be_suspicious(index: RunIndex, row: int) -> bool:
    """False when the columns prove no incident rule can fire on ``row`` (no read needed).

    On an imported run every row may (a call without a result, or writing a file, shows only in
    the record); on the others a row must have failed, been cut, or retry a cut attempt.
    """
    flags = index.flags[row]
    if flags & BAD:
        return False
    if index.run.source_format is not None:
        return True
    return bool(flags & (FAILED | TRUNCATED)) or truncated_parent(index, row) is not None


def next_suspicious(index: RunIndex, row: int, step: int = 1) -> int | None:
    """The next row after ``row`` (``step`` 1 or -1) with a suspicion, or None."""
    n = len(index)
    r = row + step
    while 0 <= r < n:
        if may_be_suspicious(index, r) and suspicions_at(index, r):
            return r
        r += step
    return None


# --------------------------------------------------------------------------- counting
def count_suspicions(index: RunIndex) -> dict[str, int]:
    """Rows firing each incident rule in a run (the trace's own rows: re-runs are not counted).

    Every code of :data:`CODES` is a key, zero included. A row counts once per code however
    many of its streams fire.
    """
    return count(index)


def suspicious_rows(index: RunIndex, start: int = 0) -> dict[int, frozenset[str]]:
    """Row → the incident codes it fires, for the committed rows from ``start`` on (re-runs
    left out), by the same reading as :func:`count_suspicions`: one pass for a whole run's
    marks, rather than :func:`suspicions_at` row by row.

    It reads the members by path, in large reads, so it is for an index whose files stay put
    (a finished run, or the rows of a growing one since the last call while nothing rotates);
    :func:`suspicions_at` reads through the index and is safe at any time.
    """
    return {row: frozenset(codes) for row, codes in scan(index, start)}
