"""Locked append and rotation (SPEC §3), including concurrent writers."""

from __future__ import annotations

import multiprocessing
import os

import orjson
import pytest

from tracetui.record.rotate import append_record, encode_line, rotate


def names(folder) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def lines(path) -> list[dict]:
    return [orjson.loads(x) for x in path.read_bytes().splitlines()]


def test_append_creates_base_and_lock(tmp_path):
    base = tmp_path / "run.jsonl"
    n = append_record(base, {"n": 1}, 1000, 4)
    assert n == len(encode_line({"n": 1}))
    assert names(tmp_path) == ["run.jsonl", "run.jsonl.lock"]
    assert lines(base) == [{"n": 1}]


def test_rotates_when_the_next_line_would_not_fit(tmp_path):
    base = tmp_path / "run.jsonl"
    size = len(encode_line({"n": 0}))
    for i in range(7):
        append_record(base, {"n": i}, 2 * size, 2)  # two lines per file, two rotated members
    assert names(tmp_path) == ["run.jsonl", "run.jsonl.1", "run.jsonl.2", "run.jsonl.lock"]
    assert lines(tmp_path / "run.jsonl.2") == [{"n": 2}, {"n": 3}]
    assert lines(tmp_path / "run.jsonl.1") == [{"n": 4}, {"n": 5}]
    assert lines(base) == [{"n": 6}]


def test_exact_fit_does_not_rotate(tmp_path):
    base = tmp_path / "run.jsonl"
    size = len(encode_line({"n": 0}))
    append_record(base, {"n": 0}, 2 * size, 4)
    append_record(base, {"n": 1}, 2 * size, 4)
    assert names(tmp_path) == ["run.jsonl", "run.jsonl.lock"]


def test_oversized_record_is_written_alone(tmp_path):
    base = tmp_path / "run.jsonl"
    append_record(base, {"n": 0}, 20, 4)
    append_record(base, {"big": "x" * 100}, 20, 4)
    assert lines(tmp_path / "run.jsonl.1") == [{"n": 0}]
    assert lines(base) == [{"big": "x" * 100}]


@pytest.mark.parametrize(
    ("before", "keep", "after"),
    [
        (["B", "B.1", "B.2"], 2, ["B.1", "B.2"]),
        (["B", "B.1", "B.2.gz"], 3, ["B.1", "B.2", "B.3.gz"]),
        (["B", "B.2"], 4, ["B.1", "B.3"]),
        (["B"], 0, []),
        (["B", "B.9", "B.10"], 10, ["B.1", "B.10"]),
    ],
    ids=["drop-oldest", "gz-members-shift", "gap", "keep-zero", "natural-order"],
)
def test_rotate_shifts_members(tmp_path, before, keep, after):
    for name in before:
        (tmp_path / name).write_text(name)
    rotate(str(tmp_path / "B"), keep)
    assert names(tmp_path) == sorted(after)
    if "B.1" in after:
        assert (tmp_path / "B.1").read_text() == "B"


def _writer(base: str, worker: int, count: int) -> None:
    for i in range(count):
        append_record(base, {"w": worker, "i": i, "pad": "p" * 40}, 2000, 1000)


def test_concurrent_writers_lose_nothing(tmp_path):
    base = str(tmp_path / "run.jsonl")
    workers, count = 4, 300
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(base, w, count)) for w in range(workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0] * workers
    seen = []
    for name in os.listdir(tmp_path):
        if name.endswith(".lock"):
            continue
        data = (tmp_path / name).read_bytes()
        assert data.endswith(b"\n")
        assert len(data) <= 2000
        seen += [orjson.loads(line) for line in data.splitlines()]  # every line valid JSON
    pairs = sorted((r["w"], r["i"]) for r in seen)
    assert pairs == [(w, i) for w in range(workers) for i in range(count)]  # each exactly once
