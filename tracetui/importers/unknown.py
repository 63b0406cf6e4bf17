"""Saying what a file is, when it is JSON but no trace tracetui can read.

Before, such a file was read as tracetui JSON Lines: a JSON array of 400 objects became one bad
line, a pretty-printed document thousands. Now the file gets one line — what it looked like ("a
JSON array of 400 objects with keys sku, qty") and the formats tracetui reads — and the command
exits 2. A file of a known agent in a shape no importer reads says which agent it looks like and
what was missing.

Only a JSON document, or JSON Lines none of whose lines is one of tracetui's records, is judged:
anything else (text, a half-written first line, one of tracetui's runs with bad lines) is read
as before. Every string taken from the file is neutralised and bounded here.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson

from tracetui.importers._common import SNIFF_BYTES, open_bytes
from tracetui.importers.openhands_v1 import EVENT_KINDS
from tracetui.importers.registry import IMPORTERS
from tracetui.model.spans import NotASpan, detect_dialect
from tracetui.model.text import neutralize_line

WHOLE_BYTES = 16 << 20
"""A document up to this size is parsed whole (to count it); a bigger one is judged by its head."""
KEYS_SHOWN = 6
"""Keys named in the description; the rest are counted."""
NAME_CHARS = 40
"""Longest key or kind quoted from the file."""
LOOKED_AT = 200
"""Objects of an array or lines examined for the description and the agent clues."""
LOOKS_LIKE = "looks like "
_OWN_KEY = re.compile(r'"(?:schema|span_type|stdout_tail|stderr_tail|argv|preview_stdout)"\s*:')
_OWN_KEYS = ("span_type", "stdout_tail", "stderr_tail", "argv", "preview_stdout")


def not_a_trace(path: str) -> str | None:
    """One line saying what ``path`` is and that tracetui cannot read it; None when it may be a
    trace (tracetui's own, or not JSON: read as JSON Lines as before). Never raises."""
    try:
        what = _look(path)
    except Exception:  # an odd file only loses the description; it is read as before
        return None
    if what is None:
        return None
    names = ", ".join(imp.name for imp in IMPORTERS)
    reads = f"tracetui reads {names} and its own JSON Lines runs"
    if what.startswith(LOOKS_LIKE):
        return f"{what}; {reads}"
    return f"{what}: no trace tracetui knows ({reads})"


def _look(path: str) -> str | None:
    with open_bytes(path) as fh:
        head = fh.read(SNIFF_BYTES)
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    if not text or text[0] not in "[{":
        return None
    whole = len(head) < SNIFF_BYTES
    lines = _json_lines(text, whole)
    if lines is not None:
        what = _judge_lines(lines, whole)
        if what is not None and not whole and _ours_later(path, head.rfind(b"\n") + 1):
            return None  # a run of ours after other JSON lines: read as before, never refused
        return what
    value = _document(path)
    if value is _CUT:
        return _judge_big(text)
    if value is _BROKEN:
        return None  # a document cut short or malformed: read as before
    if _is_ours(value):
        return None
    return _agent_clue([value, *_inner(value)]) or _describe(value)


# ------------------------------------------------------------------------------- JSON Lines
def _json_lines(text: str, whole: bool) -> list[Any] | None:
    """The parsed lines when ``text`` is JSON Lines (complete lines, each JSON, and more after
    the first); else None. The last line of a head that is not the whole file may be cut: it
    is left out (a first line longer than the head is no evidence either way)."""
    raw = text.split("\n")
    more = len(raw) > 1 and any(r.strip() for r in raw[1:])
    if not whole:
        raw = raw[:-1]
    raw = [r for r in raw if r.strip()]
    if not raw or not more:
        return None
    out = []
    for r in raw:
        try:
            out.append(orjson.loads(r))
        except orjson.JSONDecodeError:
            return None
    return out


def _ours_later(path: str, start: int) -> bool:
    """Whether the file from ``start`` (the head's cut last line) on names one of the keys a
    record of ours has. Before, a run whose first 64 KiB were other JSON lines (a log's) was
    refused whole. Read once, a MiB at a time (about 5 ms a MiB)."""
    overlap = 32  # longer than any key searched for: one cut across two pieces is still seen
    with open_bytes(path) as fh:
        fh.read(start)
        tail = b""
        while chunk := fh.read(1 << 20):
            data = tail + chunk
            if _OWN_KEY_BYTES.search(data):
                return True
            tail = data[-overlap:]
    return False


_OWN_KEY_BYTES = re.compile(
    rb'"(?:schema|span_type|stdout_tail|stderr_tail|argv|preview_stdout|stdout_bytes'
    rb'|returncode|command)"'
)
"""The keys :func:`_is_ours` looks for (through detect_dialect), as they are written."""


def _judge_lines(values: list[Any], whole: bool) -> str | None:
    if any(_is_ours(v) for v in values):
        return None  # one of tracetui's runs (bad lines and all): read as before
    clue = _agent_clue(values)
    if clue:
        return clue
    count = f"{len(values):,}" if whole else f"at least {len(values):,}"
    return f"JSON Lines of {count} {_kinds_of(values)}"


# ------------------------------------------------------------------------------- documents
_CUT = object()
_BROKEN = object()


def _document(path: str) -> Any:
    """The whole file parsed; :data:`_CUT` when it is too big to parse here, :data:`_BROKEN`
    when it is no valid JSON."""
    with open_bytes(path) as fh:
        data = fh.read(WHOLE_BYTES + 1)
    if len(data) > WHOLE_BYTES:
        return _CUT
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return _BROKEN


def _judge_big(text: str) -> str | None:
    """A document too big to parse whole: its first element (an array) from the head. A head
    naming one of tracetui's keys may be a run whose first record is huge: read as before."""
    if _OWN_KEY.search(text):
        return None
    if text[0] == "{":
        return "a JSON object of more than 16 MiB"
    first = text.find("{", 1)
    if first < 0 or text[1:first].strip(" \t\r\n,"):
        return "a JSON array of more than 16 MiB"
    try:
        obj, _end = json.JSONDecoder().raw_decode(text, first)
    except ValueError:
        return "a JSON array of more than 16 MiB"
    if _is_ours(obj):
        return None
    return _agent_clue([obj]) or f"a JSON array of more than 16 MiB of {_kinds_of([obj], 2)}"


def _inner(value: Any) -> list[Any]:
    """The objects an agent clue may sit in: an array's items, a document's lists' items."""
    if isinstance(value, list):
        return value[:LOOKED_AT]
    out: list[Any] = []
    if isinstance(value, dict):
        for v in value.values():
            if isinstance(v, list):
                out.extend(v[:LOOKED_AT])
    return out[:LOOKED_AT]


def _describe(value: Any) -> str:
    if isinstance(value, list):
        if not value:
            return "an empty JSON array"
        return f"a JSON array of {len(value):,} {_kinds_of(value[:LOOKED_AT], len(value))}"
    if isinstance(value, dict):
        return "an empty JSON object" if not value else f"a JSON object with keys {_keys(value)}"
    return f"a JSON {_type(value)}"


# ------------------------------------------------------------------------------- wording
def _kinds_of(values: list[Any], total: int | None = None) -> str:
    """``objects with keys a, b`` / ``numbers`` / ``values (3 objects, 1 string)``."""
    kinds = Counter(_type(v) for v in values)
    if len(kinds) == 1:
        kind = next(iter(kinds))
        plural = _plural(kind, total if total is not None else len(values))
        if kind == "object":
            objs = [v for v in values if isinstance(v, dict)]
            return f"{plural} with keys {_keys(*objs)}" if any(objs) else f"empty {plural}"
        return plural
    mix = ", ".join(f"{n:,} {_plural(k, n)}" for k, n in kinds.most_common())
    return f"values ({mix})"


def _keys(*objs: dict[str, Any]) -> str:
    """The keys of ``objs``, most common first (file order among equals), bounded."""
    seen: Counter[str] = Counter()
    for obj in objs:
        seen.update(obj.keys())
    ordered = [k for k, _n in seen.most_common()]
    shown = ", ".join(_name(k) for k in ordered[:KEYS_SHOWN])
    more = len(ordered) - KEYS_SHOWN
    return shown + (f" and {more:,} more" if more > 0 else "")


def _name(s: Any) -> str:
    text = neutralize_line(str(s))
    return text if len(text) <= NAME_CHARS else text[: NAME_CHARS - 1] + "…"


def _type(v: Any) -> str:
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool):
        return "boolean"
    if v is None:
        return "null"
    return "number"


