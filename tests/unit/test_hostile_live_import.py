"""The temp copy a followed foreign session is converted into (store/live_import.py) on a disk
that fills.

Before: each record was one ``os.write`` whose count was not looked at. A short write (a disk
filling) left part of a line and moved every later row away from the offset its row names: the
rows after it read back as other bytes. A write that failed part-way left the part behind too.
Now the rest of a short write is written again, and a failed one is cut back off the copy: the
error goes to the follower (which notes it) and every row still reads back as written.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from tracetui.record.recorder import run_with_feedback
from tracetui.store.live_import import ImportSink, encode
from tracetui.store.runset import Run

PY = sys.executable


def records(tmp_path: Path, n: int) -> list[dict[str, Any]]:
    for k in range(n):
        run_with_feedback([PY, "-c", f"print({k})"], log=tmp_path / "src.jsonl")
    lines = (tmp_path / "src.jsonl").read_bytes().splitlines()
    return [orjson.loads(line) for line in lines]


def short_writes(real: Callable[[int, Any], int]) -> Callable[[int, Any], int]:
    """Every write takes at most 7 bytes (as a filling disk may)."""
    return lambda fd, data: real(fd, bytes(data)[:7])


def fails_part_way(real: Callable[[int, Any], int]) -> Callable[[int, Any], int]:
    """The first write takes 7 bytes, the next raises ENOSPC (the disk is full)."""
    calls = [0]

    def write(fd: int, data: Any) -> int:
        calls[0] += 1
        if calls[0] == 1:
            return real(fd, bytes(data)[:7])
        raise OSError(errno.ENOSPC, "No space left on device")

    return write


def test_short_writes_still_give_whole_lines_where_the_rows_say(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recs = records(tmp_path, 3)
    sink = ImportSink(Run(str(tmp_path / "agent.jsonl"), [], source_format="claude-code"))
    try:
        real = os.write
        with monkeypatch.context() as patch:
            patch.setattr(os, "write", short_writes(real))
            rows = sink.add(recs)
        assert Path(sink.temp).read_bytes() == b"".join(encode(r) + b"\n" for r in recs)
        got = [sink.index.span(row) for row in rows]
        assert [s.command_id for s in got if s] == [r["command_id"] for r in recs]
    finally:
        sink.close()
        sink.index.close()


def test_a_write_that_fails_part_way_leaves_nothing_of_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    recs = records(tmp_path, 3)
    sink = ImportSink(Run(str(tmp_path / "agent.jsonl"), [], source_format="claude-code"))
    try:
        first = sink.add(recs[:1])
        real = os.write
        with monkeypatch.context() as patch:
            patch.setattr(os, "write", fails_part_way(real))
            with pytest.raises(OSError, match="No space left on device"):
                sink.add(recs[1:2])
        later = sink.add(recs[2:])  # the disk has room again
        kept = [recs[0], recs[2]]
        assert Path(sink.temp).read_bytes() == b"".join(encode(r) + b"\n" for r in kept)
        got = [sink.index.span(row) for row in first + later]
        assert [s.command_id for s in got if s] == [r["command_id"] for r in kept]
    finally:
        sink.close()
        sink.index.close()
