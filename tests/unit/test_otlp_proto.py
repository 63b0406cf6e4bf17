"""otlp_proto: what the hand-written encoder writes is what the official schema reads.

Each case is an OTLP/JSON object (the form tracetui builds); protobuf's own JSON parser turns
it into the official message, and the bytes our encoder writes must decode into an equal one.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from google.protobuf.json_format import ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan
from records import tool

from tracetui.export import otlp, otlp_proto
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

TID, SID, PID = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", "00f067aa0ba902b7"


def official(doc: Any) -> Any:
    """OTLP/JSON → protobuf's JSON mapping (ids are hex in OTLP, base64 for protobuf)."""
    if isinstance(doc, dict):
        return {
            k: base64.b64encode(bytes.fromhex(v)).decode()
            if k in ("traceId", "spanId", "parentSpanId")
            else official(v)
            for k, v in doc.items()
        }
    if isinstance(doc, list):
        return [official(x) for x in doc]
    return doc


def kv(key: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"key": key, "value": value}


BASE = {"traceId": TID, "spanId": SID, "name": "execute_tool pytest", "kind": 1}

SPANS = [
    ("minimal", {**BASE}),
    ("no-name-no-kind", {"traceId": TID, "spanId": SID}),
    (
        "ids-parent-state-flags",
        {**BASE, "parentSpanId": PID, "traceState": "k=v", "flags": 257, "kind": 3},
    ),
    (
        "times",
        {
            **BASE,
            "startTimeUnixNano": "1793611069495000000",
            "endTimeUnixNano": "18446744073709551615",
        },
    ),
    ("times-as-ints", {**BASE, "startTimeUnixNano": 1, "endTimeUnixNano": 2}),
    (
        "attribute-kinds",
        {
            **BASE,
            "attributes": [
                kv("s", {"stringValue": "héllo ✓ 𝄞"}),
                kv("s-empty", {"stringValue": ""}),
                kv("b-true", {"boolValue": True}),
                kv("b-false", {"boolValue": False}),
                kv("i", {"intValue": "42"}),
                kv("i-zero", {"intValue": "0"}),
                kv("i-negative", {"intValue": "-7"}),
                kv("i-max", {"intValue": str(2**63 - 1)}),
                kv("i-min", {"intValue": str(-(2**63))}),
                kv("d", {"doubleValue": 1.5}),
                kv("d-zero", {"doubleValue": 0.0}),
                kv("d-negative", {"doubleValue": -2.25e-10}),
                kv("bytes", {"bytesValue": base64.b64encode(b"\x00\xff raw").decode()}),
                kv("empty-any", {}),
            ],
        },
    ),
    (
        "nested-values",
        {
            **BASE,
            "attributes": [
                kv(
                    "array",
                    {
                        "arrayValue": {
                            "values": [
                                {"stringValue": "a"},
                                {"intValue": "1"},
                                {"boolValue": True},
                                {"arrayValue": {"values": [{"doubleValue": 3.0}]}},
                            ]
                        }
                    },
                ),
                kv("array-empty", {"arrayValue": {}}),
                kv(
                    "kvlist",
                    {
                        "kvlistValue": {
                            "values": [
                                kv("inner", {"stringValue": "x"}),
                                kv(
                                    "deeper",
                                    {"kvlistValue": {"values": [kv("n", {"intValue": "9"})]}},
                                ),
                            ]
                        }
                    },
                ),
            ],
        },
    ),
    (
        "events",
        {
            **BASE,
            "events": [
                {
                    "timeUnixNano": "1793611069495000001",
                    "name": "exception",
                    "attributes": [kv("exception.message", {"stringValue": "boom"})],
                    "droppedAttributesCount": 2,
                },
                {"name": "bare"},
            ],
            "droppedEventsCount": 1,
        },
    ),
    (
        "links",
        {
            **BASE,
            "links": [
                {
                    "traceId": TID,
                    "spanId": PID,
                    "traceState": "a=b",
                    "attributes": [kv("tracetui.link", {"stringValue": "retry_of"})],
                    "droppedAttributesCount": 1,
                    "flags": 1,
                },
                {"traceId": TID, "spanId": SID},
            ],
            "droppedLinksCount": 3,
        },
    ),
    ("status-error", {**BASE, "status": {"code": 2, "message": "exit 1"}}),
    ("status-ok", {**BASE, "status": {"code": 1}}),
    ("status-empty", {**BASE, "status": {}}),
    ("dropped-attributes", {**BASE, "droppedAttributesCount": 4}),
]


@pytest.mark.parametrize("doc", [d for _n, d in SPANS], ids=[n for n, _d in SPANS])
def test_span_decodes_as_the_official_schema_reads_its_json(doc: dict[str, Any]) -> None:
    want = ParseDict(official(doc), PbSpan())
    got = PbSpan.FromString(otlp_proto.span(doc))
    assert got == want
    assert got.SerializeToString() == want.SerializeToString()  # no stray or missing field


VALUES = [
    ("string", {"stringValue": "x"}, "string_value", "x"),
    ("empty-string-is-set", {"stringValue": ""}, "string_value", ""),
    ("false-is-set", {"boolValue": False}, "bool_value", False),
    ("zero-is-set", {"intValue": "0"}, "int_value", 0),
    ("negative", {"intValue": "-1"}, "int_value", -1),
    ("double", {"doubleValue": 0.1}, "double_value", 0.1),
    ("bytes", {"bytesValue": "AAE="}, "bytes_value", b"\x00\x01"),
]


