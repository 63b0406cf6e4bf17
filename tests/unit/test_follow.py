"""The follower, step by step: each case drives ``poll_once`` between file operations."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import threading
from pathlib import Path

import pytest

from tracetui.live.follow import Follower
from tracetui.store.build import build_index
from tracetui.store.reader import BadLine
from tracetui.store.runset import open_path


def rec(i: int) -> bytes:
    obj = {
        "schema": "tracetui/1",
        "span_type": "tool",
        "command_id": f"c{i:04d}",
        "argv": ["echo", str(i)],
        "exit_code": 0,
    }
    return (json.dumps(obj) + "\n").encode()


class Seen:
    """Collects what a follower reports."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.bad: list[str] = []
        self.rows: list[int] = []
        self.new_runs: list[str] = []
        self.event = threading.Event()

    def on_rows(self, first: int, items: list[object]) -> None:
        for row, item in enumerate(items, first):
            self.rows.append(row)
            if isinstance(item, BadLine):
                self.bad.append(item.reason)
            else:
                self.ids.append(item.command_id)  # type: ignore[attr-defined]
        self.event.set()


def follower(base: Path, seen: Seen, **kw: object) -> Follower:
    return Follower(
        open_path(str(base))[0], on_rows=seen.on_rows, on_new_run=seen.new_runs.append, **kw
    )  # type: ignore[arg-type]


def drain(f: Follower) -> None:
    while f.poll_once() or f.more:
        pass


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)


@pytest.mark.parametrize(
    "cuts",
    [[1], [10, 20], [len(rec(1)) - 1], [5, 6, 7, 8]],
    ids=["one-byte", "two-cuts", "all-but-newline", "byte-by-byte"],
)
def test_partial_last_line_waits_for_its_newline(tmp_path: Path, cuts: list[int]) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(0))
    seen = Seen()
    f = follower(base, seen)
    drain(f)
    line, pos = rec(1), 0
    for cut in cuts:
        append(base, line[pos:cut])
        pos = cut
        drain(f)
        assert (seen.ids, seen.bad) == (["c0000"], [])
    append(base, line[pos:])
    drain(f)
    assert (seen.ids, seen.bad) == (["c0000", "c0001"], [])


def test_partial_line_of_a_rotated_away_file_is_read_as_it_is(tmp_path: Path) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(0) + rec(1)[:15])
    seen = Seen()
    f = follower(base, seen)
    drain(f)
    os.rename(base, tmp_path / "run.jsonl.1")
    base.write_bytes(rec(2))
    drain(f)
    assert seen.ids == ["c0000", "c0002"]
    assert len(seen.bad) == 1 and seen.bad[0].startswith(
        "truncated line (no newline at end of file)"
    )


def test_catch_up_matches_build_index(tmp_path: Path) -> None:
    base = tmp_path / "run.jsonl"
    (tmp_path / "run.jsonl.3").write_bytes(rec(0) + rec(1))
    with gzip.open(tmp_path / "run.jsonl.2.gz", "wb") as gz:
        gz.write(rec(2) + b"not json\n")
    (tmp_path / "run.jsonl.1").write_bytes(rec(3) + b"\n" + rec(4))
    base.write_bytes(rec(5) + rec(6)[:9])  # a record still being written
    seen = Seen()
    f = follower(base, seen, batch=2)
    drain(f)
    built = build_index(open_path(str(base))[0])
    assert seen.ids == ["c0000", "c0001", "c0002", "c0003", "c0004", "c0005"]
    assert len(seen.bad) == 1 and seen.bad[0].startswith("malformed JSON")
    # The same rows as a frozen index, except the unfinished line it reports as bad.
    assert [built.ids[r] for r in range(len(built) - 1)] == [
        f.index.ids[r] for r in range(len(f.index))
    ]
    assert [f.index.get(r).command_id for r in seen.rows if r not in f.index.bad] == seen.ids  # type: ignore[union-attr]
    f.stop()


@pytest.mark.parametrize(
    ("batch", "polls"),
    [(3, [3, 3, 3, 1]), (10, [10]), (4, [4, 4, 2])],
    ids=["batch-3", "batch-10", "batch-4"],
)
def test_each_poll_reads_at_most_a_batch(tmp_path: Path, batch: int, polls: list[int]) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(b"".join(rec(i) for i in range(10)))
    seen = Seen()
    f = follower(base, seen, batch=batch)
    got = []
    while (n := f.poll_once()) or f.more:
        got.append(n)
    assert got == polls
    assert seen.ids == [f"c{i:04d}" for i in range(10)]


def test_backlog_pauses_reading(tmp_path: Path) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(0) + rec(1))
    backlog = [50]
    seen = Seen()
    f = follower(base, seen, backlog=lambda: backlog[0], max_backlog=10)
    assert (f.poll_once(), f.paused, seen.ids) == (0, True, [])
    backlog[0] = 9
    assert (f.poll_once(), f.paused, seen.ids) == (2, False, ["c0000", "c0001"])


