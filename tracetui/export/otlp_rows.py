"""One row's OTLP/JSON span in Python: the exact road of the fast writers (``otlp_fast``).

:class:`RowWriter` builds a span's JSON without a :class:`~tracetui.model.spans.Span` or a dict
per attribute: the 37 fields a span is made of are fetched in one ``map(obj.get, …)``, their
types checked at once against a remembered signature, and the attributes present pick a ``%``
template. A record holding anything else (a wrong type, a number out of range, a line that does
not parse) goes through ``parse_line`` and the reference exporter (``otlp.Exporter``) for that
row, which normalises it and notes the problem.

The rules are the model's own, not copies: dialects by :func:`detect_dialect`, truncation by
:func:`find_marker` and :func:`judge_stream`, failure by :func:`judge_exit`, ids and times by
``otlp``'s functions. The C extension (``_otlp_row``) does the ordinary rows faster and hands the
rest to this module; tests/unit/test_otlp_fast*.py hold all three roads to identical output.
"""

from __future__ import annotations

import os
from itertools import compress
from operator import is_not
from typing import Any

import orjson

from tracetui.export import otlp
from tracetui.model.fields import NUM_MAX
from tracetui.model.flags import TRUNC_UNKNOWN, TRUNCATED
from tracetui.model.markers import find_marker
from tracetui.model.spans import (
    FEEDBACK,
    STREAMS,
    TRACETUI,
    TRUNCATION_SPAN,
    NotASpan,
    Span,
    detect_dialect,
    judge_exit,
)
from tracetui.model.text import dump_json
from tracetui.model.truncation import judge_stream
from tracetui.store.index import RunIndex
from tracetui.store.reader import RawLine, parse_line

_MEMO_MAX = 4096
_CLIPS = (None, "head", "tail", "head_tail")
_dumps = orjson.dumps


class _Slow(Exception):
    """A field of an unexpected type: the reference path reads this row."""


def _key(name: str) -> bytes:
    """The start of an attribute object, up to its value's member name."""
    return b'{"key":' + _dumps(name) + b',"value":{'


# The value member of each kind of attribute, with a placeholder for the value (a string and a
# bool come pre-encoded as JSON, an integer as an int; ``otlp.attr`` writes the same).
_STR, _INT, _BOOL = b'"stringValue":%s}}', b'"intValue":"%d"}}', b'"boolValue":%s}}'
_LIST = b'"arrayValue":{"values":[%s]}}}'
_STREAM_SLOTS = [
    ("bytes", _INT),
    ("cap", _INT),
    ("truncated", _BOOL),
    ("clip", _STR),
    ("hidden_bytes", _INT),
    ("shown_bytes", _INT),
    ("full_sha256", _STR),
    ("items", _INT),
    ("preview_items", _INT),
]
_SLOTS = [
    ("gen_ai.tool.name", _STR),
    ("gen_ai.tool.call.id", _STR),
    ("process.command_args", _LIST),
    ("process.exit.code", _INT),
    ("error.type", _STR),
    ("tracetui.cwd", _STR),
    ("tracetui.agent_note", _STR),
    ("tracetui.runner_error", _STR),
    ("tracetui.exit_unknown", _BOOL),
    ("tracetui.kind", _STR),
    ("tracetui.parent_command_id", _STR),
    ("tracetui.dialect", _STR),
    ("tracetui.encoding", _STR),
    ("tracetui.ok_preview", _BOOL),
    ("tracetui.redacted", _INT),
    ("tracetui.truncated", _BOOL),
    ("tracetui.hidden_bytes", _INT),
    *((f"tracetui.{s}.{k}", member) for s in STREAMS for k, member in _STREAM_SLOTS),
    ("tracetui.file", _STR),
    ("tracetui.line", _INT),
    ("tracetui.time_unknown", _BOOL),
]
"""Every attribute a span may carry, in the order ``otlp._attributes`` writes them."""
_PIECES = [_key(k) + member for k, member in _SLOTS]
assert not any(b"%" in _key(k) for k, _ in _SLOTS)  # keys are fixed names: no stray placeholder
_NONES = (None,) * len(_SLOTS)
_HEAD = (
    b'{"traceId":"%s","spanId":"%s","name":%s,"kind":'
    + str(otlp.SPAN_KIND_INTERNAL).encode()
    + b',"startTimeUnixNano":"%d","endTimeUnixNano":"%d","attributes":['
    + _key("gen_ai.operation.name")
    + b'"stringValue":"execute_tool"}}'
)
_JSON_BOOL = {True: b"true", False: b"false"}
_TRUE = b"true"
_SUBMISSION = b'"submission"'


