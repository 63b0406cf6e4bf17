"""What a parsed record in one of tracetui's dialects says about its exit and its streams, read
straight from its fields, without building a :class:`~tracetui.model.spans.Span`.

For the passes that judge many rows by the incident rules' predicates (``summary``'s suspicion
count, lint's rows that only TT019 and TT022 may fire on): normalising a record reads some thirty
fields through typed accessors, where these need a handful. Each answer is what ``normalize``
would make of the same fields, or :class:`NotPlain` where a field holds a value of a type (or
range) normalising would note as a problem or read as another (an exit code of ``1.0``): then
the caller gives the record to the rules themselves.
tests/unit/test_record_evidence.py holds both to ``normalize`` on random records.
"""

from __future__ import annotations

from typing import Any

from tracetui.analysis.lint_registry import OWN_DIALECTS
from tracetui.model.fields import INT_MAX, INT_MIN
from tracetui.model.markers import Marker, find_marker
from tracetui.model.spans import FEEDBACK, TRUNCATION_SPAN, NotASpan, detect_dialect
from tracetui.model.truncation import judge_stream

Evidence = tuple[bool | None, int | None, int | None, Marker | None]
"""One stream's ``(truncated, bytes, hidden bytes, marker)``, as its StreamFacts holds them."""


class NotPlain(Exception):
    """A field holds a value normalising would note as a problem: the rules must judge it."""


def _plain_int(v: Any) -> bool:
    """An integer the span reads as it is (no bool, no float, inside the 64-bit range)."""
    return type(v) is int and INT_MIN <= v <= INT_MAX


_KEYS = {
    s: (f"{s}_bytes", f"{s}_cap", f"{s}_head_bytes", f"{s}_tail_bytes", f"{s}_truncated")
    for s in ("stdout", "stderr")
}
_PREVIEW = {s: f"preview_{s}" for s in ("stdout", "stderr")}
_TAIL = {s: f"{s}_tail" for s in ("stdout", "stderr")}


def stream_evidence(obj: dict[str, Any], name: str, feedback: bool) -> Evidence:
    """Stream ``name``'s evidence (``feedback``: the record is in the feedback dialect, which
    keeps a tail and no byte counts); raises :class:`NotPlain`.

    (Written flat: lint runs it twice for most rows it reads.)"""
    get = obj.get
    if feedback:
        tail = get(_TAIL[name])
        if tail is not None and type(tail) is not str:
            raise NotPlain(_TAIL[name])
        marker = find_marker(tail) if tail else None
        truncated, hidden = judge_stream(None, None, None, marker, None, None)
        return truncated, None, hidden, marker
    k_bytes, k_cap, k_head, k_tail, k_flag = _KEYS[name]
    nbytes, cap, head, tail_bytes = get(k_bytes), get(k_cap), get(k_head), get(k_tail)
    for v in (nbytes, cap, head, tail_bytes):
        if v is not None and not (type(v) is int and INT_MIN <= v <= INT_MAX):
            raise NotPlain(name)
    flag, preview = get(k_flag), get(_PREVIEW[name])
    if (flag is not None and type(flag) is not bool) or (
        preview is not None and type(preview) is not str
    ):
        raise NotPlain(name)
    marker = find_marker(preview) if preview else None
    truncated, hidden = judge_stream(nbytes, cap, flag, marker, head, tail_bytes)
    return truncated, nbytes, hidden, marker


def own_dialect(obj: Any) -> str | None:
    """The dialect of a parsed record in one of tracetui's own dialects, or None (not a record,
    no known dialect, an importer's): only those are judged from their fields here."""
    if not isinstance(obj, dict):
        return None
    try:
        dialect = detect_dialect(obj)
    except NotASpan:
        return None
    return dialect if dialect in OWN_DIALECTS else None


def exit_code(obj: dict[str, Any], dialect: str) -> int | None:
    """The record's exit code as its span reads it (``returncode`` first in the truncation-span
    dialect, when present); raises :class:`NotPlain`."""
    key = "returncode" if dialect == TRUNCATION_SPAN and "returncode" in obj else "exit_code"
    value = obj.get(key)
    if value is None or _plain_int(value):
        return value
    raise NotPlain(key)


def note(obj: dict[str, Any]) -> str | None:
    """The agent's note as its span reads it; raises :class:`NotPlain` for one of another type."""
    value = obj.get("agent_note")
    if value is None or type(value) is str:
        return value
    raise NotPlain("agent_note")


def argv(obj: dict[str, Any], dialect: str) -> tuple[str, ...]:
    """The record's argv as its span reads it (``command`` in the feedback dialect; a shell
    string is one word); raises :class:`NotPlain` for anything but a string or strings."""
    key = "command" if dialect == FEEDBACK else "argv"
    value = obj.get(key)
    if value is None:
        return ()
    if type(value) is str:
        return (value,)
    if type(value) is list and all(type(a) is str for a in value):
        return tuple(value)
    raise NotPlain(key)


def text(obj: dict[str, Any], key: str) -> str | None:
    """A text field (``cwd``) as the span reads it; raises :class:`NotPlain` for another type."""
    value = obj.get(key)
    if value is None or type(value) is str:
        return value
    raise NotPlain(key)