def _plural(kind: str, n: int) -> str:
    if n == 1:
        return kind
    return "nulls" if kind == "null" else kind + "s"


def _is_ours(value: Any) -> bool:
    """A record of one of tracetui's dialects (or near enough to be read as one, bad or not)."""
    if not isinstance(value, dict):
        return False
    if any(k in value for k in _OWN_KEYS):
        return True
    try:
        detect_dialect(value)
    except NotASpan:
        return False
    return True


# ------------------------------------------------------------------------------- agent clues
def _openhands(obj: dict[str, Any]) -> str | None:
    kind = obj.get("kind")
    if isinstance(kind, str) and (
        "source" in obj or "tool_call_id" in obj or kind.endswith(("Event", "Observation"))
    ):
        return "kind"
    if ("action" in obj or "observation" in obj) and "source" in obj:
        return "action" if "action" in obj else "observation"
    return None


def _claude(obj: dict[str, Any]) -> str | None:
    for key in ("sessionId", "parentUuid", "leafUuid"):
        if key in obj:
            return key
    return None


def _codex(obj: dict[str, Any]) -> str | None:
    kind = obj.get("type")
    if isinstance(kind, str) and kind in ("session_meta", "turn_context", "response_item"):
        return f"type {kind}"
    if "thread_id" in obj:
        return "thread_id"
    return None


