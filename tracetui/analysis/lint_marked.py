"""Lint's quick reading of the rows whose marks leave only TT019 and TT022 to fire.

Most of the rows lint reads on a large run are failed and cut, or cut with a note that predicts
success, and carry no :data:`~tracetui.model.marks.FULL_READ` mark: the scanner saw no secret
word, no contract field that may be broken, no field of an odd type, no imported record and no
cut of unknown size. Of the per-record rules only TT019 (a failure whose end was cut away) and
TT022 (a note that predicted success) can fire on such a row, and both need only the exit, the
streams' evidence and the note. So the row is parsed (its bytes read in large runs of its member,
not one read a row) and judged from those fields with the rules' own predicates and words
(``stated_clip``, ``head_kept``, ``success_against``) and the one truncation judgement, without
building a Span. A row that is not plain (a field of another type, a line that does not parse,
another dialect, a contract key missing) goes to the rules, which report it in their own words.

tests/unit/test_lint_fast.py holds lint's findings to the full reading's (every row, every rule)
on every fixture and on generated sets with hostile rows mixed in.
"""

from __future__ import annotations

from typing import Any

from tracetui.analysis.lint_incidents import head_kept, stated_clip, success_against
from tracetui.analysis.lint_rules import missing_contract_keys
from tracetui.analysis.raw_lines import RawLines
from tracetui.analysis.record_evidence import (
    NotPlain,
    exit_code,
    note,
    own_dialect,
    stream_evidence,
)
from tracetui.model import marks
from tracetui.model.spans import FEEDBACK, STREAMS
from tracetui.store.reader import loads

QUICK_RULES = ("TT019", "TT022")
"""The per-record rules a row without FULL_READ marks may fire, in the order they run."""

QUICK_MARKS = bytes(0 if m == marks.ALL or m & marks.FULL_READ else 1 for m in range(256))
"""Row marks → 1 for a row only :data:`QUICK_RULES` may fire on (the scanner judged it)."""

Finding = tuple[str, str]


def read_quick(raw: RawLines, row: int) -> list[Finding] | None:
    """The findings of row ``row`` (one :data:`QUICK_MARKS` admits), or None when the rules must
    read it: its bytes are not where the index says, or the record is not plain."""
    got = raw.locate(row)
    if got is None:
        return None
    buf, start, end = got
    try:
        value, replaced = loads(buf[start:end])
    except ValueError:
        return None
    if replaced is not None:  # invalid UTF-8: TT016 reports it
        return None
    return quick_findings(value)


def quick_findings(obj: Any) -> list[Finding] | None:
    """TT019's and TT022's findings on a parsed record of tracetui's dialects, as the rules
    would word them; None when the record is not plain (then the rules judge it)."""
    dialect = own_dialect(obj)
    if dialect is None:
        return None
    if obj.get("span_type") == "tool" and missing_contract_keys(obj):
        return None  # TT001 stops the record: the rules say so
    feedback = dialect == FEEDBACK
    try:
        code, said = exit_code(obj, dialect), note(obj)
        evidence = [(name, stream_evidence(obj, name, feedback)) for name in STREAMS]
    except NotPlain:
        return None
    findings = []
    if code:  # a nonzero exit
        for name, (truncated, _bytes, hidden, marker) in evidence:
            if truncated and stated_clip(obj, name, marker) == "head":
                findings.append(("TT019", head_kept(code, name, hidden)))
    success = success_against(code, [name for name, ev in evidence if ev[0]], said)
    if success is not None:
        findings.append(("TT022", success))
    return findings
