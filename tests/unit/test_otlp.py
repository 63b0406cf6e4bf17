"""OTLP/JSON export: parsed strictly with the official protobuf schema; ids, links, POST."""

from __future__ import annotations

import base64
import http.server
import io
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.json_format import Parse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PbSpan
from opentelemetry.proto.trace.v1.trace_pb2 import Status
from records import tool

from tracetui.export import otlp
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

RECORDS = [
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
        stdout_sha256=None,
        stdout_head_bytes=8192,
        agent_note="expect a failure",
    ),
    tool("x", started_at=None),
    tool(
        "a2",
        parent_command_id="a1",
        tool_name="pytest",
        exit_code=0,
        started_at="2026-11-02T10:00:00+01:00",
        duration_ms=2,
    ),
    tool(
        "orphan",
        parent_command_id="rotated-away",
        exit_code=None,
        error="cannot start: no such file",
    ),
    "{broken\n",
]


def index_of(make_run: Any, records: list[Any] = RECORDS) -> Any:
    root = make_run(
        {"B.jsonl": records, "B.jsonl.reruns.jsonl": [tool("rr", parent_command_id="a1")]}
    )
    return build_index(open_path(str(root / "B.jsonl"))[0])


def to_protobuf_json(doc: Any) -> Any:
    """OTLP/JSON ids are hex; protobuf's JSON mapping wants base64 for bytes fields."""
    if isinstance(doc, dict):
        return {
            k: base64.b64encode(bytes.fromhex(v)).decode()
            if k in ("traceId", "spanId", "parentSpanId")
            else to_protobuf_json(v)
            for k, v in doc.items()
        }
    if isinstance(doc, list):
        return [to_protobuf_json(x) for x in doc]
    return doc


def parse(doc: Any) -> ExportTraceServiceRequest:
    return Parse(
        json.dumps(to_protobuf_json(doc)), ExportTraceServiceRequest()
    )  # strict: unknown fields fail


def attrs(span: PbSpan) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for kv in span.attributes:
        kind = kv.value.WhichOneof("value")
        value = getattr(kv.value, kind)
        if kind == "array_value":
            value = [v.string_value for v in value.values]
        out[kv.key] = value
    return out


@pytest.fixture
def exported(make_run: Any) -> tuple[dict[str, Any], ExportTraceServiceRequest]:
    ix = index_of(make_run)
    buf = io.BytesIO()
    assert otlp.write_json([ix], buf) == 4
    doc = json.loads(buf.getvalue())
    assert doc == json.loads(json.dumps(otlp.export_request([ix])))  # streamed == built in memory
    return doc, parse(doc)


def test_parses_strictly_with_resource_scope_and_spans(exported: Any) -> None:
    doc, msg = exported
    (rs,) = msg.resource_spans
    assert {kv.key: kv.value.string_value for kv in rs.resource.attributes} == {
        "service.name": "tracetui",
        "tracetui.run": "run/B.jsonl",
    }
    (ss,) = rs.scope_spans
    assert ss.scope.name == "tracetui"
    assert [s.name for s in ss.spans] == [
        "execute_tool pytest",
        "execute_tool echo",
        "execute_tool pytest",
        "execute_tool echo",
    ]
    assert all(s.kind == PbSpan.SPAN_KIND_INTERNAL for s in ss.spans)
    raw = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert all(len(s["traceId"]) == 32 and len(s["spanId"]) == 16 for s in raw)
    assert all(s["traceId"] == s["traceId"].lower() for s in raw)
    assert isinstance(raw[0]["startTimeUnixNano"], str) and raw[0]["kind"] == 1


def test_attributes_status_and_times(exported: Any) -> None:
    _doc, msg = exported
    first, plain, retry, orphan = msg.resource_spans[0].scope_spans[0].spans
    a = attrs(first)
    assert {
        k: a[k]
        for k in (
            "gen_ai.operation.name",
            "gen_ai.tool.name",
            "gen_ai.tool.call.id",
            "process.exit.code",
            "error.type",
            "process.command_args",
            "tracetui.stdout.bytes",
            "tracetui.stdout.cap",
            "tracetui.stdout.truncated",
            "tracetui.stdout.hidden_bytes",
            "tracetui.hidden_bytes",
            "tracetui.agent_note",
        )
    } == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "pytest",
        "gen_ai.tool.call.id": "a1",
        "process.exit.code": 1,
        "error.type": "exit 1",
        "process.command_args": ["pytest", "-q"],
        "tracetui.stdout.bytes": 20000,
        "tracetui.stdout.cap": 8192,
        "tracetui.stdout.truncated": True,
        "tracetui.stdout.hidden_bytes": 11808,
        "tracetui.hidden_bytes": 11808,
        "tracetui.agent_note": "expect a failure",
    }
    assert first.status.code == Status.STATUS_CODE_ERROR and first.status.message == "exit 1"
    assert first.start_time_unix_nano == 1793610000250000000
    assert first.end_time_unix_nano == 1793610000250000000 + 1_500_000_000
    # No start time: it follows the previous span and says so.
    assert (
        plain.start_time_unix_nano == first.end_time_unix_nano
        and attrs(plain)["tracetui.time_unknown"] is True
    )
    assert retry.status.code == Status.STATUS_CODE_UNSET and "error.type" not in attrs(retry)
    assert retry.start_time_unix_nano == 1793610000000000000  # +01:00 taken into account
    o = attrs(orphan)
    assert "process.exit.code" not in o and o["error.type"] == "runner_error"
    assert orphan.status.message == "cannot start: no such file"


