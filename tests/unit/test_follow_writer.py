"""The follower against a real writer process that rotates while it reads.

The writer splits every record into random partial writes (half a line, flush, a short sleep,
the rest) and rotates every few records: by rename, by copy-and-truncate, or by deleting and
recreating the base. Whatever the interleaving, every record must come out exactly once, in
order, and no partial line may ever be reported as a bad line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tracetui.live.follow import Follower
from tracetui.store.reader import BadLine
from tracetui.store.runset import open_path

WRITER = r"""
import json, os, random, shutil, sys, time
base, mode, count, per_rot, keep, seed = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
rnd = random.Random(seed)

def rotate():
    drop = f"{base}.{keep}"
    if os.path.exists(drop):
        os.unlink(drop)
    for i in range(keep - 1, 0, -1):
        if os.path.exists(f"{base}.{i}"):
            os.rename(f"{base}.{i}", f"{base}.{i + 1}")
    if mode == "rename":
        os.rename(base, base + ".1")
    elif mode == "copytruncate":
        shutil.copyfile(base, base + ".1")
        with open(base, "r+b") as fh:
            fh.truncate(0)
    elif mode == "delete":
        shutil.copyfile(base, base + ".1")
        os.unlink(base)
        time.sleep(rnd.random() * 0.003)

for i in range(count):
    rec = {"schema": "tracetui/1", "span_type": "tool", "command_id": f"w{i:06d}",
           "argv": ["step", str(i)], "exit_code": i % 3, "pad": "x" * rnd.randrange(0, 300)}
    line = (json.dumps(rec) + "\n").encode()
    cut = rnd.randrange(1, len(line))
    with open(base, "ab") as fh:
        fh.write(line[:cut])
        fh.flush()
        time.sleep(rnd.random() * 0.002)
        fh.write(line[cut:])
    if (i + 1) % per_rot == 0:
        rotate()
"""

COUNT = 150
PER_ROTATION = 6  # 25 rotations


def _follow_writer(tmp_path: Path, mode: str, seed: int) -> tuple[list[str], list[str]]:
    base = tmp_path / "run.jsonl"
    base.write_bytes(b"")
    ids: list[str] = []
    bad: list[str] = []

    def on_rows(first: int, items: list[object]) -> None:
        for item in items:
            if isinstance(item, BadLine):
                bad.append(f"{item.file}:{item.line}: {item.reason}")
            else:
                ids.append(item.command_id)  # type: ignore[attr-defined]

    follower = Follower(open_path(str(base))[0], on_rows=on_rows)
    follower.poll_once()
    # keep=8 leaves the follower room to lag a few rotations behind on a loaded machine.
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            WRITER,
            str(base),
            mode,
            str(COUNT),
            str(PER_ROTATION),
            "8",
            str(seed),
        ]
    )
    deadline = time.monotonic() + 30
    while writer.poll() is None and time.monotonic() < deadline:
        follower.poll_once()
        time.sleep(0.0005)
    writer.wait(timeout=5)
    while follower.poll_once() or follower.more:
        pass
    follower.stop()
    return ids, bad


@pytest.mark.parametrize(
    ("mode", "seed"),
    [("rename", 1), ("copytruncate", 2), ("delete", 3)],
    ids=["rename-rotation", "copy-and-truncate", "delete-and-recreate"],
)
def test_every_record_once_in_order_across_rotations(tmp_path: Path, mode: str, seed: int) -> None:
    ids, bad = _follow_writer(tmp_path, mode, seed)
    assert bad == []
    assert ids == [f"w{i:06d}" for i in range(COUNT)]


def test_rotated_rows_stay_readable_after_rename(tmp_path: Path) -> None:
    ids: list[str] = []
    base = tmp_path / "run.jsonl"
    base.write_bytes(b"")
    follower = Follower(
        open_path(str(base))[0],
        on_rows=lambda f, items: ids.extend(getattr(i, "command_id", "BAD") for i in items),
    )
    writer = subprocess.run(
        [sys.executable, "-c", WRITER, str(base), "rename", "12", "4", "8", "5"], check=True
    )
    assert writer.returncode == 0
    while follower.poll_once() or follower.more:
        pass
    index = follower.index
    # Every row is read back from the file its inode moved to, not from whatever took its name.
    assert [getattr(index.get(r), "command_id", None) for r in range(len(index))] == ids
    assert sorted(os.path.basename(m.member.path) for m in index.members) == [
        "run.jsonl.1",
        "run.jsonl.2",
        "run.jsonl.3",
    ]
    follower.stop()