def _template(shape: tuple[bool, ...]) -> bytes:
    """The span's JSON with a placeholder per value, for the attributes present."""
    present = [piece for piece, here in zip(_PIECES, shape, strict=True) if here]
    return _HEAD + b"".join(b"," + piece for piece in present) + b"]%s}"


_NONE = type(None)
_ID: set[type] = {str}
_TEXT: set[type] = {str}
_LIST_T: set[type] = {list}
_INT_T: set[type] = {int}
_BOOL_T: set[type] = {bool}
_NUM_T: set[type] = {int, float}
_STREAM_FIELDS: list[tuple[str, set[type]]] = [
    ("{s}_bytes", _INT_T),
    ("{s}_cap", _INT_T),
    ("{s}_truncated", _BOOL_T),
    ("preview_{s}", _TEXT),
    ("{s}_head_bytes", _INT_T),
    ("{s}_tail_bytes", _INT_T),
    ("{s}_clip", _TEXT),
    ("{s}_full_sha256", _TEXT),
    ("{s}_items", _INT_T),
    ("preview_{s}_items", _INT_T),
    ("{s}_tail", _TEXT),
]
_FIELDS: list[tuple[str, set[type]]] = [
    ("command_id", _ID),
    ("parent_command_id", _ID),
    ("tool_name", _TEXT),
    ("cwd", _TEXT),
    ("started_at", _TEXT),
    ("error", _TEXT),
    ("agent_note", _TEXT),
    ("encoding", _TEXT),
    ("argv", _LIST_T),
    ("command", _LIST_T),
    ("exit_code", _INT_T),
    ("returncode", _INT_T),
    ("redacted", _INT_T),
    ("ok_preview", _BOOL_T),
    ("duration_ms", _NUM_T),
    *((k.format(s=s), types) for s in STREAMS for k, types in _STREAM_FIELDS),
]
"""The fields an OTLP span is made of, each with the types read without a second look (None
is always fine). Orjson reads integers only within the 64-bit range ``Fields`` clamps to."""
_FIELD_KEYS = tuple(k for k, _ in _FIELDS)
_N_SPAN = len(_FIELDS) - 2 * len(_STREAM_FIELDS)


def _plain(signature: tuple[type, ...]) -> bool:
    """Whether every field of a record with these value types is read as it is."""
    return all(t is _NONE or t in types for t, (_, types) in zip(signature, _FIELDS, strict=True))


def _stream(
    values: tuple[Any, ...], feedback: bool, may_mark: bool
) -> tuple[bool | None, int | None, list[Any]]:
    """``(truncated, hidden, the 9 slot values)`` of one stream, as ``spans._stream`` judges it.

    ``may_mark`` False: the index found the row not truncated, so no preview holds a marker;
    the search is skipped unless the record's own fields say otherwise.
    """
    nbytes, cap, flag, preview, head, tail, clip, full, items, pitems, fb_tail = values
    if feedback:
        marker = find_marker(fb_tail or "")
        truncated, hidden = judge_stream(None, None, None, marker, None, None)
        fb_clip = b'"tail"' if marker else None
        b_trunc = None if truncated is None else _JSON_BOOL[truncated]
        return truncated, hidden, [None, None, b_trunc, fb_clip, hidden, None, None, None, None]
    marker = None
    truncated, hidden = judge_stream(nbytes, cap, flag, None, head, tail)
    if may_mark or truncated is not False:
        marker = find_marker(preview or "")
        if marker is not None:
            truncated, hidden = judge_stream(nbytes, cap, flag, marker, head, tail)
    if clip not in _CLIPS:
        clip = None  # the reference notes an unknown clip mode and reads it as unsaid
    if truncated and clip is None:
        clip = (marker.clip if marker else None) or "head"
    if not truncated:
        clip = None
    shown = None if nbytes is None or hidden is None else nbytes - hidden
    return (
        truncated,
        hidden,
        [
            nbytes,
            cap,
            None if truncated is None else _JSON_BOOL[truncated],
            None if clip is None else _dumps(clip),
            hidden,
            shown,
            None if full is None else _dumps(full),
            items,
            pitems,
        ],
    )


