"""The scanner's read buffers are reused between scans (``fastindex._take_buffer``): scans
interleaved in one thread, on several threads, abandoned half-way or past an over-long line
give exactly what each gives alone with a buffer of its own."""

from __future__ import annotations

import io
import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from records import encode_line, tool

from tracetui.store import fastindex
from tracetui.store.reader import MAX_LINE, RawLine

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="built without the C scanner")


def _lines(seed: int, n: int) -> bytes:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        fields: dict[str, Any] = {"exit_code": rnd.choice([0, 0, 1])}
        if rnd.random() < 0.2:
            fields["parent_command_id"] = f"s{seed}-{rnd.randrange(max(i, 1))}"
        out.append(
            encode_line(tool(f"s{seed}-{i}", stdout_tail="x" * rnd.randrange(3000), **fields))
        )
        if rnd.random() < 0.02:
            out.append(b"{not json\n")
    return b"".join(out) + b'{"unfinished": '


def _plain(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, RawLine):
            out.append(("raw", item.line_no, item.offset, item.length, item.data, item.complete))
        else:
            out.append(
                (
                    tuple(bytes(c) if isinstance(c, bytearray) else c for c in item.result),
                    item.slow_lines,
                )
            )
    return out


def _alone(data: bytes) -> list[Any]:
    """With a buffer of its own: the pool emptied and left unused."""
    saved = list(fastindex._pool)
    fastindex._pool.clear()
    try:
        got = _plain(list(fastindex.scan_stream(io.BytesIO(data), 0, 0)))
    finally:
        fastindex._pool[:] = saved[: fastindex._POOL_MOST]
    fastindex._pool.clear()
    return got


DATA = [_lines(seed, 3000) for seed in range(3)]


def test_scans_interleaved_in_one_thread_keep_their_own_buffers() -> None:
    want = [_alone(d) for d in DATA]
    list(fastindex.scan_stream(io.BytesIO(DATA[0]), 0, 0))  # a buffer in the pool
    gens = [fastindex.scan_stream(io.BytesIO(d), 0, 0) for d in DATA]
    got: list[list[Any]] = [[] for _ in DATA]
    live = set(range(len(DATA)))
    while live:
        for k in sorted(live):
            try:
                got[k].append(next(gens[k]))
            except StopIteration:
                live.discard(k)
    assert [_plain(g) for g in got] == want


def test_scans_on_threads_reuse_buffers_safely() -> None:
    want = [_alone(d) for d in DATA]
    jobs = DATA * 4
    with ThreadPoolExecutor(max_workers=3) as pool:
        got = list(
            pool.map(lambda d: _plain(list(fastindex.scan_stream(io.BytesIO(d), 0, 0))), jobs)
        )
    assert got == want * 4
    assert len(fastindex._pool) <= fastindex._POOL_MOST


def test_an_abandoned_scan_gives_its_buffer_back_unread() -> None:
    want = _alone(DATA[1])
    gen: Any = fastindex.scan_stream(io.BytesIO(DATA[0]), 0, 0)
    next(gen)
    gen.close()  # half-way: its buffer goes back to the pool, still holding DATA[0]'s bytes
    assert _plain(list(fastindex.scan_stream(io.BytesIO(DATA[1]), 0, 0))) == want


def test_a_scan_past_an_over_long_line_leaves_a_usual_buffer() -> None:
    long_line = encode_line(tool("long", stdout_tail="y" * (MAX_LINE + 10)))
    data = DATA[2][:50_000].rsplit(b"\n", 1)[0] + b"\n" + long_line + DATA[0]
    want = _alone(data)
    assert _plain(list(fastindex.scan_stream(io.BytesIO(data), 0, 0))) == want
    assert all(len(b) == fastindex.CHUNK for b in fastindex._pool)
    assert _plain(list(fastindex.scan_stream(io.BytesIO(DATA[1]), 0, 0))) == _alone(DATA[1])
