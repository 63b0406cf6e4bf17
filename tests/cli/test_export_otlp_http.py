"""export --otlp-http: a loopback receiver decodes every request with the official schema.

The receiver (http.server on 127.0.0.1:0, in a thread) gunzips when asked, decodes protobuf
with opentelemetry-proto's ExportTraceServiceRequest (JSON strictly through protobuf's own
parser), and answers from a script: the tests set what each request gets back. The command
runs in-process with the sender's ``sleep`` replaced, so waits are recorded, not slept.
"""

from __future__ import annotations

import base64
import gzip
import http.server
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import Parse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from records import tool

from tracetui import cli
from tracetui.export import otlp_http

REPO = Path(__file__).resolve().parents[2]
SAMPLE = str(REPO / "sample_runs" / "flaky-billing")
PROTO = "application/x-protobuf"
SECRET = "s3cret-token-value"


def hex_to_b64(doc: Any) -> Any:
    if isinstance(doc, dict):
        return {
            k: base64.b64encode(bytes.fromhex(v)).decode()
            if k in ("traceId", "spanId", "parentSpanId")
            else hex_to_b64(v)
            for k, v in doc.items()
        }
    return [hex_to_b64(x) for x in doc] if isinstance(doc, list) else doc


def decode(raw: bytes, content_type: str, encoding: str | None) -> ExportTraceServiceRequest:
    data = gzip.decompress(raw) if encoding == "gzip" else raw
    if content_type == PROTO:
        return ExportTraceServiceRequest.FromString(data)
    return Parse(json.dumps(hex_to_b64(json.loads(data))), ExportTraceServiceRequest())


@dataclass
class Got:
    path: str
    headers: dict[str, str]
    raw: bytes
    message: ExportTraceServiceRequest

    @property
    def counts(self) -> list[int]:
        return [len(rs.scope_spans[0].spans) for rs in self.message.resource_spans]


@dataclass
class Script:
    answers: list[tuple[int, dict[str, str], bytes]] = field(default_factory=list)
    got: list[Got] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    hang: bool = False
    release: threading.Event = field(default_factory=threading.Event)


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        script: Script = self.server.script  # type: ignore[attr-defined]
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        if script.hang:
            script.release.wait(30)
            return
        try:
            message = decode(raw, self.headers["Content-Type"], self.headers["Content-Encoding"])
        except Exception as exc:  # the test fails on any, below
            script.errors.append(repr(exc))
            self.send_response(400)
            self.end_headers()
            return
        script.got.append(
            Got(self.path, {k.lower(): v for k, v in self.headers.items()}, raw, message)
        )
        status, headers, body = script.answers.pop(0) if script.answers else (200, {}, b"")
        self.send_response(status)
        for k, v in {"Content-Type": PROTO, **headers}.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[tuple[str, Script]]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    script = Script()
    server.script = script  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", script
    script.release.set()
    server.shutdown()
    server.server_close()
    assert script.errors == []


