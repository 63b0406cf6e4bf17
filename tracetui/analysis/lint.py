"""The truncation-contract linter (``tracetui lint``): runs every registered rule over a run.

The rules are one decorated function each in :mod:`tracetui.analysis.lint_rules` (the contract
and tracetui's additions) and :mod:`tracetui.analysis.lint_incidents` (TT019–TT025); the
registry (:data:`RULES`, code → :class:`~tracetui.analysis.lint_registry.Rule`) is in
:mod:`tracetui.analysis.lint_registry`. This module walks an indexed run, gives each row to the
rules of its kind that judge its format (own dialects or imported), then runs the whole-run
rules, and returns the findings in set order.

Only the rows a rule may fire on are read (:mod:`tracetui.analysis.lint_select` chooses them
from the index's row marks and flags), and those on which only TT019 and TT022 may fire are
judged from a few fields (:mod:`tracetui.analysis.lint_marked`); ``every_row=True`` reads
every row with every rule, the reference the chosen reading is tested against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

# Importing the rules modules is what registers them in RULES (lint_incidents imports
# lint_rules first, so the contract rules come first).
from tracetui.analysis import lint_incidents  # noqa: F401
from tracetui.analysis.lint_marked import QUICK_MARKS, read_quick
from tracetui.analysis.lint_registry import ERROR, RULES, WARNING, Rule, imported, rules_on
from tracetui.analysis.lint_select import SECRET_RULE, rows_to_read, selection_usable
from tracetui.analysis.raw_lines import RawLines
from tracetui.model.spans import Span
from tracetui.store.identity import changed_since_built
from tracetui.store.index import RunIndex
from tracetui.store.reader import BadLine

__all__ = ["ERROR", "RULES", "WARNING", "Issue", "Rule", "check_record", "lint_index"]

Finding = tuple[str, str]
"""``(code, message)`` for one record."""


@dataclass(frozen=True, slots=True)
class Issue:
    """One finding."""

    file: str
    line: int
    """1-based line in ``file``; 0 for findings about the whole run."""
    code: str
    message: str

    @property
    def severity(self) -> str:
        return RULES[self.code].severity

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }


def check_record(
    rec: dict[str, Any], span: Span, rules: tuple[Rule, ...] | None = None
) -> list[Finding]:
    """All per-record findings for one record (a gate rule's finding replaces every other).

    ``rules`` are the record rules to run (default: all of them, see :func:`record_rules`); a
    rule that does not judge the record's format (own dialects or imported) is skipped.
    """
    is_tool = rec.get("span_type") == "tool"
    is_imported = imported(span)
    findings: list[Finding] = []
    for r in record_rules() if rules is None else rules:
        if (r.on == "tool" and not is_tool) or not r.judges(is_imported):
            continue
        if r.gate:
            gated = [(r.code, msg) for msg in r.check(rec, span)]
            if gated:
                return gated
            continue
        code = r.code
        findings.extend((code, msg) for msg in r.check(rec, span))
    return findings


def record_rules() -> tuple[Rule, ...]:
    """The rules given one record each (``tool`` and ``record`` ones), in registration order."""
    return tuple(r for r in RULES.values() if r.on in ("tool", "record"))


def lint_index(index: RunIndex, *, every_row: bool = False) -> list[Issue]:
    """Every finding for one indexed run, in set order.

    ``every_row``: read every row with every rule (the reference), rather than only the rows
    the index's marks say a rule may fire on; the findings are the same.
    """
    issues: list[Issue] = []
    gated: set[int] = set()  # rows whose record failed a gate rule: nothing else is checked
    line_rules, per_record = rules_on("bad_line"), record_rules()
    no_secrets = tuple(r for r in per_record if r.code != SECRET_RULE)
    n = len(index)
    chosen = not every_row and selection_usable(index)
    if not chosen:
        rows: Sequence[tuple[int, bool]] = [(row, True) for row in range(n)]
        quick = bytes(n)  # row → 1 where the quick reading may judge it (lint_marked.py)
    else:
        rows, quick = rows_to_read(index), index.marks[:n].tobytes().translate(QUICK_MARKS)
    with RawLines.for_rows(index, len(rows)) as raw:
        for row, secrets in rows:
            path, line = index.location(row)
            found = read_quick(raw, row) if quick[row] else None
            if found is not None:
                issues.extend(Issue(path, line, code, msg) for code, msg in found)
                continue
            got = index.get(row)
            if isinstance(got, BadLine):
                issues.extend(
                    Issue(path, line, r.code, m) for r in line_rules for m in r.check(got)
                )
                continue
            findings = check_record(got.raw, got, per_record if secrets else no_secrets)
            if findings and RULES[findings[0][0]].gate:  # a gate's findings come alone
                gated.add(row)
            issues.extend(Issue(path, line, code, msg) for code, msg in findings)
    if chosen and changed_since_built(index):
        # The marks that chose the rows are of the bytes indexed; a member rewritten since may
        # hold anything now: the full reading judges what is there (the reference's answer).
        return lint_index(index, every_row=True)
    frozen = frozenset(gated)
    for r in rules_on("run"):
        issues.extend(Issue(path, line, r.code, msg) for path, line, msg in r.check(index, frozen))
    order = {m.member.path: i for i, m in enumerate(index.members)}
    issues.sort(key=lambda i: (order.get(i.file, len(order)), i.line))
    return issues
