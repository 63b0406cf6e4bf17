"""The OTLP/HTTP sender's requests from the fast path equal those from the reference spans.

``otlp_http.requests`` takes each span from ``otlp_fast.iter_span_json`` (JSON bytes, read back
for protobuf). Before, it encoded ``otlp.iter_spans``' objects (``dump_json`` for http/json,
``otlp_proto.span`` for http/protobuf): that is the reference here, swapped in for
``span_bytes``. Every request body must be byte for byte the same, in both protocols and at
several batch sizes, on the fixtures, a generated hostile set and random records, with and
without the C span writer. (tests/cli/test_export_otlp_http.py decodes what a loopback
receiver gets with the official protobuf schema.)
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

import otlp_row_helpers
import pytest
import test_lint_fast
import test_otlp_row
import test_otlp_row_hostile
from records import encode_line, tool

from tracetui.export import otlp, otlp_http, otlp_proto
from tracetui.model.text import dump_json
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path


@pytest.fixture(autouse=True)
def _cold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")


def reference_spans(index: RunIndex, as_proto: bool) -> Iterator[bytes]:
    """What the sender encoded before it took the fast path's spans."""
    encode = otlp_proto.span if as_proto else dump_json
    return (encode(span) for span in otlp.iter_spans(index))


def assert_same_requests(
    monkeypatch: pytest.MonkeyPatch, indexes: list[RunIndex], c_road: bool = True
) -> int:
    """Compare every body of every setting; returns the spans sent."""
    sent = 0
    for protocol in otlp_http.PROTOCOLS:
        for batch_spans, batch_bytes in [(1000, otlp_http.BATCH_BYTES), (7, 3000)]:
            settings = otlp_http.Settings(
                url="http://x/v1/traces",
                protocol=protocol,
                batch_spans=batch_spans,
                batch_bytes=batch_bytes,
            )
            with monkeypatch.context() as m:
                if not c_road:
                    m.setenv("TRACETUI_NO_C", "1")
                fast = list(otlp_http.requests(indexes, settings))
            with monkeypatch.context() as m:
                m.setattr(otlp_http, "span_bytes", reference_spans)
                ref = list(otlp_http.requests(indexes, settings))
            assert fast == ref
            sent = sum(n for _, n in fast)
    return sent


def index_of(path: Path) -> RunIndex:
    return build_index(open_path(str(path))[0])


FIXTURES = test_otlp_row.FIXTURES
ROOT = test_otlp_row.ROOT


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(ROOT)) for p in FIXTURES])
def test_fixtures_same_requests(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    assert_same_requests(monkeypatch, [index_of(path)])


@pytest.mark.parametrize("c_road", [True, False], ids=["c", "python"])
def test_hostile_and_random_sets_same_requests(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, c_road: bool
) -> None:
    rng = random.Random(4)
    hostile = [test_lint_fast.hostile_line(rng, i) for i in range(600)]
    (tmp_path / "H.jsonl").write_bytes(b"".join(hostile))
    randoms = [
        (otlp_row_helpers.json_text(rng, otlp_row_helpers.random_record(rng, i)) + "\n").encode()
        for i in range(400)
    ]
    randoms += [line + b"\n" for _, line in test_otlp_row_hostile.HOSTILE]
    (tmp_path / "R.jsonl").write_bytes(b"".join(randoms))
    indexes = [index_of(tmp_path / "H.jsonl"), index_of(tmp_path / "R.jsonl")]
    assert assert_same_requests(monkeypatch, indexes, c_road) > 800


def test_a_member_name_that_is_no_utf8(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """protobuf writes '?' for the name's lone surrogate, JSON U+FFFD: both as before."""
    name = os.fsencode(tmp_path) + b"/R\xff.jsonl"
    with open(name, "wb") as fh:
        fh.write(b"".join(encode_line(tool(f"c{i}")) for i in range(3)))
    assert assert_same_requests(monkeypatch, [index_of(Path(os.fsdecode(name)))]) == 3
