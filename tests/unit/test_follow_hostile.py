"""The live follower on hostile folders: a FIFO or a device where a member or the base should be
is noted and skipped, never waited on or read forever; a damaged gzip member keeps its good lines
and says what was wrong (issue 13, "One bad value must not take the run down")."""

from __future__ import annotations

import gzip
import json
import os
import threading
from pathlib import Path

import pytest

from tracetui.live.follow import Follower
from tracetui.store.runset import open_path

BASE = "feedback_record.jsonl"


def rec(i: int) -> bytes:
    record = {
        "schema": "tracetui/1",
        "span_type": "tool",
        "command_id": f"c{i:04d}",
        "argv": ["true"],
    }
    return json.dumps(record).encode() + b"\n"


def poll_in_thread(follower: Follower, polls: int = 5) -> BaseException | None:
    """Poll on a thread with a deadline: a hang fails the test instead of freezing the suite."""
    failure: list[BaseException] = []

    def run() -> None:
        try:
            for _ in range(polls):
                follower.poll_once()
        except BaseException as exc:
            failure.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout=20)
    assert not t.is_alive(), "the follower hung"
    return failure[0] if failure else None


def test_a_fifo_member_is_skipped_with_a_note(tmp_path: Path) -> None:
    (tmp_path / BASE).write_bytes(rec(1) + rec(2))
    os.mkfifo(tmp_path / f"{BASE}.1")
    run = open_path(str(tmp_path / BASE))[0]
    follower = Follower(run)
    assert poll_in_thread(follower) is None
    follower.stop()
    assert [follower.index.get(r).command_id for r in range(len(follower.index))] == [  # type: ignore[union-attr]
        "c0001",
        "c0002",
    ]
    notes = run.notes + follower.notes  # the set's listing notes it; the follower skips it too
    assert any("not a regular file (a FIFO)" in n for n in notes), notes


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"], ids=["dev-zero", "fifo"])
def test_a_base_that_is_not_a_regular_file_is_not_followed(tmp_path: Path, target: str) -> None:
    (tmp_path / f"{BASE}.1").write_bytes(rec(1))
    if target == "fifo":
        os.mkfifo(tmp_path / BASE)
    else:
        os.symlink(target, tmp_path / BASE)
    follower = Follower(open_path(str(tmp_path / f"{BASE}.1"))[0])
    assert poll_in_thread(follower) is None
    follower.stop()
    assert len(follower.index) == 1
    refused = [n for n in follower.notes if "not followed" in n or "not a regular file" in n]
    assert refused, follower.notes
    assert len([n for n in follower.notes if "not followed" in n]) <= 1  # said once, not per poll


def test_a_damaged_gzip_member_keeps_its_good_lines_and_says_so(tmp_path: Path) -> None:
    whole = gzip.compress(b"".join(rec(i) for i in range(200)))
    (tmp_path / f"{BASE}.1.gz").write_bytes(whole[: len(whole) * 2 // 3])  # cut short
    (tmp_path / BASE).write_bytes(rec(1000))
    follower = Follower(open_path(str(tmp_path / BASE))[0])
    assert poll_in_thread(follower) is None
    follower.stop()
    ids = [follower.index.get(r).command_id for r in range(len(follower.index))]  # type: ignore[union-attr]
    assert ids[-1] == "c1000"
    kept = ids[:-1]
    assert 0 < len(kept) < 200 and kept == [f"c{i:04d}" for i in range(len(kept))]
    assert any(f"{BASE}.1.gz" in n for n in follower.notes), follower.notes
