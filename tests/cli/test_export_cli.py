"""`tracetui export` through the entry point: OTLP/JSON file and stdout, POST, errors and exit codes."""

from __future__ import annotations

import base64
import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.json_format import Parse
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tracetui import cli

PY = sys.executable
REPO = Path(__file__).resolve().parents[2]
SAMPLE = str(REPO / "sample_runs" / "flaky-billing")
SCRIPT = Path(PY).parent / "tracetui"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [PY, "-m", "tracetui"]


def tracetui(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*ENTRY, "export", *args], capture_output=True, stdin=subprocess.DEVNULL, timeout=60
    )


def parse(data: bytes) -> ExportTraceServiceRequest:
    def fix(o: Any) -> Any:
        if isinstance(o, dict):
            return {
                k: base64.b64encode(bytes.fromhex(v)).decode()
                if k in ("traceId", "spanId")
                else fix(v)
                for k, v in o.items()
            }
        return [fix(x) for x in o] if isinstance(o, list) else o

    return Parse(json.dumps(fix(json.loads(data))), ExportTraceServiceRequest())


def test_file_and_stdout_hold_the_same_request(tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    p = tracetui(SAMPLE, "--otlp-json", str(out))
    assert p.returncode == 0 and p.stdout == b""
    assert p.stderr.decode() == f"tracetui: 10 spans written to {out}\n"
    msg = parse(out.read_bytes())
    spans = msg.resource_spans[0].scope_spans[0].spans
    assert len(spans) == 10
    retries = [s for s in spans if s.links]
    assert [s.name for s in retries] == ["execute_tool pytest", "execute_tool pytest"]
    assert len({s.trace_id for s in spans if s.name == "execute_tool pytest"}) == 1
    p = tracetui(SAMPLE, "--otlp-json", "-")
    assert p.returncode == 0 and p.stdout == out.read_bytes()


class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.got.append((self.path, self.headers["Content-Type"], body))  # type: ignore[attr-defined]
        self.send_response(self.server.status)  # type: ignore[attr-defined]
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[Any]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    server.got, server.status = [], 200  # type: ignore[attr-defined]
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    yield server
    server.shutdown()
    server.server_close()


def test_endpoint_post(receiver: Any) -> None:
    url = f"http://127.0.0.1:{receiver.server_address[1]}"
    # http/json kept here (protobuf, the default, is covered by test_export_otlp_http.py).
    p = tracetui(SAMPLE, "--endpoint", url, "--protocol", "http/json")
    assert p.returncode == 0, p.stderr
    assert p.stderr.decode() == f"tracetui: 10 spans sent to {url}/v1/traces in 1 request\n"
    ((path, ctype, body),) = receiver.got
    assert (path, ctype) == ("/v1/traces", "application/json")
    assert len(parse(body).resource_spans[0].scope_spans[0].spans) == 10


def test_endpoint_refusal_exits_1(receiver: Any) -> None:
    receiver.status = 503
    url = f"http://127.0.0.1:{receiver.server_address[1]}/v1/traces"
    p = tracetui(SAMPLE, "--endpoint", url, "--max-attempts", "1")  # 503 is retried otherwise
    assert p.returncode == 1
    assert p.stderr.decode() == f"tracetui: export: {url}: HTTP 503 Service Unavailable\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([SAMPLE], "tracetui: export: give --otlp-json FILE and/or --otlp-http [URL]\n"),
        (
            [SAMPLE, "--endpoint", "ftp://x"],
            "tracetui: export: endpoint must be an http:// or https:// URL, got 'ftp://x'\n",
        ),
        (
            [SAMPLE, "--otlp-json", "/nonexistent-dir/t.json"],
            "tracetui: export: cannot write /nonexistent-dir/t.json: ",
        ),
        (
            ["/nonexistent-run.jsonl", "--otlp-json", "-"],
            "tracetui: /nonexistent-run.jsonl: no such file or directory\n",
        ),
    ],
    ids=["no-target", "bad-endpoint", "unwritable-file", "missing-run"],
)
def test_usage_errors_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # In-process (the entry point is covered above): same main, no interpreter start-up per case.
    assert cli.main(["export", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(message)
