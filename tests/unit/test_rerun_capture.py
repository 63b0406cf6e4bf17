"""The capture taps the re-run relies on keep memory bounded whatever the stream holds."""

from __future__ import annotations

import pytest

from tracetui.record.capture import StreamTap

CASES = [
    ("whitespace-only", [b" \n" * 4096] * 8, None),
    ("json-over-limit", [b"[", b"1," * 4096, b"1]"], None),
    ("json-under-limit", [b"  [1,", b"2]"], b"  [1,2]"),
    ("not-json", [b"hello"], None),
]


@pytest.mark.parametrize(("name", "chunks", "want"), CASES, ids=[c[0] for c in CASES])
def test_json_copy_respects_its_limit(name: str, chunks: list[bytes], want: bytes | None) -> None:
    tap = StreamTap(0, 0, json_limit=1024)
    for chunk in chunks:
        tap.feed(chunk)
        assert tap._json is None or len(tap._json) <= 1024
    data = tap.finish()
    assert data.json_bytes == want
    assert (data.head, data.tail, data.total) == (b"", b"", sum(map(len, chunks)))


def test_spooling_tap_keeps_nothing_in_memory() -> None:
    tap = StreamTap(0, 0, json_limit=0, spool=True)
    for _ in range(64):
        tap.feed(b"{" + b" " * 65535)
    data = tap.finish()
    try:
        assert (data.head, data.tail, data.json_bytes, data.total) == (b"", b"", None, 64 << 16)
        with open(data.spool_path or "", "rb") as fh:
            assert len(fh.read()) == 64 << 16
    finally:
        import os

        os.unlink(data.spool_path or "")
