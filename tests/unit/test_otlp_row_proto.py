"""The C protobuf encoder of a span (``_otlp_row.span_proto``) writes otlp_proto.span's bytes.

The OTLP/HTTP sender's http/protobuf encodes each span the fast path wrote as JSON. In C the
JSON is read and the ``Span`` message written directly; Python's road is ``orjson.loads`` and
``otlp_proto.span``. Every span of the fixtures, a hostile set and random records must encode
to the same bytes both ways (and none may be declined: they are all of the writers' shape);
shapes the writers never make are declined (None) rather than guessed at.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import orjson
import otlp_row_helpers
import pytest
import test_lint_fast
import test_otlp_row
import test_otlp_row_hostile

from tracetui.export import otlp_fast, otlp_proto
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

pytestmark = pytest.mark.skipif(otlp_fast._otlp_row is None, reason="C span writer not built")


@pytest.fixture(autouse=True)
def _cold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    monkeypatch.delenv("TRACETUI_NO_C", raising=False)


def assert_same(span_json: bytes) -> None:
    got = otlp_fast._otlp_row.span_proto(span_json)
    assert got is not None, span_json[:300]
    assert got == otlp_proto.span(orjson.loads(span_json))


def spans_of(path: Path) -> list[bytes]:
    return list(otlp_fast.iter_span_json(build_index(open_path(str(path))[0])))


FIXTURES = test_otlp_row.FIXTURES
ROOT = test_otlp_row.ROOT


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(ROOT)) for p in FIXTURES])
def test_fixtures_same_protobuf(path: Path) -> None:
    for span in spans_of(path):
        assert_same(span)


def test_hostile_and_random_spans_same_protobuf(tmp_path: Path) -> None:
    rng = random.Random(11)
    lines = [test_lint_fast.hostile_line(rng, i) for i in range(800)]
    lines += [
        (otlp_row_helpers.json_text(rng, otlp_row_helpers.random_record(rng, i)) + "\n").encode()
        for i in range(800)
    ]
    lines += [line + b"\n" for _, line in test_otlp_row_hostile.HOSTILE]
    (tmp_path / "R.jsonl").write_bytes(b"".join(lines))
    spans = spans_of(tmp_path / "R.jsonl")
    assert len(spans) > 1200
    for span in spans:
        assert_same(span)


def _span(**change: object) -> bytes:
    span: dict[str, object] = {
        "traceId": "ab" * 16,
        "spanId": "cd" * 8,
        "name": "execute_tool x",
        "kind": 1,
        "startTimeUnixNano": "5",
        "endTimeUnixNano": "0",
        "attributes": [
            {"key": "a", "value": {"intValue": "-9223372036854775808"}},
            {"key": "b", "value": {"intValue": "18446744073709551615"}},
            {"key": "c", "value": {"boolValue": False}},
            {"key": "d", "value": {"arrayValue": {"values": []}}},
            {"key": "", "value": {"stringValue": ""}},
        ],
    }
    span.update(change)
    return json.dumps(span).encode()


EDGES = [
    ("edges", _span(), True),
    ("empty-ids-and-name", _span(traceId="", spanId="", name=""), True),
    ("kind-zero", _span(kind=0), True),
    ("negative-start", _span(startTimeUnixNano="-1"), True),
    ("status-empty-message", _span(status={"code": 0, "message": ""}), True),
    ("double-value", _span(attributes=[{"key": "a", "value": {"doubleValue": 1.5}}]), False),
    (
        "int-past-64",
        _span(attributes=[{"key": "a", "value": {"intValue": str(3 * 2**64 + 5)}}]),
        True,
    ),
    ("time-past-64", _span(startTimeUnixNano=str(2**64), endTimeUnixNano=str(2**70 + 1)), True),
    ("int-long", _span(attributes=[{"key": "a", "value": {"intValue": "9" * 5000}}]), False),
    ("upper-hex", _span(traceId="AB" * 16), False),
    ("short-id", _span(spanId="cd"), False),
    ("unknown-key", _span(parentSpanId="ef" * 8), False),
    (
        "nested-array",
        _span(
            attributes=[
                {"key": "a", "value": {"arrayValue": {"values": [{"arrayValue": {"values": []}}]}}}
            ]
        ),
        False,
    ),
    ("not-json", b'{"traceId": ', False),
]


@pytest.mark.parametrize(("case", "span", "done"), EDGES, ids=[c[0] for c in EDGES])
def test_edges(case: str, span: bytes, done: bool) -> None:
    got = otlp_fast._otlp_row.span_proto(span)
    if done:
        assert got == otlp_proto.span(orjson.loads(span))
    else:
        assert got is None
