"""A re-run compared with the kept whole output, not only with the window the agent saw.

When ``tracetui run`` kept the stream (:mod:`tracetui.record.kept`), the re-run can be diffed
against all of it: the kept bytes are checked against their hash first, the new output is
redacted with the recorder's built-in patterns (the kept bytes were, so a secret printed both
times compares equal; patterns given with ``--redact`` back then are not recorded, so what they
hid shows as a change), both go through the same normalisation as the window diff, and the
result is a unified diff. The verdict still comes from the hashes (:func:`tracetui.rerun.diff.verdict`).
At most :data:`FULL_MAX` bytes of each side are compared.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tracetui.record.kept_read import KeptMismatch, NotKept, find_kept, open_verified
from tracetui.record.redact import Redactor
from tracetui.rerun.diff import Output, decode
from tracetui.rerun.normalize import RULE_NAMES, normalize_text
from tracetui.store.index import RunIndex

FULL_MAX = 4 << 20
"""Bytes of each side read for the whole-output diff."""


@dataclass(frozen=True, slots=True)
class FullDiff:
    """The kept whole stream against the whole re-run, or why they could not be compared."""

    lines: list[str]
    """The unified diff (no newlines); empty when they match after normalisation."""
    compared: bool
    """False when the kept bytes could not be used: ``note`` says why."""
    note: str | None
    """One line: why not compared, or that only the first :data:`FULL_MAX` bytes were."""


def full_diff(
    index: RunIndex,
    raw: dict[str, object],
    stream: str,
    new: Output,
    rules: Iterable[str] = RULE_NAMES,
    *,
    binary: bool = False,
    limit: int = FULL_MAX,
) -> FullDiff | None:
    """Diff ``stream`` as kept for the record ``raw`` against ``new``; None when none was kept."""
    try:
        kept = find_kept(index.run.base, raw, stream, imported=index.run.source_format)
    except NotKept:
        return None
    try:
        with open_verified(kept) as verified:
            then = b"".join(verified.chunks(0, min(kept.size, limit)))
    except KeptMismatch as exc:
        return FullDiff([], False, f"the kept output was not used: {exc}")
    except NotKept as exc:
        return FullDiff([], False, f"the kept output is not there: {exc}")
    now, _count = Redactor().redact_bytes(new.read(0, min(new.total, limit)))
    label = f"then: {stream} (kept whole, redacted)"
    if kept.note is not None:  # another agent's copy (imported): redact it the same way here
        then, _count = Redactor().redact_bytes(then)
        label = f"then: {stream} (kept by the agent, not verified; redacted the same way)"
    cut = kept.size > limit or new.total > limit
    rules = tuple(rules)
    lines = list(
        difflib.unified_diff(
            normalize_text(decode(then, binary), rules).split("\n"),
            normalize_text(decode(now, binary), rules).split("\n"),
            fromfile=label,
            tofile=f"now: {stream} (the whole re-run, redacted the same way)",
            lineterm="",
            n=3,
        )
    )
    note = f"only the first {limit:,} bytes of each side compared" if cut else None
    return FullDiff(lines, True, note)


def result_diff(result: Any, stream: str, rules: Iterable[str] = RULE_NAMES) -> FullDiff | None:
    """:func:`full_diff` for a :class:`~tracetui.rerun.runner.RerunResult` (duck-typed: this module
    is below the runner)."""
    target = result.target
    new = result.captured.stream(stream)
    return full_diff(target.index, target.span.raw, stream, new, rules, binary=result.binary)


def doc_fields(result: Any, rules: Iterable[str] = RULE_NAMES) -> dict[str, str | None]:
    """``{s}_full_diff`` (the diff, None when not compared) and ``{s}_full_diff_note`` for
    ``tracetui rerun --json``."""
    doc: dict[str, str | None] = {}
    for stream in ("stdout", "stderr"):
        full = result_diff(result, stream, rules)
        doc[f"{stream}_full_diff"] = "\n".join(full.lines) if full and full.compared else None
        doc[f"{stream}_full_diff_note"] = full.note if full else "not kept"
    return doc