def _swe(obj: dict[str, Any]) -> str | None:
    return "trajectory" if "trajectory" in obj else None


def _mini(obj: dict[str, Any]) -> str | None:
    info = obj.get("info")
    if isinstance(info, dict) and "mini_version" in info:
        return "info.mini_version"
    return "trajectory_format" if "trajectory_format" in obj else None


def _inspect(obj: dict[str, Any]) -> str | None:
    return "eval" if "eval" in obj and ("samples" in obj or "version" in obj) else None


def _openhands_missing(objs: list[dict[str, Any]]) -> str:
    kinds = Counter(str(o["kind"]) for o in objs if isinstance(o.get("kind"), str))
    unknown = [k for k, _n in kinds.most_common() if k not in EVENT_KINDS]
    if unknown:
        shown = ", ".join(_name(k) for k in unknown[:KEYS_SHOWN])
        return f"no events tracetui knows (kinds: {shown})"
    return "no event of a shape tracetui reads"


# (agent, what gives it away, what tracetui found missing)
_CLUES: list[
    tuple[str, Callable[[dict[str, Any]], str | None], Callable[[list[dict[str, Any]]], str]]
] = [
    ("an OpenHands trace", _openhands, _openhands_missing),
    (
        "a Claude Code session",
        _claude,
        lambda objs: "no line of a type tracetui reads (user, assistant, summary, system)",
    ),
    ("a Codex rollout", _codex, lambda objs: "no event tracetui reads (no payload or item)"),
    (
        "a mini-swe-agent trajectory",
        _mini,
        lambda objs: "no messages[] of role and content tracetui reads",
    ),
    (
        "a SWE-agent trajectory",
        _swe,
        lambda objs: "no trajectory[] steps with an action or observation",
    ),
    ("an Inspect AI log", _inspect, lambda objs: "no samples[] tracetui reads"),
]


def _agent_clue(values: list[Any]) -> str | None:
    """``looks like <agent> (has 'k') but <what is missing>`` for the first agent whose clue
    some object shows; None when none does."""
    objs = [v for v in values[:LOOKED_AT] if isinstance(v, dict)]
    for agent, clue, missing in _CLUES:
        for obj in objs:
            found = clue(obj)
            if found:
                return f"{LOOKS_LIKE}{agent} (has {_name(found)!r}) but {missing(objs)}"
    return None
