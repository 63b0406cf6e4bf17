"""Which span a re-run runs: an id (or unique id prefix) or a viewer row → :class:`Target`.

A trace file is untrusted input, so a span is refused here, before anything runs, when its argv
could not be run exactly as recorded: no argv, a shell string, an item that is not a string or
holds a NUL, an argv whose secrets the recorder replaced, or a span an importer marked
``"rerunnable": false``. :mod:`tracetui.rerun.runner` re-exports all of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tracetui.model.spans import FEEDBACK, Span
from tracetui.record.redact import redacted_argv_refusal
from tracetui.store import ids
from tracetui.store.index import RunIndex


class RerunError(Exception):
    """A re-run that cannot even be attempted (unknown or ambiguous id, no argv)."""


@dataclass(frozen=True, slots=True)
class Target:
    """The span to re-run, found in an index."""

    index: RunIndex
    row: int
    span: Span
    argv: tuple[str, ...]
    """Exactly the argv the record holds."""
    cwd: str
    """The recorded cwd, a relative one resolved against the run's folder."""

    @property
    def command_id(self) -> str | None:
        return self.span.command_id


def find_target(indexes: Sequence[RunIndex], ident: str) -> Target:
    """The span ``ident`` names (the rule: :func:`tracetui.store.ids.resolve`)."""
    try:
        index, row = ids.resolve(indexes, ident)
    except ids.IdError as err:
        raise RerunError(str(err)) from None
    return target_for_row(index, row, index.ids[row])


def target_for_row(index: RunIndex, row: int, ident: str | None = None) -> Target:
    """The span at ``row`` of ``index`` as a re-run target, or RerunError saying why it is not one.

    Refused: a row that is no span (a bad line, rotated away), a span with no argv, and a span
    an importer marked ``"rerunnable": false`` (another agent's non-shell tool, e.g. a file
    read: its argv is a description, not a command), and an argv whose secrets the recorder
    replaced (``argv_redacted``: it would run with ``[REDACTED]`` in their place).
    """
    span = index.span(row)
    name = ident if ident is not None else index.ids[row] if row < len(index.ids) else None
    if span is None:
        what = f"span {name!r}" if name else f"row {row + 1}"
        raise RerunError(f"{what} cannot be read as a span (a bad line, or rotated away?)")
    if span.raw.get("rerunnable") is False:
        tool = span.tool_name or "this tool"
        source = span.raw.get("source_format")
        origin = f" imported from {source}" if isinstance(source, str) else ""
        raise RerunError(
            f"span {span.command_id!r} is a {tool} call{origin}, not a shell command: "
            "it cannot be re-run (rerunnable: false)"
        )
    # The record's own value, not Span.argv (which turns any item into text for display).
    raw = span.raw.get("command" if span.dialect == FEEDBACK else "argv")
    if raw is None or (isinstance(raw, list) and (not raw or raw[0] == "")):
        raise RerunError(f"span {span.command_id!r} records no argv to re-run")
    problem = argv_problem(raw) or redacted_argv_refusal(span.raw, raw)
    if problem is not None:
        raise RerunError(f"span {span.command_id!r} cannot be re-run: {problem}")
    return Target(index, row, span, tuple(raw), index.run.resolve_cwd(span.cwd))


_KINDS = {bool: "true or false", int: "a number", float: "a number", dict: "an object"}


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return _KINDS.get(type(value), "a list" if isinstance(value, list) else type(value).__name__)


def argv_problem(argv: object) -> str | None:
    """Why ``argv`` cannot be run as it is (one line), or None for a non-empty list of strings
    without NUL whose first item is not empty. No item is ever turned into text to make it fit."""
    if isinstance(argv, str):
        return "its argv is a shell string, not a list of arguments"
    if not isinstance(argv, (list, tuple)):
        return f"its argv is {_kind(argv)}, not a list of strings"
    if not argv:
        return "its argv is empty"
    for i, item in enumerate(argv):
        if not isinstance(item, str):
            return f"argv[{i}] is {_kind(item)}, not a string"
        if "\x00" in item:
            return f"argv[{i}] holds a NUL character (no program can receive it)"
    if not argv[0]:
        return "its program name (argv[0]) is empty"
    return None