@pytest.fixture(autouse=True)
def quiet_env(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """No OTel variable of the machine leaks in; waits are recorded instead of slept."""
    for name in [k for k in os.environ if k.startswith("OTEL_")]:
        monkeypatch.delenv(name)
    waits: list[float] = []
    monkeypatch.setattr(otlp_http, "sleep", waits.append)
    return waits


def export(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli.main(["export", *args])
    out, err = capsys.readouterr()
    assert out == ""
    assert SECRET not in err
    return code, err


def file_export(tmp_path: Path, *paths: str) -> ExportTraceServiceRequest:
    out = tmp_path / "file.json"
    assert cli.main(["export", *paths, "--otlp-json", str(out)]) == 0
    return decode(out.read_bytes(), "application/json", None)


ENCODINGS = [
    ("protobuf", ["--protocol", "http/protobuf"], PROTO, None),
    ("protobuf-gzip", ["--gzip"], PROTO, "gzip"),
    ("json", ["--protocol", "http/json"], "application/json", None),
    ("json-gzip", ["--protocol", "http/json", "--gzip"], "application/json", "gzip"),
]


@pytest.mark.parametrize(
    ("extra", "ctype", "encoding"), [c[1:] for c in ENCODINGS], ids=[c[0] for c in ENCODINGS]
)
def test_every_field_arrives_as_the_file_holds_it(
    receiver: tuple[str, Script],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    ctype: str,
    encoding: str | None,
) -> None:
    url, script = receiver
    want = file_export(tmp_path, SAMPLE)
    capsys.readouterr()
    code, err = export(capsys, SAMPLE, "--otlp-http", url, *extra)
    assert (code, err) == (0, f"tracetui: 10 spans sent to {url}/v1/traces in 1 request\n")
    (got,) = script.got
    assert got.path == "/v1/traces"
    assert got.headers["content-type"] == ctype
    assert got.headers.get("content-encoding") == encoding
    assert got.headers["user-agent"].startswith("tracetui/")
    assert got.message == want  # ids, times, attributes, links, status: all of it


@pytest.mark.parametrize(
    ("extra", "ctype", "encoding"), [c[1:] for c in ENCODINGS], ids=[c[0] for c in ENCODINGS]
)
def test_a_hostile_run_arrives_as_the_file_holds_it(
    receiver: tuple[str, Script],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    ctype: str,
    encoding: str | None,
) -> None:
    """Odd types, escapes, unsafe characters, markers, links: the fast path's spans, decoded
    with the official schema, are the file's (the file is the reference writer's bytes)."""
    odd: list[dict[str, Any]] = [
        {"exit_code": 2**63 - 1, "redacted": 3.0, "duration_ms": 1e300},
        {"tool_name": "a\u202eb\x85\x7f\U000e0041", "cwd": "\u200b", "agent_note": "é漢"},
        {"preview_stdout": "x\n…[truncated 808 bytes]…\n", "stdout_bytes": None},
        {"preview_stderr": "<response clipped><NOTE>Observations", "stderr_truncated": None},
        {"stdout_bytes": 2**62, "stdout_cap": 1, "stdout_truncated": True, "stdout_clip": "mid"},
        {"started_at": None, "exit_code": None, "error": "cannot start"},
        {"started_at": " 2026-11-02T09:00:00.5+05:30 ", "exit_code": -9},
        {"argv": ["/usr/bin/env", 1], "tool_name": None, "ok_preview": "yes"},
        {"kind": "submission", "command_id": 7},
    ]
    records: list[Any] = []
    for i in range(120):
        fields = odd[i % len(odd)] if i % 3 else {}
        parent = f"h{i - 1}" if i % 4 == 1 else ("gone" if i % 4 == 2 else None)
        records.append(tool(f"h{i}", parent_command_id=parent, **fields))
        if i % 10 == 0:
            records.append({"command": ["make"], "stdout_tail": "…[truncated 9 bytes]…"})
            records.append({"span_type": "tool", "argv": ["pytest"], "returncode": 3})
    run = tmp_path / "H.jsonl"
    run.write_bytes(b"".join((json.dumps(r) + "\n").encode() for r in records) + b"{bad\n")
    url, script = receiver
    want = file_export(tmp_path, str(run))
    capsys.readouterr()
    code, _ = export(capsys, str(run), "--otlp-http", url, "--batch-spans", "100", *extra)
    assert code == 0
    assert [g.headers["content-type"] for g in script.got] == [ctype] * len(script.got)
    assert {g.headers.get("content-encoding") for g in script.got} == {encoding}
    spans = [s for g in script.got for s in g.message.resource_spans[0].scope_spans[0].spans]
    assert len(script.got) > 1
    assert spans == list(want.resource_spans[0].scope_spans[0].spans)


def many(make_run: Any, name: str, n: int) -> str:
    records = [tool(f"{name}{i}", argv=["echo", "x" * 40], exit_code=i % 3) for i in range(n)]
    return str(make_run({"B.jsonl": records}, folder=name) / "B.jsonl")


BATCHES = [
    ("one-per-request", 7, ["--batch-spans", "1"], [[1]] * 7),
    ("uneven", 7, ["--batch-spans", "3"], [[3], [3], [1]]),
    ("exact", 6, ["--batch-spans", "3"], [[3], [3]]),
    ("all-in-one", 7, ["--batch-spans", "7"], [[7]]),
    ("more-room-than-spans", 7, ["--batch-spans", "8"], [[7]]),
    ("a-span-over-the-byte-limit-goes-alone", 3, ["--batch-bytes", "10"], [[1], [1], [1]]),
]


@pytest.mark.parametrize(
    ("n", "extra", "want"), [c[1:] for c in BATCHES], ids=[c[0] for c in BATCHES]
)
def test_batching_boundaries(
    receiver: tuple[str, Script],
    make_run: Any,
    capsys: pytest.CaptureFixture[str],
    n: int,
    extra: list[str],
    want: list[list[int]],
) -> None:
    url, script = receiver
    code, err = export(capsys, many(make_run, "r", n), "--otlp-http", url, *extra)
    assert code == 0, err
    assert [g.counts for g in script.got] == want
    ids = [s.span_id for g in script.got for s in g.message.resource_spans[0].scope_spans[0].spans]
    assert len(set(ids)) == n  # each span once, none lost at a boundary


@pytest.mark.parametrize("protocol", ["http/protobuf", "http/json"])
def test_bytes_bound_packs_requests_under_the_limit(
    receiver: tuple[str, Script],
    make_run: Any,
    capsys: pytest.CaptureFixture[str],
    protocol: str,
) -> None:
    url, script = receiver
    run = many(make_run, "r", 9)  # r0…r8: three alike triples of spans (exit 0, 1, 2)
    assert (
        export(capsys, run, "--otlp-http", url, "--protocol", protocol, "--batch-spans", "1")[0]
        == 0
    )
    alone = [len(g.raw) for g in script.got]
    # Three one-span requests hold three spans and three wrappings: room for three spans in one.
    limit = sum(alone[:3])
    script.got.clear()
    code, err = export(
        capsys, run, "--otlp-http", url, "--protocol", protocol, "--batch-bytes", str(limit)
    )
    assert code == 0, err
    assert [g.counts for g in script.got] == [[3], [3], [3]]
    assert all(len(g.raw) <= limit for g in script.got)


def test_runs_stay_apart_as_resources_in_one_request(
    receiver: tuple[str, Script], make_run: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    url, script = receiver
    a, b = many(make_run, "a", 2), many(make_run, "b", 3)
    code, err = export(capsys, a, b, "--otlp-http", url, "--batch-spans", "4")
    assert code == 0, err
    assert [g.counts for g in script.got] == [[2, 2], [1]]
    runs = [
        [kv.value.string_value for kv in rs.resource.attributes if kv.key == "tracetui.run"]
        for g in script.got
        for rs in g.message.resource_spans
    ]
    assert runs[0] != runs[1] and runs[1] == runs[2]


def status_body(message: str) -> bytes:
    # google.rpc.Status: code (1, varint), message (2, string)
    data = message.encode()
    return b"\x08\x03\x12" + bytes([len(data)]) + data


RETRIES = [
    # (id, answers, args, exit, stderr line (URL filled in), waits expected, requests)
    ("429-retry-after-then-200", [(429, {"Retry-After": "2"}, b"")], [], 0, "sent", [2.0], 2),
    ("503-retry-after-0", [(503, {"Retry-After": "0"}, b"")], [], 0, "sent", [0.0], 2),
    ("retry-after-capped", [(503, {"Retry-After": "86400"}, b"")], [], 0, "sent", [60.0], 2),
    (
        "503-gives-up",
        [(503, {}, b"")] * 3,
        ["--max-attempts", "3"],
        1,
        "tracetui: export: {url}: HTTP 503 Service Unavailable (gave up after 3 attempts)\n",
        "backoff",
        3,
    ),
    ("502-retried", [(502, {}, b"")], [], 0, "sent", "backoff", 2),
    ("504-retried", [(504, {}, b"")], [], 0, "sent", "backoff", 2),
    (
        "400-no-retry",
        [(400, {}, status_body("span 3: bad trace id"))],
        [],
        1,
        "tracetui: export: {url}: HTTP 400 Bad Request: span 3: bad trace id\n",
        [],
        1,
    ),
    (
        "413-no-retry-json-detail",
        [(413, {"Content-Type": "application/json"}, b'{"code":8,"message":"too big"}')],
        [],
        1,
        "tracetui: export: {url}: HTTP 413 Request Entity Too Large: too big\n",
        [],
        1,
    ),
    (
        "302-not-followed",
        [(302, {"Location": "/elsewhere"}, b"")],
        [],
        1,
        "tracetui: export: {url}: HTTP 302 Found: a redirect to /elsewhere, not followed\n",
        [],
        1,
    ),
    (
        "500-no-retry-text-neutralised",
        [(500, {"Content-Type": "text/plain"}, b"oops \x1b[2J")],
        [],
        1,
        "tracetui: export: {url}: HTTP 500 Internal Server Error: oops \u241b[2J\n",
        [],
        1,
    ),
]


@pytest.mark.parametrize(
    ("answers", "args", "code", "line", "waits", "requests"),
    [c[1:] for c in RETRIES],
    ids=[c[0] for c in RETRIES],
)
def test_retries(
    receiver: tuple[str, Script],
    quiet_env: list[float],
    capsys: pytest.CaptureFixture[str],
    answers: list[tuple[int, dict[str, str], bytes]],
    args: list[str],
    code: int,
    line: str,
    waits: Any,
    requests: int,
) -> None:
    url, script = receiver
    script.answers = list(answers)
    got_code, err = export(capsys, SAMPLE, "--otlp-http", url, "--header", f"x-key={SECRET}", *args)
    full = f"{url}/v1/traces"
    want = (
        f"tracetui: 10 spans sent to {full} in 1 request\n"
        if line == "sent"
        else line.format(url=full)
    )
    assert (got_code, err) == (code, want)
    assert len(script.got) == requests
    assert len({g.raw for g in script.got}) == 1  # a retry resends the same request
    assert all(g.headers["x-key"] == SECRET for g in script.got)
    if waits == "backoff":
        # Doubling from 1 s, each wait between half and all of its step.
        assert len(quiet_env) == requests - 1
        assert all(2**k / 2 <= w <= 2**k for k, w in enumerate(quiet_env))
    else:
        assert quiet_env == waits


def partial(rejected: int, message: str) -> bytes:
    ps = ExportTracePartialSuccess(rejected_spans=rejected, error_message=message)
    return ExportTraceServiceResponse(partial_success=ps).SerializeToString()


PARTIALS = [
    (
        "rejected-protobuf",
        [],
        [(200, {}, partial(2, "2 spans too old")), (200, {}, partial(1, "later"))],
        1,
        "tracetui: export: {url} rejected 3 of 10 spans: 2 spans too old\n",
    ),
    (
        "rejected-json",
        ["--protocol", "http/json"],
        [(200, {"Content-Type": "application/json"}, b'{"partialSuccess":{"rejectedSpans":"4"}}')],
        1,
        "tracetui: export: {url} rejected 4 of 10 spans\n",
    ),
    (
        "warning-only",
        [],
        [(200, {}, partial(0, "slow down \x1b[31m"))],
        0,
        "tracetui: 10 spans sent to {url} in 2 requests (the receiver said: slow down \u241b[31m)\n",
    ),
    (
        "empty-partial-success",
        ["--protocol", "http/json"],
        [(200, {"Content-Type": "application/json"}, b'{"partialSuccess":{}}')],
        0,
        "tracetui: 10 spans sent to {url} in 2 requests\n",
    ),
]


@pytest.mark.parametrize(
    ("args", "answers", "code", "line"), [c[1:] for c in PARTIALS], ids=[c[0] for c in PARTIALS]
)
def test_partial_success_is_one_line(
    receiver: tuple[str, Script],
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    answers: list[tuple[int, dict[str, str], bytes]],
    code: int,
    line: str,
) -> None:
    url, script = receiver
    script.answers = list(answers)
    got = export(capsys, SAMPLE, "--otlp-http", url, "--batch-spans", "5", *args)
    assert got == (code, line.format(url=f"{url}/v1/traces"))


def test_a_later_batch_failing_says_what_was_delivered(
    receiver: tuple[str, Script], capsys: pytest.CaptureFixture[str]
) -> None:
    url, script = receiver
    script.answers = [(200, {}, b""), (400, {}, b"")]
    got = export(capsys, SAMPLE, "--otlp-http", url, "--batch-spans", "4")
    assert got == (
        1,
        f"tracetui: export: {url}/v1/traces: HTTP 400 Bad Request (4 spans delivered before)\n",
    )


def test_a_receiver_that_hangs_times_out(
    receiver: tuple[str, Script], quiet_env: list[float], capsys: pytest.CaptureFixture[str]
) -> None:
    url, script = receiver
    script.hang = True
    got = export(capsys, SAMPLE, "--otlp-http", url, "--timeout", "0.2", "--max-attempts", "2")
    assert got == (
        1,
        f"tracetui: export: {url}/v1/traces: no answer within 0.2 s (gave up after 2 attempts)\n",
    )
    assert len(quiet_env) == 1


def test_nobody_listening(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nobody listens there
    code, err = export(
        capsys, SAMPLE, "--otlp-http", f"http://127.0.0.1:{port}", "--max-attempts", "1"
    )
    assert code == 1
    assert err.startswith(f"tracetui: export: http://127.0.0.1:{port}/v1/traces: cannot deliver: ")
    assert err.count("\n") == 1


USAGE = [
    ("no-target", [], {}, "give --otlp-json FILE and/or --otlp-http [URL]"),
    ("both-names", ["--otlp-http", "http://x", "--endpoint", "http://y"], {}, "give --otlp-http or --endpoint, not both"),
    ("not-http", ["--otlp-http", "ftp://x"], {}, "endpoint must be an http:// or https:// URL, got 'ftp://x'"),
    ("bad-port", ["--otlp-http", "http://x:port"], {}, "the endpoint is not a valid URL"),
    ("credentials-in-url", ["--otlp-http", f"http://u:{SECRET}@x"], {}, "the endpoint URL holds credentials: pass them with --header instead"),
    ("grpc", ["--otlp-http"], {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "protocol 'grpc' is not supported (use http/protobuf or http/json)"),
    ("compression", ["--otlp-http"], {"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, "compression 'zstd' is not supported (use gzip or none)"),
    ("header-no-equals", ["--otlp-http", "--header", SECRET], {}, "--header 1: expected NAME=VALUE"),
    ("header-line-break", ["--otlp-http", "--header", f"x=a\r\n{SECRET}"], {}, "--header 1: the value of header x holds a line break"),
    ("header-not-ascii", ["--otlp-http", "--header", "x=clé"], {}, "--header 1: the value of header x is not ASCII"),
    ("header-bad-name", ["--otlp-http", "--header", "a b=1"], {}, "--header 1: 'a b' is not a header name"),
    ("env-headers", ["--otlp-http"], {"OTEL_EXPORTER_OTLP_HEADERS": f"a=1,{SECRET}"}, "OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not key=value"),
    ("env-timeout", ["--otlp-http"], {"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, "OTEL_EXPORTER_OTLP_TIMEOUT is not a number of milliseconds"),
    ("zero-timeout", ["--otlp-http", "--timeout", "0"], {}, "the timeout must be more than 0 seconds"),
    ("zero-attempts", ["--otlp-http", "--max-attempts", "0"], {}, "attempts and batch sizes must be at least 1"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("args", "env", "message"), [c[1:] for c in USAGE], ids=[c[0] for c in USAGE]
)
def test_usage_errors_exit_2_and_print_no_secret(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    env: dict[str, str],
    message: str,
) -> None:
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert export(capsys, SAMPLE, *args) == (2, f"tracetui: export: {message}\n")


ENV = {
    "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:{port}/base/",
    "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",  # the signal's own wins
    "OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
    "OTEL_EXPORTER_OTLP_HEADERS": f"api-key=one,x-token={SECRET}%20two",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "API-KEY=two",
}


def test_env_vars_through_the_entry_point(receiver: tuple[str, Script]) -> None:
    url, script = receiver
    port = url.rsplit(":", 1)[1]
    env = {k: v.format(port=port) for k, v in ENV.items()}
    p = subprocess.run(
        [sys.executable, "-m", "tracetui", "export", SAMPLE, "--otlp-http"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        env={**{k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}, **env},
    )
    assert p.returncode == 0, p.stderr
    assert p.stderr.decode() == f"tracetui: 10 spans sent to {url}/base/v1/traces in 1 request\n"
    (got,) = script.got
    assert (got.path, got.headers["content-type"], got.headers["content-encoding"]) == (
        "/base/v1/traces",
        PROTO,
        "gzip",
    )
    assert (got.headers["api-key"], got.headers["x-token"]) == ("two", f"{SECRET} two")
