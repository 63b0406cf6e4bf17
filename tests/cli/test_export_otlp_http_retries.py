"""export --otlp-http against a scripted receiver's answers: retries with backoff and
Retry-After, errors that end the export, partial success, timeouts, nobody listening.

The loopback receiver and the recorded waits: tests/otlp_receiver.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceResponse,
)
from otlp_receiver import SAMPLE, SECRET, Script, export, quiet, serve


@pytest.fixture
def receiver() -> Iterator[tuple[str, Script]]:
    yield from serve()


@pytest.fixture(autouse=True)
def quiet_env(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    return quiet(monkeypatch)


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
