"""The lint rule registry: every rule of ``tracetui lint`` is one function decorated with :func:`rule`.

This module only holds the registry; the rules live in :mod:`tracetui.analysis.lint_rules` (which
imports this one) and :mod:`tracetui.analysis.lint` runs them. Keeping the registry apart lets
the rules module register into it without the runner and the rules importing each other.

A rule says what it looks at (``on``), and yields only messages (or, for run rules, where each
finding is and its message): the code and severity come from the decorator, so they are written
once. Rules of one kind run in the order they were registered, which is also the order of their
findings on one line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from tracetui.model.spans import FEEDBACK, TRACETUI, TRUNCATION_SPAN, Span

ERROR = "error"
WARNING = "warning"

Scope = Literal["tool", "record", "bad_line", "run"]
"""What a rule is given:

* ``tool``: ``(record dict, Span)`` for each record with ``span_type: "tool"`` (the contract);
* ``record``: ``(record dict, Span)`` for every record that could be read;
* ``bad_line``: ``(BadLine)`` for each line that could not be read as a record;
* ``run``: ``(RunIndex, gated rows)`` once per run; it yields ``(file, line, message)``.
"""

Formats = Literal["all", "own", "imported"]
"""Which records a rule can judge:

* ``all``: every record;
* ``own``: records in tracetui's JSONL dialects (``tracetui/1``, truncation-span, feedback): the
  contract rules, which judge how a wrapper filled its own fields;
* ``imported``: records converted from another agent's trace (``import/<format>``), whose
  importer records what the rule reads (a call without a result, the format's own verdict).

A rule says nothing on records it cannot judge: it neither guesses nor reports a format's
missing fields as faults.
"""

Check = TypeVar("Check", bound=Callable[..., Iterator[Any]])


@dataclass(frozen=True, slots=True)
class Rule:
    """One registered lint rule."""

    code: str
    severity: str
    description: str
    """The one-line description shown by ``--list-rules`` and in docs/lint.md."""
    on: Scope
    check: Callable[..., Iterator[Any]]
    gate: bool = False
    """A finding from a gate rule is the record's only finding: no other rule checks it."""
    formats: Formats = "all"
    """Which records the rule judges (the others it leaves alone)."""

    def judges(self, imported: bool) -> bool:
        """Whether the rule applies to a record that is (or is not) imported."""
        return self.formats == "all" or (self.formats == "imported") == imported


RULES: dict[str, Rule] = {}
"""Code → rule, in registration order."""


def rule(
    code: str,
    severity: str,
    description: str,
    *,
    on: Scope = "record",
    gate: bool = False,
    formats: Formats = "all",
) -> Callable[[Check], Check]:
    """Register the decorated function as lint rule ``code``; the function itself is unchanged."""
    if severity not in (ERROR, WARNING):
        raise ValueError(f"{code}: severity must be {ERROR!r} or {WARNING!r}, not {severity!r}")

    def register(check: Check) -> Check:
        if code in RULES:
            raise ValueError(f"lint rule {code} registered twice")
        RULES[code] = Rule(code, severity, description, on, check, gate, formats)
        return check

    return register


OWN_DIALECTS = frozenset({TRACETUI, TRUNCATION_SPAN, FEEDBACK})


def imported(span: Span) -> bool:
    """Whether a span was converted from another agent's trace (an ``import/<format>`` record)."""
    return span.dialect not in OWN_DIALECTS


def rules_on(scope: Scope) -> tuple[Rule, ...]:
    """The rules of one kind, in registration order."""
    return tuple(r for r in RULES.values() if r.on == scope)
