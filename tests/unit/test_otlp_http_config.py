"""otlp_http's settings and pacing: the traces URL from the command line and the OTel env vars,
Retry-After, the backoff steps, and requests built one batch at a time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from records import tool

from tracetui.export import otlp_fast, otlp_http
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

URLS = [
    ("cli-appends", "http://h:1", {}, "http://h:1/v1/traces"),
    ("cli-kept", "http://h:1/v1/traces", {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://other"}, "http://h:1/v1/traces"),
    ("traces-as-is", None, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://h/custom"}, "https://h/custom"),
    ("traces-over-base", None, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t/x", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://b"}, "http://t/x"),
    ("base-no-slash", None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b:4318"}, "http://b:4318/v1/traces"),
    ("base-with-path", None, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://b/p/"}, "http://b/p/v1/traces"),
    ("default", None, {}, "http://localhost:4318/v1/traces"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("cli_url", "env", "want"), [c[1:] for c in URLS], ids=[c[0] for c in URLS]
)
def test_resolve_url(cli_url: str | None, env: dict[str, str], want: str) -> None:
    assert otlp_http.resolve_url(cli_url, env) == want


@pytest.mark.parametrize(
    ("value", "want"),
    [
        (None, None),
        ("", None),
        ("3", 3.0),
        ("soon", None),
        ("Thu, 01 Jan 1970 00:00:10 GMT", 10.0),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),
        ("Thu, 01 Jan 1970 01:00:00 GMT", 60.0),
    ],
    ids=["absent", "empty", "seconds", "junk", "date", "date-past", "date-capped"],
)
def test_retry_after(value: str | None, want: float | None) -> None:
    assert otlp_http.retry_after(value, now=0.0) == want


@pytest.mark.parametrize(
    ("attempt", "rand", "want"),
    [(1, 0.0, 0.5), (1, 1.0, 1.0), (2, 0.0, 1.0), (3, 1.0, 4.0), (10, 1.0, 30.0), (10, 0.0, 15.0)],
    ids=["first-low", "first-high", "second", "third", "capped-high", "capped-low"],
)
def test_backoff(attempt: int, rand: float, want: float) -> None:
    assert otlp_http.backoff(attempt, lambda: rand) == want


@pytest.mark.parametrize("protocol", ["http/protobuf", "http/json"])
def test_requests_are_built_one_batch_at_a_time(
    make_run: Any, monkeypatch: pytest.MonkeyPatch, protocol: str
) -> None:
    root = make_run({"B.jsonl": [tool("r0")]})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    made = [0]

    def endless(_index: Any) -> Iterator[bytes]:
        while True:  # a run that never ends: only a streaming sender gets a first request out
            made[0] += 1
            yield b'{"traceId":"%s","spanId":"%s","name":"s%d"}' % (b"ab" * 16, b"cd" * 8, made[0])

    monkeypatch.setattr(otlp_fast, "iter_span_json", endless)
    settings = otlp_http.Settings(url="http://x/v1/traces", protocol=protocol, batch_spans=100)
    batches = otlp_http.requests([ix], settings)
    for k in range(1, 4):
        _body, count = next(batches)
        assert count == 100
        assert made[0] == 100 * k + 1  # the span that opened the next batch, no more