MAY_MARK = TRUNCATED | TRUNC_UNKNOWN
_STR_ONLY = {str}


class RowWriter:
    """One run's spans as OTLP/JSON bytes, sharing the reference exporter's ids and clock."""

    def __init__(self, index: RunIndex) -> None:
        self.index = index
        self.ref = otlp.Exporter(index)
        self.run_key = index.run.name
        self.imported = index.run.source_format is not None
        self._traces: dict[int, bytes] = {}
        self._base: dict[tuple[str, ...], int | None] = {}
        self._templates: dict[tuple[bool, ...], bytes] = {}
        self._plain: dict[tuple[type, ...], bool] = {}
        self._last_stamp: str | None = None
        self._last_nanos: int | None = None

    def row(self, row: int, data: bytes, path: str) -> bytes | None:
        """The span of one row, or None when the row is no span (as the reference skips it).

        Not yet escaped: the caller passes it through ``dump_json`` (a batch at a time, or one
        by one), as the reference writes every span.
        """
        try:
            return self._fast(row, data)
        except (_Slow, NotASpan, ValueError, orjson.JSONEncodeError):
            # orjson's decode error is a ValueError; its encode error (a member whose name is
            # no valid UTF-8: a lone surrogate) a TypeError, which dump_json's fallback writes.
            pass
        ix = self.index
        raw = RawLine(ix.line_no[row], ix.offset[row], len(data), data)
        parsed = parse_line(raw, path)
        if not isinstance(parsed, Span):
            return None
        return dump_json(self.ref.span(row, parsed))

    def _fast(self, row: int, data: bytes) -> bytes:
        # Invalid UTF-8 (which the reader replaces, noting it) raises here: the reference reads it.
        obj = orjson.loads(data)
        if type(obj) is not dict:
            raise _Slow
        dialect = TRACETUI if obj.get("schema") == TRACETUI else detect_dialect(obj)
        fields = tuple(map(obj.get, _FIELD_KEYS))
        signature = tuple(map(type, fields))
        plain = self._plain.get(signature)
        if plain is None:
            if len(self._plain) >= _MEMO_MAX:
                self._plain.clear()
            plain = self._plain[signature] = _plain(signature)
        if not plain:
            raise _Slow
        (cid, pid, tool, cwd, started, error, note, encoding, argv_v, command) = fields[:10]
        (exit_code, returncode, redacted, ok_preview, duration) = fields[10:_N_SPAN]
        feedback = dialect == FEEDBACK
        if feedback:
            argv_v = command
        elif dialect == TRUNCATION_SPAN and "returncode" in obj:
            exit_code = returncode
        argv: list[str] = argv_v or []
        if argv and set(map(type, argv)) != _STR_ONLY:
            raise _Slow
        if duration is not None:
            if not -NUM_MAX <= duration <= NUM_MAX:
                raise _Slow
            duration = float(duration)
        cid, pid = cid or None, pid or None
        ix = self.index
        may_mark = bool(ix.flags[row] & MAY_MARK)
        n = len(_STREAM_FIELDS)
        out_t, out_h, out_values = _stream(fields[_N_SPAN : _N_SPAN + n], feedback, may_mark)
        err_t, err_h, err_values = _stream(fields[_N_SPAN + n :], feedback, may_mark)

        name = tool or (os.path.basename(argv[0]) if argv else "?")
        failed = judge_exit(exit_code, error)
        truncated = True if (out_t or err_t) else (None if None in (out_t, err_t) else False)
        known = [h for h in (out_h, err_h) if h is not None]
        if failed:
            if exit_code is None:
                error_type: str | None = "runner_error"
            else:
                error_type = f"signal {-exit_code}" if exit_code < 0 else f"exit {exit_code}"
        else:
            error_type = None
        if self.imported:
            path, line = ix.location(row)
        else:
            path, line = ix.members[ix.member_no[row]].member.path, ix.line_no[row]

        ref = self.ref
        start = self._nanos(started)
        time_unknown = start is None
        if start is None:
            start = ref.last_end
        end = start + max(0, int((duration or 0) * 1_000_000))
        ref.last_end = max(ref.last_end, end)
        tid = self._trace(row)

        values = [
            _dumps(name),
            None if cid is None else _dumps(cid),
            b",".join([b'{"stringValue":' + _dumps(a) + b"}" for a in argv]) if argv else None,
            exit_code,
            None if error_type is None else _dumps(error_type),
            None if cwd is None else _dumps(cwd),
            None if note is None else _dumps(note),
            None if error is None else _dumps(error),
            _TRUE if exit_code is None and not failed else None,
            _SUBMISSION if obj.get("kind") == "submission" else None,
            None if pid is None else _dumps(pid),
            _dumps(dialect),
            None if encoding is None else _dumps(encoding),
            None if ok_preview is None else _JSON_BOOL[ok_preview],
            redacted,
            None if truncated is None else _JSON_BOOL[truncated],
            sum(known) if known else None,
            *out_values,
            *err_values,
            _dumps(path),
            line,
            _TRUE if time_unknown else None,
        ]
        shape = tuple(map(is_not, values, _NONES))
        template = self._templates.get(shape)
        if template is None:
            if len(self._templates) >= _MEMO_MAX:
                self._templates.clear()
            template = self._templates[shape] = _template(shape)
        tail = b""
        if pid is not None:
            tail = b',"links":[' + _dumps(self._link(row, pid, tid.decode())) + b"]"
        if failed:
            message = error or (f"exit {exit_code}" if exit_code is not None else "no exit")
            status = {"code": otlp.STATUS_CODE_ERROR, "message": message}
            tail += b',"status":' + _dumps(status)
        sid = otlp.span_id(self.run_key, otlp.row_key(ix, row)).encode()
        head = (tid, sid, _dumps("execute_tool " + name), start, end)
        return template % (*head, *compress(values, shape), tail)

    def _trace(self, row: int) -> bytes:
        """The trace id of the row's chain (the last few chains' ids are remembered)."""
        # A row naming no parent is its own chain's root (ChainIndex.root_of answers the same).
        root = row if self.index.parent_ids.get(row) is None else self.ref.root(row)
        tid = self._traces.get(root)
        if tid is None:
            if len(self._traces) >= _MEMO_MAX:
                self._traces.clear()
            tid = otlp.trace_id(self.run_key, otlp.row_key(self.index, root)).encode()
            self._traces[root] = tid
        return tid

    def _link(self, row: int, pid: str, tid: str) -> dict[str, Any]:
        # As otlp.Exporter._link: to the parent's span, or where it would be when rotated away.
        prow = self.ref.chains.parent_row(row)
        if prow is not None:
            return {
                "traceId": tid,
                "spanId": otlp.span_id(self.run_key, otlp.row_key(self.index, prow)),
                "attributes": [otlp.attr("tracetui.link", "retry_of")],
            }
        return {
            "traceId": tid,
            "spanId": otlp.span_id(self.run_key, pid),
            "attributes": [
                otlp.attr("tracetui.link", "retry_of"),
                otlp.attr("tracetui.parent_missing", True),
            ],
        }

    def _nanos(self, stamp: str | None) -> int | None:
        """``otlp.unix_nanos`` of ``stamp``; the previous row's answer again for the same text
        (rows written in the same second share it)."""
        if stamp != self._last_stamp:
            self._last_stamp, self._last_nanos = stamp, self._parse_nanos(stamp)
        return self._last_nanos

    def _parse_nanos(self, stamp: str | None) -> int | None:
        """``otlp.unix_nanos``, with the date, hour, minute and zone's part remembered.

        The seconds and fraction are added to the minute's start: exact, since the reference
        adds whole seconds (60 read as 59) and the fraction the same way, and whether a stamp
        is valid depends only on the remembered part.
        """
        m = otlp.RFC3339.match(stamp.strip()) if stamp else None
        if m is None:
            return None
        year, month, day, hour, minute, second, frac, zone = m.groups()
        key = (year, month, day, hour, minute, zone or "")
        base = self._base.get(key, 0)
        if base == 0:
            if len(self._base) >= _MEMO_MAX:
                self._base.clear()
            base = otlp.unix_nanos(f"{year}-{month}-{day}T{hour}:{minute}:00{zone or ''}")
            self._base[key] = base
        if base is None:
            return None
        nanos = base + min(int(second), 59) * 1_000_000_000
        return nanos + int(frac.ljust(9, "0")) if frac else nanos
