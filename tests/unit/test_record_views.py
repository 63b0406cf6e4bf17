"""The recorder's cut of one stream: caps, clip modes, UTF-8 boundaries, binary, empty output."""

from __future__ import annotations

import hashlib

import pytest

from tracetui.model.markers import marker_line, split_preview
from tracetui.record.capture import StreamData, StreamTap
from tracetui.record.recorder import build_view, tap_limits
from tracetui.record.redact import Redactor

CAP = 10


def tapped(data: bytes, cap: int | None, clip: str, chunk: int = 3) -> StreamData:
    """Feed ``data`` through a tap sized like the recorder's, in small chunks."""
    tap = StreamTap(*tap_limits(cap, clip))
    for i in range(0, len(data), chunk):
        tap.feed(data[i : i + chunk])
    return tap.finish()


def view(data: bytes, cap: int | None, clip: str):
    return build_view(tapped(data, cap, clip), cap, clip, Redactor(rules=()))


def sha(b: bytes) -> str:
    return hashlib.sha256(b).hexdigest()


DIGITS = b"0123456789abcdefghij"

# (clip, size, preview, head_bytes, tail_bytes)
CASES = [
    ("head", CAP - 1, "012345678", None, None),
    ("head", CAP, "0123456789", None, None),
    ("head", CAP + 1, "0123456789" + marker_line(1), 10, None),
    ("tail", CAP - 1, "012345678", None, None),
    ("tail", CAP, "0123456789", None, None),
    ("tail", CAP + 1, marker_line(1) + "123456789a", None, 10),
    ("head_tail", CAP - 1, "012345678", None, None),
    ("head_tail", CAP, "0123456789", None, None),
    ("head_tail", CAP + 1, "01234" + marker_line(1) + "6789a", 5, 5),
    ("head_tail", 20, "01234" + marker_line(10) + "fghij", 5, 5),
]


@pytest.mark.parametrize(
    ("clip", "size", "preview", "head_bytes", "tail_bytes"),
    CASES,
    ids=[f"{c[0]}-{c[1]}" for c in CASES],
)
def test_caps_around_the_limit(clip, size, preview, head_bytes, tail_bytes):
    data = DIGITS[:size]
    v = view(data, CAP, clip)
    truncated = size > CAP
    assert v.preview == preview
    assert v.fields["bytes"] == size
    assert v.fields["cap"] == CAP
    assert v.fields["clip"] == clip
    assert v.fields["truncated"] is truncated
    assert v.fields["full_sha256"] == sha(data)
    assert v.fields["sha256"] == (None if truncated else sha(data))
    assert v.fields["head_bytes"] == head_bytes
    assert v.fields["tail_bytes"] == tail_bytes
    assert v.fields["head_sha256"] == (None if head_bytes is None else sha(data[:head_bytes]))
    assert v.fields["tail_sha256"] == (
        None if tail_bytes is None else sha(data[size - tail_bytes :])
    )
    before, withheld, after = split_preview(v.preview)
    if truncated:
        assert withheld == size - (head_bytes or 0) - (tail_bytes or 0)
        assert before.encode() == data[: head_bytes or 0]
        assert after.encode() == (data[size - tail_bytes :] if tail_bytes else b"")
    else:
        assert (before, withheld, after) == (data.decode(), None, "")


EURO = "€".encode()  # three bytes: a cut can fall after its first or second byte