@pytest.mark.parametrize(
    ("doc", "member", "value"), [c[1:] for c in VALUES], ids=[c[0] for c in VALUES]
)
def test_any_value_sets_its_oneof_member_even_at_the_default(
    doc: dict[str, Any], member: str, value: Any
) -> None:
    got = AnyValue.FromString(otlp_proto.any_value(doc))
    assert got.WhichOneof("value") == member
    assert getattr(got, member) == value


def test_a_lone_surrogate_is_written_as_valid_utf8() -> None:
    got = PbSpan.FromString(otlp_proto.span({**BASE, "name": "bad \udcff name"}))
    assert got.name == "bad ? name"


def test_request_with_two_resources() -> None:
    scope = {"name": "tracetui", "version": "9.9"}
    res = [
        {"attributes": [kv("service.name", {"stringValue": "tracetui"})]},
        {"attributes": [kv("tracetui.run", {"stringValue": "b/B"})], "droppedAttributesCount": 1},
    ]
    spans = [[{**BASE, "name": "one"}, {**BASE, "name": "two"}], [{**BASE, "name": "three"}]]
    doc = {
        "resourceSpans": [
            {"resource": r, "scopeSpans": [{"scope": scope, "spans": s}]}
            for r, s in zip(res, spans, strict=True)
        ]
    }
    groups = [
        (otlp_proto.resource(r), otlp_proto.scope(scope), [otlp_proto.span(x) for x in s])
        for r, s in zip(res, spans, strict=True)
    ]
    got = ExportTraceServiceRequest.FromString(otlp_proto.request(groups))
    assert got == ParseDict(official(doc), ExportTraceServiceRequest())


def test_every_exported_span_of_a_run_round_trips(make_run: Any) -> None:
    records = [
        tool(
            "a1",
            tool_name="pytest",
            argv=["pytest", "-q"],
            exit_code=1,
            started_at="2026-11-02T09:00:00.250Z",
            duration_ms=1500,
            stdout_bytes=20000,
            stdout_cap=8192,
            stdout_truncated=True,
            stdout_clip="head",
            agent_note="ünïcode note",
        ),
        tool("x", started_at=None),
        tool("a2", parent_command_id="a1", exit_code=0, duration_ms=2),
        tool("orphan", parent_command_id="gone", exit_code=None, error="cannot start"),
        tool("sig", exit_code=-9),
    ]
    root = make_run({"B.jsonl": records})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    spans = list(otlp.iter_spans(ix))
    assert len(spans) == len(records)
    for doc in spans:
        assert PbSpan.FromString(otlp_proto.span(doc)) == ParseDict(official(doc), PbSpan())
    res = otlp_proto.resource(otlp.resource(ix))
    want = ParseDict(official(otlp.export_request([ix])), ExportTraceServiceRequest())
    body = otlp_proto.request(
        [(res, otlp_proto.scope(otlp.SCOPE), [otlp_proto.span(s) for s in spans])]
    )
    assert ExportTraceServiceRequest.FromString(body) == want


PARTIAL = [
    ("empty-answer", b"", (0, "")),
    (
        "rejected-and-message",
        ExportTraceServiceResponse(
            partial_success=ExportTracePartialSuccess(rejected_spans=3, error_message="too old")
        ).SerializeToString(),
        (3, "too old"),
    ),
    (
        "message-only",
        ExportTraceServiceResponse(
            partial_success=ExportTracePartialSuccess(error_message="warn")
        ).SerializeToString(),
        (0, "warn"),
    ),
    ("unknown-fields-skipped", b"\x10\x05\x19" + bytes(8) + b"\x0a\x02\x08\x01", (1, "")),
]


@pytest.mark.parametrize(("data", "want"), [c[1:] for c in PARTIAL], ids=[c[0] for c in PARTIAL])
def test_partial_success(data: bytes, want: tuple[int, str]) -> None:
    assert otlp_proto.partial_success(data) == want


MALFORMED = [
    ("truncated-varint", b"\x0a\x80"),
    ("length-past-end", b"\x0a\x05ab"),
    ("truncated-fixed64", b"\x09\x01\x02"),
    ("group-wire-type", b"\x0b"),
    ("endless-varint", b"\x08" + b"\xff" * 11),
]


@pytest.mark.parametrize("data", [c[1] for c in MALFORMED], ids=[c[0] for c in MALFORMED])
def test_malformed_answers_raise_decode_error(data: bytes) -> None:
    with pytest.raises(otlp_proto.DecodeError):
        otlp_proto.partial_success(data)


def test_status_message_of_an_error_body() -> None:
    # google.rpc.Status: code = 1 (varint), message = 2, details = 3 (skipped).
    body = b"\x08\x03" + b"\x12\x0bbad request" + b"\x1a\x02\x0a\x00"
    assert otlp_proto.status_message(body) == "bad request"


@pytest.mark.parametrize(
    ("n", "want"),
    [
        (0, b"\x00"),
        (1, b"\x01"),
        (127, b"\x7f"),
        (128, b"\x80\x01"),
        (300, b"\xac\x02"),
        (-1, b"\xff" * 9 + b"\x01"),
    ],
    ids=["0", "1", "127", "128", "300", "minus-1"],
)
def test_varint(n: int, want: bytes) -> None:
    assert otlp_proto.varint(n) == want
