"""Streaming capture: taps, UTF-8 boundaries, spooling, process groups, cancel and timeout."""

from __future__ import annotations

import hashlib
import os
import sys
import threading

import pytest

from tracetui.record.capture import StreamTap, run_captured, trim_end, trim_start

EURO = "€".encode()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"abc", b"abc"),
        (b"ab" + EURO[:1], b"ab"),
        (b"ab" + EURO[:2], b"ab"),
        (b"ab" + EURO, b"ab" + EURO),
        ("é".encode()[:1], b""),
        ("😀".encode()[:3], b""),
        (b"\x80\x80\x80\x80", b"\x80\x80\x80\x80"),
        (b"", b""),
    ],
    ids=["ascii", "1-of-3", "2-of-3", "whole", "1-of-2", "3-of-4", "garbage", "empty"],
)
def test_trim_end(data, expected):
    assert trim_end(data) == expected


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"abc", b"abc"),
        (EURO[1:] + b"a", b"a"),
        (EURO[2:] + b"a", b"a"),
        (b"\x80" * 5, b"\x80\x80"),
    ],
    ids=["ascii", "2-of-3", "3-of-3", "garbage-max-3"],
)
def test_trim_start(data, expected):
    assert trim_start(data) == expected


@pytest.mark.parametrize(
    ("chunks", "utf8"),
    [
        ([b"plain"], True),
        ([b"a" + EURO[:1], EURO[1:] + b"b"], True),  # a character split across chunks
        ([b"a" + EURO[:2]], False),  # the stream ends inside a character
        ([b"\xff"], False),
        ([], True),
    ],
    ids=["ascii", "split-char", "ends-mid-char", "invalid", "empty"],
)
def test_utf8_validity_across_chunks(chunks, utf8):
    tap = StreamTap(10, 10)
    for c in chunks:
        tap.feed(c)
    assert tap.finish().utf8 is utf8


def test_tail_ring_and_full_bytes():
    tap = StreamTap(4, 4)
    data = bytes(range(256)) * 50
    for i in range(0, len(data), 7):
        tap.feed(data[i : i + 7])
    d = tap.finish()
    assert (d.total, d.head, d.tail) == (len(data), data[:4], data[-4:])
    assert d.sha256 == hashlib.sha256(data).hexdigest()
    assert d.full_bytes() is None


@pytest.mark.parametrize("size", [0, 3, 8, 9], ids=["empty", "in-head", "exactly-both", "too-big"])
def test_full_bytes_from_head_and_tail(size):
    tap = StreamTap(4, 4)
    data = b"abcdefghi"[:size]
    tap.feed(data)
    assert tap.finish().full_bytes() == (data if size <= 8 else None)


def test_spool_keeps_the_whole_stream(tmp_path):
    tap = StreamTap(4, 4, spool=True)
    data = os.urandom(300_000)
    tap.feed(data[:100])
    tap.feed(data[100:])
    d = tap.finish()
    try:
        with open(d.spool_path, "rb") as fh:
            assert fh.read() == data
    finally:
        os.unlink(d.spool_path)


def run(argv, **kw):
    return run_captured(
        argv, cwd=os.getcwd(), stdout_tap=StreamTap(100, 100), stderr_tap=StreamTap(100, 100), **kw
    )


def test_both_streams_and_progress():
    seen: list[tuple[int, int]] = []
    out = run(
        [sys.executable, "-c", "import sys; sys.stdout.write('o'*5000); sys.stderr.write('e'*7)"],
        on_progress=lambda o, e: seen.append((o, e)),
    )
    assert (out.returncode, out.stdout.total, out.stderr.total) == (0, 5000, 7)
    assert seen[-1] == (5000, 7)


def test_stdin_is_closed():
    out = run([sys.executable, "-c", "import sys; print(repr(sys.stdin.read()))"])
    assert out.stdout.head == b"''\n"


def test_child_runs_in_its_own_session():
    out = run([sys.executable, "-c", "import os; print(os.getsid(0) == os.getpid())"])
    assert out.stdout.head == b"True\n"


def test_cancel_kills_the_group():
    cancel = threading.Event()
    cancel.set()
    out = run(["sleep", "30"], cancel=cancel, grace=0.5)
    assert (out.cancelled, out.timed_out, out.returncode) == (True, False, -15)


def test_stops_reading_when_an_outsider_keeps_the_pipe_open():
    # The grandchild leaves the group (setsid) and keeps stdout open: after the kill, capture
    # must still end instead of waiting for its EOF.
    script = (
        "import os, subprocess, sys, time\n"
        "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'], start_new_session=True)\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(30)\n"
    )
    out = run([sys.executable, "-c", script], timeout=0.5, grace=0.2)
    try:
        assert out.timed_out is True
        assert out.returncode == -15
    finally:
        os.kill(int(out.stdout.head.split()[0]), 9)