# (clip, data, cap, preview, head_bytes, tail_bytes)
MULTIBYTE = [
    ("head-cut-after-1-of-3", "head", b"abcd" + EURO + b"xyz", 5, "abcd" + marker_line(6), 4, None),
    ("head-cut-after-2-of-3", "head", b"abc" + EURO + b"xyz", 5, "abc" + marker_line(6), 3, None),
    ("head-cut-on-boundary", "head", b"ab" + EURO + b"xyz", 5, "ab€" + marker_line(3), 5, None),
    ("tail-cut-inside", "tail", b"xyz" + EURO + b"ab", 4, marker_line(6) + "ab", None, 2),
    ("tail-cut-on-boundary", "tail", b"xyz" + EURO + b"ab", 5, marker_line(3) + "€ab", None, 5),
    ("head_tail-both-inside", "head_tail", EURO * 4, 8, "€" + marker_line(6) + "€", 3, 3),
    ("head_tail-nothing-whole", "head_tail", EURO * 4, 4, marker_line(12), 0, 0),
    ("two-byte-char-head", "head", "ééé".encode(), 3, "é" + marker_line(4), 2, None),
]


@pytest.mark.parametrize(
    ("clip", "data", "cap", "preview", "head_bytes", "tail_bytes"),
    [c[1:] for c in MULTIBYTE],
    ids=[c[0] for c in MULTIBYTE],
)
def test_multibyte_characters_are_never_split(clip, data, cap, preview, head_bytes, tail_bytes):
    v = view(data, cap, clip)
    assert v.preview == preview
    assert "\ufffd" not in v.preview
    assert v.fields["head_bytes"] == head_bytes
    assert v.fields["tail_bytes"] == tail_bytes
    if head_bytes is not None:
        assert v.fields["head_sha256"] == sha(data[:head_bytes])
    if tail_bytes is not None:
        assert v.fields["tail_sha256"] == sha(data[len(data) - tail_bytes :])


BINARY = [
    ("invalid-byte-not-truncated", b"ok\xff\xfeend", 100, "head", "ok\\xff\\xfeend", False),
    (
        "invalid-byte-truncated",
        b"\x00\x01\xff" * 10,
        4,
        "head",
        "\x00\x01\\xff\x00" + marker_line(26),
        True,
    ),
    # The window edge rule is the same as for text: leading continuation bytes are withheld.
    ("lone-continuation-tail", b"abc\x80\x80\x80\x80def", 4, "tail", marker_line(7) + "def", True),
]


@pytest.mark.parametrize(
    ("data", "cap", "clip", "preview", "truncated"),
    [c[1:] for c in BINARY],
    ids=[c[0] for c in BINARY],
)
def test_binary_streams_render_with_backslash_escapes(data, cap, clip, preview, truncated):
    d = tapped(data, cap, clip)
    assert d.utf8 is False
    v = build_view(d, cap, clip, Redactor(rules=()))
    assert v.preview == preview
    assert v.fields["truncated"] is truncated
    assert v.fields["full_sha256"] == sha(data)


@pytest.mark.parametrize("clip", ["head", "tail", "head_tail"])
def test_empty_output(clip):
    v = view(b"", CAP, clip)
    assert v.preview == ""
    assert v.fields["bytes"] == 0
    assert v.fields["truncated"] is False
    assert v.fields["sha256"] == sha(b"")


@pytest.mark.parametrize("clip", ["head", "tail", "head_tail"])
def test_cap_zero_shows_only_the_marker(clip):
    v = view(b"abc", 0, clip)
    assert v.preview == marker_line(3)
    assert v.fields["truncated"] is True


def test_uncapped_keeps_everything():
    data = DIGITS * 1000
    v = view(data, None, "head")
    assert v.preview == data.decode()
    assert (v.fields["cap"], v.fields["clip"], v.fields["truncated"]) == (None, None, False)


def test_big_stream_keeps_bounded_windows():
    tap = StreamTap(*tap_limits(100, "head_tail"))
    block = bytes(range(65, 91)) * 4000
    for _ in range(200):
        tap.feed(block)
    d = tap.finish()
    assert d.total == len(block) * 200
    assert len(d.head) <= 50 + 4096 and len(d.tail) <= 50 + 4096
    v = build_view(d, 100, "head_tail", Redactor(rules=()))
    assert v.fields["head_bytes"] == 50 and v.fields["tail_bytes"] == 50
    assert v.fields["tail_sha256"] == sha(block[-50:])
