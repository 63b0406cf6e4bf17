"""Reading a record's fields by type: a wrong type is noted as a problem, never raised.

:class:`Fields` is what :func:`tracetui.model.spans.normalize` reads a record through: each
accessor returns the value when it has the expected type (or a harmless near miss, like an id
written as a number) and otherwise notes a field-level problem for lint and the detail pane.
The integer and number ranges here are shared with the index's fast facts
(:mod:`tracetui.model.facts`), so both paths clamp the same values.
"""

from __future__ import annotations

from typing import Any

INT_MIN, INT_MAX = -(2**63), 2**64 - 1
"""Integers are read within the range JSON parsers read as integers (orjson: int64 and uint64)
and write back; a value outside (it came as a float: ``3 * 2**64``, ``1e300``) is clamped to it,
with a problem noted, so no output or arithmetic downstream meets it."""
NUM_MAX = float(2**53)
"""Numbers (durations) past this, in magnitude, are clamped with a problem: 2**53 ms is 285,000
years, and times computed from them (an OTLP end time) must stay finite."""


def as_text(v: Any) -> str:
    """A value of an unexpected type as the span reads it: its text (a note written as a number
    or a list). A value nested too deeply for ``str`` (a thousand brackets, which JSON parsers
    accept) reads as a short description instead of failing every reader of its record."""
    try:
        return str(v)
    except RecursionError:
        return f"[a {type(v).__name__} nested too deeply to show]"


class Fields:
    """Typed accessors that record a problem instead of raising on a wrong type."""

    __slots__ = ("obj", "problems")

    def __init__(self, obj: dict[str, Any]) -> None:
        self.obj = obj
        self.problems: list[str] = []

    def _wrong(self, key: str, want: str) -> None:
        value = self.obj.get(key)
        self.problems.append(f"{key}: expected {want}, got {type(value).__name__}")

    def int_(self, key: str) -> int | None:
        v = self.obj.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self._wrong(key, "an integer")
            return None
        if isinstance(v, float):
            if not v.is_integer():
                self._wrong(key, "an integer")
                return None
            v = int(v)
        if not INT_MIN <= v <= INT_MAX:  # 2**64 * 3, 1e300: kept in range, the record kept
            clamped = max(INT_MIN, min(INT_MAX, v))
            self.problems.append(f"{key}: {v:.3g} is past the 64-bit range; read as {clamped}")
            return clamped
        return v

    def num(self, key: str) -> float | None:
        v = self.obj.get(key)
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            self._wrong(key, "a number")
            return None
        if not -NUM_MAX <= v <= NUM_MAX:  # a duration of 1e308 ms would overflow any arithmetic
            clamped = max(-NUM_MAX, min(NUM_MAX, float(v)))
            self.problems.append(f"{key}: {float(v):.3g} is out of range; read as {clamped:.0f}")
            return clamped
        return float(v)

    def str_(self, key: str) -> str | None:
        v = self.obj.get(key)
        if v is None:
            return None
        if not isinstance(v, str):
            self._wrong(key, "a string")
            return as_text(v)
        return v

    def id_(self, key: str) -> str | None:
        """Ids are strings; numbers are accepted (as text) since some writers emit them."""
        v = self.obj.get(key)
        if v is None or v == "":
            return None
        if isinstance(v, (int, str)) and not isinstance(v, bool):
            return str(v)
        self._wrong(key, "a string id")
        return None

    def bool_(self, key: str) -> bool | None:
        v = self.obj.get(key)
        if v is None:
            return None
        if not isinstance(v, bool):
            self._wrong(key, "true or false")
            return None
        return v

    def text(self, key: str) -> str:
        v = self.obj.get(key)
        if v is None:
            return ""
        if not isinstance(v, str):
            self._wrong(key, "a string")
            return as_text(v)
        return v

    def argv(self, key: str) -> tuple[str, ...]:
        v = self.obj.get(key)
        if v is None:
            return ()
        if isinstance(v, str):
            self.problems.append(f"{key}: expected an argv list, got a shell string")
            return (v,)
        if not isinstance(v, list):
            self._wrong(key, "a list of strings")
            return ()
        if not all(isinstance(a, str) for a in v):
            self._wrong(key, "a list of strings")
        return tuple(a if isinstance(a, str) else str(a) for a in v)
