"""JSON item counts: items at the source and complete items in the shown window."""

from __future__ import annotations

import json

import pytest

from tracetui.record.capture import StreamTap
from tracetui.record.recorder import build_view, item_counts, item_spans, json_items, tap_limits
from tracetui.record.redact import Redactor


def counts(data: bytes, cap: int | None, clip: str = "head"):
    tap = StreamTap(*tap_limits(cap, clip))
    tap.feed(data)
    d = tap.finish()
    return item_counts(d, build_view(d, cap, clip, Redactor()))


def records(n: int, width: int = 0) -> list[dict]:
    return [{"id": i, "name": f"item-{i}", "pad": "x" * width} for i in range(n)]


FIFTY = json.dumps(records(50)).encode()


def head_with(k: int) -> int:
    """Bytes of FIFTY up to the end of its k-th item."""
    return len(json.dumps(records(k))) - 1


def tail_with(k: int) -> int:
    """Bytes of FIFTY from the start of its k-th item from the end."""
    return len(json.dumps(records(50)[-k:])) - 1


# (id, data, cap, clip, expected (items, shown))
CASES = [
    ("list-not-truncated", FIFTY, None, "head", (50, 50)),
    ("list-head-20", FIFTY, head_with(20), "head", (50, 20)),
    ("list-head-one-byte-short", FIFTY, head_with(20) - 1, "head", (50, 19)),
    ("list-head-20-and-a-half", FIFTY, head_with(20) + 10, "head", (50, 20)),
    ("list-tail-5", FIFTY, tail_with(5), "tail", (50, 5)),
    ("list-tail-one-byte-short", FIFTY, tail_with(5) - 1, "tail", (50, 4)),
    ("list-head_tail", FIFTY, 2 * tail_with(5), "head_tail", (50, 5 + 5)),
    (
        "data-field",
        json.dumps({"total": 50, "data": records(50)}).encode(),
        len('{"total": 50, "data": ') + head_with(3),
        "head",
        (50, 3),
    ),
    ("two-list-fields", json.dumps({"a": [1], "b": [2]}).encode(), None, "head", (None, None)),
    ("object-without-list", b'{"a": 1}', None, "head", (None, None)),
    ("scalars", b"[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]", 12, "head", (10, 4)),
    ("strings-with-brackets", b'["a]", "b,", "c\\"]", "d"]', 13, "head", (4, 2)),
    ("nested-lists", b"[[1, [2]], [3], [4, 5]]", 16, "head", (3, 2)),
    ("empty-list", b"[]", 1, "head", (0, 0)),
    ("not-json", b"[1, 2", None, "head", (None, None)),
    ("text", b"hello [1]", None, "head", (None, None)),
]


@pytest.mark.parametrize(
    ("data", "cap", "clip", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_item_counts(data, cap, clip, expected):
    assert counts(data, cap, clip) == expected


def test_fifty_at_source_twenty_shown_in_the_record_fields():
    items, shown = counts(FIFTY, head_with(20))
    assert (items, shown) == (50, 20)


def test_item_spans_exact():
    raw = b' [ 1 , {"a": [2, 3]} ,"x" ] '
    assert [raw[s:e] for s, e in item_spans(raw, None)] == [b"1", b'{"a": [2, 3]}', b'"x"']


def test_item_spans_in_field_with_escaped_key():
    raw = b'{"meta": {"data": [9]}, "d\\u0061ta": [1, 2]}'
    assert json_items(raw) == (2, "data")
    assert [raw[s:e] for s, e in item_spans(raw, "data")] == [b"1", b"2"]


def test_too_big_for_the_json_limit_is_left_null():
    tap = StreamTap(*tap_limits(10, "head"), json_limit=100)
    tap.feed(FIFTY)
    d = tap.finish()
    assert d.json_bytes is None
    assert item_counts(d, build_view(d, 10, "head", Redactor())) == (None, None)
