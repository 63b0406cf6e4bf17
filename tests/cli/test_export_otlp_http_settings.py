"""export --otlp-http settings: usage errors exit 2 and print no secret; the OpenTelemetry
environment variables reach the sender through the real entry point.

The loopback receiver: tests/otlp_receiver.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from otlp_receiver import PROTO, SAMPLE, SECRET, Script, export, quiet, serve


@pytest.fixture
def receiver() -> Iterator[tuple[str, Script]]:
    yield from serve()


@pytest.fixture(autouse=True)
def quiet_env(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    return quiet(monkeypatch)


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
