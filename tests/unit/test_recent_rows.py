"""The rows the viewer keeps as the follower parsed them are the rows the index reads back
(ui/recent_rows.py), and are given up as soon as their file moves or is gone."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from tracetui.live.follow import Follower
from tracetui.model.spans import Span
from tracetui.store.reader import BadLine
from tracetui.store.runset import open_path
from tracetui.ui.recent_rows import KEEP, RecentRows


def rec(i: int) -> bytes:
    obj = {
        "schema": "tracetui/1",
        "command_id": f"c{i:05d}",
        "argv": ["echo", str(i), "é" * (i % 3)],
        "exit_code": 1 if i % 7 == 0 else 0,
        "stdout_bytes": 40_000 if i % 5 == 0 else 10,
        "stdout_cap": 16_384,
        "stdout_truncated": i % 5 == 0,
        "preview_stdout": "x" * (i % 11),
    }
    return (json.dumps(obj) + "\n").encode()


def follow(base: Path, lines: Sequence[bytes]) -> tuple[Follower, RecentRows]:
    """A follower past what ``base`` holds, then ``lines`` appended and read line by line."""
    f = Follower(open_path(str(base))[0])
    while f.poll_once() or f.more:
        pass
    recent = RecentRows(f.index)
    f.on_rows = recent.add
    with base.open("ab") as fh:
        fh.writelines(lines)
    while f.poll_once() or f.more:
        pass
    return f, recent


CASES = [
    ("spans", [rec(i) for i in range(40)]),
    ("bad-lines-between", [rec(0), b"{not json\n", rec(1), b'{"schema": 3}\n', rec(2)]),
    ("more-than-kept", [rec(i) for i in range(KEEP + 100)]),
]


@pytest.mark.parametrize("lines", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_a_kept_row_is_the_row_the_index_reads(tmp_path: Path, lines: list[bytes]) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(99_999))
    f, recent = follow(base, lines)
    index = f.index
    assert len(index) == len(lines) + 1
    for row in range(len(index)):
        got, read = recent.get(row), index.get(row)
        assert type(got) is type(read)
        if isinstance(read, Span):
            assert got == read
        else:
            assert isinstance(got, BadLine)
            assert (got.file, got.line, got.reason) == (read.file, read.line, read.reason)
    f.stop()


def test_only_the_newest_rows_are_kept(tmp_path: Path) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(99_999))
    handed: dict[int, object] = {}
    f = Follower(open_path(str(base))[0])
    while f.poll_once() or f.more:
        pass
    recent = RecentRows(f.index)

    def on_rows(first: int, items: Sequence[Span | BadLine]) -> None:
        handed.update((first + i, item) for i, item in enumerate(items))
        recent.add(first, items)

    f.on_rows = on_rows
    with base.open("ab") as fh:
        fh.writelines(rec(i) for i in range(KEEP * 2))
    while f.poll_once() or f.more:
        pass
    last = len(f.index) - 1
    assert recent.get(last) is handed[last]  # kept: the very object the follower parsed
    assert recent.get(1) is not handed[1]  # long gone from the kept rows: read from the file
    assert recent.get(1) == handed[1]
    f.stop()


def test_a_row_whose_file_moved_or_went_is_read_again(tmp_path: Path) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(99_999))
    f, recent = follow(base, [rec(i) for i in range(5)])
    index = f.index
    mno = index.member_no[3]
    kept = recent.get(3)
    assert isinstance(kept, Span)
    index.repoint_member(mno, readable="")  # the member is gone: the index says so
    gone = recent.get(3)
    assert isinstance(gone, BadLine) and isinstance(index.get(3), BadLine)
    os.rename(base, tmp_path / "run.jsonl.1")
    index.repoint_member(mno, path=str(tmp_path / "run.jsonl.1"), readable=str(base) + ".1")
    assert recent.get(3) == index.get(3) == kept  # read again, from where it is now
    assert recent.get(3) is not kept
    f.stop()
