"""A loopback OTLP/HTTP receiver for the tests of ``export --otlp-http``
(tests/cli/test_export_otlp_http*.py), and what they share.

The receiver (http.server on 127.0.0.1:0, in a thread) gunzips when asked, decodes protobuf
with opentelemetry-proto's ExportTraceServiceRequest (JSON strictly through protobuf's own
parser), and answers from a script: the tests set what each request gets back. Each test module
turns :func:`serve` and :func:`quiet` into its fixtures (``receiver``, and ``quiet_env``, which
replaces the sender's ``sleep`` so waits are recorded, not slept).
"""

from __future__ import annotations

import base64
import gzip
import http.server
import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import Parse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tracetui import cli
from tracetui.export import otlp_http

REPO = Path(__file__).resolve().parents[1]
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


def serve() -> Iterator[tuple[str, Script]]:
    """The body of each module's ``receiver`` fixture: ``(URL, script)`` of a loopback receiver
    running until the test ends; no decoding error may have happened by then."""
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


def quiet(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The body of each module's autouse ``quiet_env`` fixture: no OTel variable of the machine
    leaks in; waits are recorded instead of slept."""
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