def test_retry_links_to_its_parent_in_the_same_trace(exported: Any) -> None:
    _doc, msg = exported
    first, plain, retry, orphan = msg.resource_spans[0].scope_spans[0].spans
    assert retry.trace_id == first.trace_id != plain.trace_id
    (link,) = retry.links
    assert link.trace_id == first.trace_id and link.span_id == first.span_id
    assert {kv.key: kv.value.string_value for kv in link.attributes} == {
        "tracetui.link": "retry_of"
    }
    (missing,) = orphan.links
    assert missing.span_id.hex() == otlp.span_id("run/B.jsonl", "rotated-away")
    assert not first.links and not plain.links


def test_ids_are_deterministic_and_distinct(make_run: Any) -> None:
    dup = [tool("d"), tool("d"), tool(None), tool(None)]
    one = otlp.export_request([index_of(make_run, dup)])
    two = otlp.export_request([index_of(make_run, dup)])
    assert one == two
    ids = [s["spanId"] for s in one["resourceSpans"][0]["scopeSpans"][0]["spans"]]
    assert len(set(ids)) == 4


@pytest.mark.parametrize(
    ("stamp", "want"),
    [
        ("1970-01-01T00:00:00Z", 0),
        ("1970-01-01T00:00:01.5Z", 1_500_000_000),
        ("1970-01-01T01:00:00+01:00", 0),
        ("1970-01-01T00:00:00.123456789123Z", 123_456_789),
        ("1970-01-01 00:00:02", 2_000_000_000),
        ("yesterday", None),
        ("2026-13-01T00:00:00Z", None),
        (None, None),
    ],
    ids=[
        "epoch",
        "fraction",
        "offset",
        "nanos-kept-rest-cut",
        "space-no-zone",
        "junk",
        "bad-month",
        "none",
    ],
)
def test_unix_nanos(stamp: str | None, want: int | None) -> None:
    assert otlp.unix_nanos(stamp) == want


@pytest.mark.parametrize(
    ("endpoint", "want"),
    [
        ("http://127.0.0.1:4318", "http://127.0.0.1:4318/v1/traces"),
        ("http://127.0.0.1:4318/", "http://127.0.0.1:4318/v1/traces"),
        ("https://otel.internal/v1/traces", "https://otel.internal/v1/traces"),
        ("http://h/prefix", "http://h/prefix/v1/traces"),
    ],
    ids=["bare", "slash", "already", "prefix"],
)
def test_traces_url(endpoint: str, want: str) -> None:
    assert otlp.traces_url(endpoint) == want


@pytest.mark.parametrize(
    "endpoint", ["ftp://h", "127.0.0.1:4318", ""], ids=["scheme", "no-scheme", "empty"]
)
def test_traces_url_rejects(endpoint: str) -> None:
    with pytest.raises(otlp.ExportError):
        otlp.traces_url(endpoint)


class Receiver(http.server.BaseHTTPRequestHandler):
    """A tiny OTLP/HTTP receiver: keeps what it is sent, answers with the server's ``status``."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.got.append((self.path, self.headers["Content-Type"], body))  # type: ignore[attr-defined]
        status = self.server.status  # type: ignore[attr-defined]
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}" if status == 200 else b"bad \x1b[2J request")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[Any]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    server.got = []  # type: ignore[attr-defined]
    server.status = 200  # type: ignore[attr-defined]
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_post_in_batches(make_run: Any, receiver: Any) -> None:
    ix = index_of(make_run)
    url = f"http://127.0.0.1:{receiver.server_address[1]}"
    assert otlp.post(url, [ix], size=3) == 2
    paths = [(p, ct) for p, ct, _b in receiver.got]
    assert paths == [("/v1/traces", "application/json")] * 2
    bodies = [parse(json.loads(b)) for _p, _ct, b in receiver.got]
    counts = [len(m.resource_spans[0].scope_spans[0].spans) for m in bodies]
    assert counts == [3, 1]


def test_post_failures_are_clear(make_run: Any, receiver: Any) -> None:
    ix = index_of(make_run)
    receiver.status = 500
    url = f"http://127.0.0.1:{receiver.server_address[1]}"
    with pytest.raises(otlp.ExportError) as err:
        otlp.post(url, [ix])
    assert str(err.value) == f"{url}/v1/traces: HTTP 500 Internal Server Error: bad ␛[2J request"
    receiver.shutdown()
    receiver.server_close()
    with pytest.raises(otlp.ExportError) as err:
        otlp.post(url, [ix], timeout=2)
    assert str(err.value).startswith(f"{url}/v1/traces: cannot deliver: ")