def test_compressed_member_keeps_its_rows_readable(tmp_path: Path) -> None:
    base = tmp_path / "run.jsonl"
    (tmp_path / "run.jsonl.1").write_bytes(rec(0) + rec(1))
    base.write_bytes(rec(2))
    seen = Seen()
    f = follower(base, seen)
    drain(f)
    plain = tmp_path / "run.jsonl.1"
    with open(plain, "rb") as src, gzip.open(tmp_path / "run.jsonl.1.gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    plain.unlink()
    f.index._cache.clear()  # read from disk, not from the cache
    drain(f)
    assert seen.ids == ["c0000", "c0001", "c0002"]
    member = f.index.members[0].member
    assert (os.path.basename(member.path), member.gz) == ("run.jsonl.1.gz", True)
    assert [f.index.get(r).command_id for r in range(3)] == ["c0000", "c0001", "c0002"]  # type: ignore[union-attr]
    f.stop()


@pytest.mark.parametrize(
    ("op", "expect_note"),
    [("copytruncate", False), ("truncate-only", True), ("delete-recreate", False)],
    ids=["copy-then-truncate", "truncated-without-copy", "deleted-and-recreated"],
)
def test_base_replaced_in_place(tmp_path: Path, op: str, expect_note: bool) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(0) + rec(1))
    seen = Seen()
    f = follower(base, seen)
    drain(f)
    append(base, rec(2))  # written, not yet read, when the base is replaced
    if op == "copytruncate":
        shutil.copyfile(base, tmp_path / "run.jsonl.1")
    if op == "delete-recreate":
        base.unlink()
        base.write_bytes(rec(3))
    else:
        with open(base, "r+b") as fh:
            fh.truncate(0)
        append(base, rec(3) + rec(4))
    drain(f)
    lost = op == "truncate-only"  # c0002 was only ever in the truncated bytes
    assert seen.ids == ["c0000", "c0001"] + ([] if lost else ["c0002"]) + ["c0003"] + (
        ["c0004"] if op != "delete-recreate" else []
    )
    assert any("no copy" in n for n in f.notes) == expect_note
    f.stop()


def test_new_run_files_in_the_folder_are_reported_once(tmp_path: Path) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(0))
    seen = Seen()
    f = follower(base, seen, watch_dir=True)
    drain(f)
    (tmp_path / "other.jsonl").write_bytes(rec(9))
    (tmp_path / "run.jsonl.1").write_bytes(rec(1))  # a member of ours, not a new run
    (tmp_path / "run.jsonl.reruns.jsonl").write_bytes(b"")  # our sidecar
    (tmp_path / "notes.txt").write_bytes(b"x")
    drain(f)
    (tmp_path / "other.jsonl.1").write_bytes(rec(8))
    drain(f)
    assert seen.new_runs == [str(tmp_path / "other.jsonl")]


@pytest.mark.parametrize("poll", ["1", "0"], ids=["polling", "file-events"])
def test_background_thread_follows_until_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, poll: str
) -> None:
    monkeypatch.setenv("TRACETUI_POLL", poll)
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(0))
    seen = Seen()
    f = follower(base, seen)
    f.start()
    try:
        for i in range(1, 4):
            seen.event.clear()
            append(base, rec(i))
            while f"c{i:04d}" not in seen.ids:
                assert seen.event.wait(10), "follower thread saw nothing"
                seen.event.clear()
    finally:
        f.stop()
    assert seen.ids == ["c0000", "c0001", "c0002", "c0003"]


def test_generator_form_yields_rows_in_order(tmp_path: Path) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(0) + rec(1))
    stop = threading.Event()
    f = Follower(open_path(str(base))[0])
    got = []
    for row, item in f.follow(stop):
        got.append((row, item.command_id))  # type: ignore[union-attr]
        if row == 1:
            append(base, rec(2))
        if row == 2:
            stop.set()
    assert got == [(0, "c0000"), (1, "c0001"), (2, "c0002")]


def test_a_prebuilt_index_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(0))
    run = open_path(str(base))[0]
    with pytest.raises(ValueError, match="give it an empty index"):
        Follower(run, build_index(run))


def test_a_sidecar_created_after_start_is_followed(tmp_path: Path) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(0))
    seen = Seen()
    f = follower(base, seen)
    drain(f)
    append(tmp_path / "run.jsonl.reruns.jsonl", rec(1))  # the first re-run creates it
    drain(f)
    assert seen.ids == ["c0000", "c0001"]
    assert f.run.sidecar == str(tmp_path / "run.jsonl.reruns.jsonl")
    f.stop()
