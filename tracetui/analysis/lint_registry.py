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

ERROR = "error"
WARNING = "warning"

Scope = Literal["tool", "record", "bad_line", "run"]
"""What a rule is given:

* ``tool``: ``(record dict, Span)`` for each record with ``span_type: "tool"`` (the contract);
* ``record``: ``(record dict, Span)`` for every record that could be read;
* ``bad_line``: ``(BadLine)`` for each line that could not be read as a record;
* ``run``: ``(RunIndex, gated rows)`` once per run; it yields ``(file, line, message)``.
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


RULES: dict[str, Rule] = {}
"""Code → rule, in registration order."""


def rule(
    code: str, severity: str, description: str, *, on: Scope = "record", gate: bool = False
) -> Callable[[Check], Check]:
    """Register the decorated function as lint rule ``code``; the function itself is unchanged."""
    if severity not in (ERROR, WARNING):
        raise ValueError(f"{code}: severity must be {ERROR!r} or {WARNING!r}, not {severity!r}")

    def register(check: Check) -> Check:
        if code in RULES:
            raise ValueError(f"lint rule {code} registered twice")
        RULES[code] = Rule(code, severity, description, on, check, gate)
        return check

    return register


def rules_on(scope: Scope) -> tuple[Rule, ...]:
    """The rules of one kind, in registration order."""
    return tuple(r for r in RULES.values() if r.on == scope)
