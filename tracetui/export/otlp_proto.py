"""A small protobuf wire encoder for the OTLP trace messages tracetui sends (no runtime dependency).

The input is the OTLP/JSON form that :mod:`tracetui.export.otlp` builds for each span (ids as
hex, 64-bit integers as decimal strings, enums as integers), so the JSON file, the JSON POST and
the protobuf POST all come from the same span-building code. Only what OTLP traces need is
here: ``ExportTraceServiceRequest`` → ``ResourceSpans`` → ``ScopeSpans`` → ``Span`` (with its
attributes of every ``AnyValue`` kind, events, links and status), and a reader just big enough
for what a receiver answers (``ExportTraceServiceResponse.partial_success`` and the
``google.rpc.Status`` of an error).

Field numbers follow opentelemetry-proto's ``trace/v1/trace.proto``, ``common/v1/common.proto``,
``resource/v1/resource.proto`` and ``collector/trace/v1/trace_service.proto``. The test suite
decodes what this module writes with the official generated classes.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

_MASK64 = (1 << 64) - 1
_pack_double = struct.Struct("<d").pack
_pack_fixed64 = struct.Struct("<Q").pack
_pack_fixed32 = struct.Struct("<I").pack

# Tags are (field number << 3) | wire type; wire types: 0 varint, 1 fixed64, 2 bytes, 5 fixed32.
_VARINT, _FIXED64, _LEN, _FIXED32 = 0, 1, 2, 5


def _tag(field: int, wire: int) -> bytes:
    return varint(field << 3 | wire)


def _slow_varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


# Lengths and small numbers are nearly all under 2**14: looked up, not computed (the export's
# hottest call).
_SMALL = [_slow_varint(n) for n in range(1 << 14)]


def varint(n: int) -> bytes:
    """Base-128 varint of a non-negative int (a negative int64 is first taken modulo 2**64)."""
    if 0 <= n < 16384:
        return _SMALL[n]
    return _slow_varint(n & _MASK64)


def _ld(tag: bytes, payload: bytes) -> bytes:
    """A length-delimited field: tag, length, payload."""
    return tag + varint(len(payload)) + payload


def _text(value: str) -> bytes:
    # Protobuf strings must be valid UTF-8; a lone surrogate is written as '?'.
    return value.encode("utf-8", "replace")


# AnyValue (common.proto): a oneof, so a set member is written even when it is empty or zero.
_ANY_STRING, _ANY_BOOL, _ANY_INT = _tag(1, _LEN), _tag(2, _VARINT), _tag(3, _VARINT)
_ANY_DOUBLE, _ANY_ARRAY, _ANY_KVLIST = _tag(4, _FIXED64), _tag(5, _LEN), _tag(6, _LEN)
_ANY_BYTES = _tag(7, _LEN)
_VALUES = _tag(1, _LEN)  # ArrayValue.values and KeyValueList.values
_KV_KEY, _KV_VALUE = _tag(1, _LEN), _tag(2, _LEN)


def any_value(value: Mapping[str, Any]) -> bytes:
    """An ``AnyValue`` from its OTLP/JSON form (``{"stringValue": …}``, ``{"intValue": "3"}``…)."""
    if "stringValue" in value:
        return _ld(_ANY_STRING, _text(value["stringValue"]))
    if "boolValue" in value:
        return _ANY_BOOL + (b"\x01" if value["boolValue"] else b"\x00")
    if "intValue" in value:
        return _ANY_INT + varint(int(value["intValue"]))
    if "doubleValue" in value:
        return _ANY_DOUBLE + _pack_double(float(value["doubleValue"]))
    if "arrayValue" in value:
        items = value["arrayValue"].get("values", ())
        return _ld(_ANY_ARRAY, b"".join(_ld(_VALUES, any_value(v)) for v in items))
    if "kvlistValue" in value:
        pairs = value["kvlistValue"].get("values", ())
        return _ld(_ANY_KVLIST, b"".join(_ld(_VALUES, key_value(kv)) for kv in pairs))
    if "bytesValue" in value:
        return _ld(_ANY_BYTES, base64.b64decode(value["bytesValue"]))
    return b""  # an empty AnyValue (no member set) is legal


def key_value(kv: Mapping[str, Any]) -> bytes:
    """A ``KeyValue`` from ``{"key": …, "value": {…}}``."""
    return _ld(_KV_KEY, _text(kv["key"])) + _ld(_KV_VALUE, any_value(kv.get("value", {})))


# Encoded attribute fields by (field tag, key, member, value): most attributes repeat from span
# to span (the operation name, a tool's name, the caps, true/false flags). Doubles are left out
# (-0.0 == 0.0 but they encode apart), and so are long strings; the memo is emptied when full.
_MEMO: dict[tuple[bytes, str, str, Any], bytes] = {}
_MEMO_MAX = 1 << 16
_MEMO_MEMBERS = frozenset({"stringValue", "boolValue", "intValue"})


_KEY_HEADS: dict[str, bytes] = {}


def _scalar_field(tag: bytes, key: str, member: str, x: Any) -> bytes:
    """``tag`` + a KeyValue of one string, bool or int, built flat (fewer calls than the
    general path: this runs once per attribute the memo has not seen)."""
    head = _KEY_HEADS.get(key)
    if head is None:
        head = _ld(_KV_KEY, _text(key)) + _KV_VALUE
        if len(_KEY_HEADS) < 4096:
            _KEY_HEADS[key] = head
    if member == "stringValue":
        data = _text(x)
        value = _ANY_STRING + varint(len(data)) + data
    elif member == "intValue":
        value = _ANY_INT + varint(int(x))
    else:
        value = _ANY_BOOL + (b"\x01" if x else b"\x00")
    kv = head + varint(len(value)) + value
    return tag + varint(len(kv)) + kv


def _attributes(tag: bytes, attrs: Iterable[Mapping[str, Any]]) -> bytes:
    memo = _MEMO
    out = []
    for kv in attrs:
        value = kv.get("value")
        if value and len(value) == 1:
            ((member, x),) = value.items()
            if member in _MEMO_MEMBERS:
                k = (tag, kv["key"], member, x)
                encoded = memo.get(k)
                if encoded is None:
                    encoded = _scalar_field(tag, kv["key"], member, x)
                    if member != "stringValue" or len(x) <= 128:
                        if len(memo) >= _MEMO_MAX:
                            memo.clear()
                        memo[k] = encoded
                out.append(encoded)
                continue
        out.append(_ld(tag, key_value(kv)))
    return b"".join(out)


def _uint(tag: bytes, value: Any) -> bytes:
    # proto3 leaves a scalar at its default unwritten, as the official encoders do.
    n = int(value or 0)
    return tag + varint(n) if n else b""


def _fixed64(tag: bytes, value: Any) -> bytes:
    n = int(value or 0)
    return tag + _pack_fixed64(n & _MASK64) if n else b""


def _fixed32(tag: bytes, value: Any) -> bytes:
    n = int(value or 0)
    return tag + _pack_fixed32(n & 0xFFFFFFFF) if n else b""


def _bytes_hex(tag: bytes, value: Any) -> bytes:
    return _ld(tag, bytes.fromhex(value)) if value else b""


def _string(tag: bytes, value: Any) -> bytes:
    return _ld(tag, _text(value)) if value else b""


# Span (trace.proto)
_S_TRACE_ID, _S_SPAN_ID, _S_TRACE_STATE = _tag(1, _LEN), _tag(2, _LEN), _tag(3, _LEN)
_S_PARENT, _S_NAME, _S_KIND = _tag(4, _LEN), _tag(5, _LEN), _tag(6, _VARINT)
_S_START, _S_END, _S_ATTRS = _tag(7, _FIXED64), _tag(8, _FIXED64), _tag(9, _LEN)
_S_DROPPED_ATTRS, _S_EVENTS, _S_DROPPED_EVENTS = (
    _tag(10, _VARINT),
    _tag(11, _LEN),
    _tag(12, _VARINT),
)
_S_LINKS, _S_DROPPED_LINKS, _S_STATUS = _tag(13, _LEN), _tag(14, _VARINT), _tag(15, _LEN)
_S_FLAGS = _tag(16, _FIXED32)
# Span.Event, Span.Link, Status
_E_TIME, _E_NAME, _E_ATTRS, _E_DROPPED = (
    _tag(1, _FIXED64),
    _tag(2, _LEN),
    _tag(3, _LEN),
    _tag(4, _VARINT),
)
_L_TRACE_ID, _L_SPAN_ID, _L_TRACE_STATE = _tag(1, _LEN), _tag(2, _LEN), _tag(3, _LEN)
_L_ATTRS, _L_DROPPED, _L_FLAGS = _tag(4, _LEN), _tag(5, _VARINT), _tag(6, _FIXED32)
_ST_MESSAGE, _ST_CODE = _tag(2, _LEN), _tag(3, _VARINT)


def _event(ev: Mapping[str, Any]) -> bytes:
    return b"".join(
        (
            _fixed64(_E_TIME, ev.get("timeUnixNano")),
            _string(_E_NAME, ev.get("name")),
            _attributes(_E_ATTRS, ev.get("attributes", ())),
            _uint(_E_DROPPED, ev.get("droppedAttributesCount")),
        )
    )


def _link(link: Mapping[str, Any]) -> bytes:
    return b"".join(
        (
            _bytes_hex(_L_TRACE_ID, link.get("traceId")),
            _bytes_hex(_L_SPAN_ID, link.get("spanId")),
            _string(_L_TRACE_STATE, link.get("traceState")),
            _attributes(_L_ATTRS, link.get("attributes", ())),
            _uint(_L_DROPPED, link.get("droppedAttributesCount")),
            _fixed32(_L_FLAGS, link.get("flags")),
        )
    )


def _status(status: Mapping[str, Any]) -> bytes:
    return _string(_ST_MESSAGE, status.get("message")) + _uint(_ST_CODE, status.get("code"))


def span(s: Mapping[str, Any]) -> bytes:
    """A ``Span`` message from the OTLP/JSON span object :func:`otlp.iter_spans` yields."""
    parts = [
        _bytes_hex(_S_TRACE_ID, s.get("traceId")),
        _bytes_hex(_S_SPAN_ID, s.get("spanId")),
        _string(_S_TRACE_STATE, s.get("traceState")),
        _bytes_hex(_S_PARENT, s.get("parentSpanId")),
        _string(_S_NAME, s.get("name")),
        _uint(_S_KIND, s.get("kind")),
        _fixed64(_S_START, s.get("startTimeUnixNano")),
        _fixed64(_S_END, s.get("endTimeUnixNano")),
        _attributes(_S_ATTRS, s.get("attributes", ())),
        _uint(_S_DROPPED_ATTRS, s.get("droppedAttributesCount")),
        b"".join(_ld(_S_EVENTS, _event(e)) for e in s.get("events", ())),
        _uint(_S_DROPPED_EVENTS, s.get("droppedEventsCount")),
        b"".join(_ld(_S_LINKS, _link(k)) for k in s.get("links", ())),
        _uint(_S_DROPPED_LINKS, s.get("droppedLinksCount")),
    ]
    if "status" in s:
        parts.append(_ld(_S_STATUS, _status(s["status"])))
    parts.append(_fixed32(_S_FLAGS, s.get("flags")))
    return b"".join(parts)


_R_ATTRS, _R_DROPPED = _tag(1, _LEN), _tag(2, _VARINT)
_SC_NAME, _SC_VERSION, _SC_ATTRS = _tag(1, _LEN), _tag(2, _LEN), _tag(3, _LEN)
_SCOPE, _SPANS = _tag(1, _LEN), _tag(2, _LEN)  # ScopeSpans.scope, .spans
_RESOURCE, _SCOPE_SPANS = _tag(1, _LEN), _tag(2, _LEN)  # ResourceSpans.resource, .scope_spans
_RESOURCE_SPANS = _tag(1, _LEN)  # ExportTraceServiceRequest.resource_spans


def resource(res: Mapping[str, Any]) -> bytes:
    """A ``Resource`` message from its OTLP/JSON form."""
    return _attributes(_R_ATTRS, res.get("attributes", ())) + _uint(
        _R_DROPPED, res.get("droppedAttributesCount")
    )


def scope(sc: Mapping[str, Any]) -> bytes:
    """An ``InstrumentationScope`` message from its OTLP/JSON form."""
    return (
        _string(_SC_NAME, sc.get("name"))
        + _string(_SC_VERSION, sc.get("version"))
        + _attributes(_SC_ATTRS, sc.get("attributes", ()))
    )


def request(groups: Iterable[tuple[bytes, bytes, Sequence[bytes]]]) -> bytes:
    """An ``ExportTraceServiceRequest`` from already encoded parts.

    Each group is one ``ResourceSpans`` with a single ``ScopeSpans``: ``(resource, scope,
    spans)``, each an encoded message (:func:`resource`, :func:`scope`, :func:`span`).
    """
    out = []
    for res, sc, spans in groups:
        scope_spans = _ld(_SCOPE, sc) + b"".join([_ld(_SPANS, s) for s in spans])
        out.append(_ld(_RESOURCE_SPANS, _ld(_RESOURCE, res) + _ld(_SCOPE_SPANS, scope_spans)))
    return b"".join(out)


def span_overhead(encoded_len: int) -> int:
    """Bytes a span of ``encoded_len`` bytes adds to a request (its tag and length prefix)."""
    return 1 + len(varint(encoded_len))


# Reading (answers only).


class DecodeError(ValueError):
    """Bytes that are not a well-formed protobuf message."""


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise DecodeError("truncated varint")
        b = data[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if b < 0x80:
            return n, pos
        shift += 7


def fields(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    """``(field number, value)`` of a message's top-level fields: ints for varint and fixed
    fields, bytes for length-delimited ones. Raises :class:`DecodeError` on malformed input."""
    pos = 0
    while pos < len(data):
        key, pos = _read_varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == _VARINT:
            value, pos = _read_varint(data, pos)
            yield field, value
        elif wire == _LEN:
            size, pos = _read_varint(data, pos)
            if pos + size > len(data):
                raise DecodeError("truncated field")
            yield field, data[pos : pos + size]
            pos += size
        elif wire in (_FIXED64, _FIXED32):
            width = 8 if wire == _FIXED64 else 4
            if pos + width > len(data):
                raise DecodeError("truncated field")
            yield field, int.from_bytes(data[pos : pos + width], "little")
            pos += width
        else:
            raise DecodeError(f"unsupported wire type {wire}")


def partial_success(data: bytes) -> tuple[int, str]:
    """``(rejected_spans, error_message)`` of an ``ExportTraceServiceResponse`` (0, "" if none)."""
    rejected, message = 0, ""
    for field, value in fields(data):
        if field == 1 and isinstance(value, bytes):  # partial_success
            for f, v in fields(value):
                if f == 1 and isinstance(v, int):
                    rejected = v - (1 << 64) if v >= 1 << 63 else v
                elif f == 2 and isinstance(v, bytes):
                    message = v.decode("utf-8", "replace")
    return rejected, message


def status_message(data: bytes) -> str:
    """The ``message`` of a ``google.rpc.Status`` (what an OTLP/HTTP error body holds)."""
    for field, value in fields(data):
        if field == 2 and isinstance(value, bytes):
            return value.decode("utf-8", "replace")
    return ""
