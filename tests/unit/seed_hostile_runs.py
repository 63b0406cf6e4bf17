"""Runs, followers and read-backs for the seeded follower's hostile tests
(test_follow_seed_hostile*.py)."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from cache_runs import OLD
from records import encode_line, tool
from seed_spy import seed_every_run as seed_runs

from tracetui.live.follow import Follower
from tracetui.store.build import build_index
from tracetui.store.reader import BadLine
from tracetui.store.runset import open_path


def rec(i: int) -> bytes:
    line: bytes = encode_line(tool(f"c{i:04d}", exit_code=1 if i % 5 == 0 else 0))
    return line


def recs(first: int, n: int) -> bytes:
    return b"".join(rec(i) for i in range(first, first + n))


def ids(first: int, n: int) -> list[str]:
    return [f"c{i:04d}" for i in range(first, first + n)]


def seed_every_run(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Seed runs of any size, the cache off unless a test turns it on; each seeding's outcome."""
    return seed_runs(monkeypatch, cache=False)


def make_run(folder: Path, base_data: bytes | None = None) -> Path:
    """``B.2.gz`` (c0000-c0009), ``B.1`` (c0010-c0019), ``B`` (c0020-c0029, then half of c0030)."""
    folder.mkdir()
    base = folder / "run.jsonl"
    with gzip.open(folder / "run.jsonl.2.gz", "wb") as fh:
        fh.write(recs(0, 10))
    (folder / "run.jsonl.1").write_bytes(recs(10, 10))
    base.write_bytes(recs(20, 10) + rec(30)[:25] if base_data is None else base_data)
    return base


def drain(f: Follower) -> None:
    while f.poll_once() or f.more:
        pass


def rows(f: Follower) -> list[tuple[str, str, int]]:
    """Every row as read back from its file now: its id (or its bad line's reason), the name of
    the file the index says it is in, and its line there."""
    ix = f.index
    out = []
    for r in range(len(ix)):
        got = ix.get(r)
        what = got.reason.split(" at ")[0] if isinstance(got, BadLine) else str(got.command_id)
        name = os.path.basename(ix.members[ix.member_no[r]].member.path)
        out.append((what, name, ix.line_no[r]))
    return out


def read_ids(f: Follower) -> list[str]:
    """The rows' ids read back; each row must also read back as the id its column holds."""
    got = [what for what, _, _ in rows(f)]
    assert got == [str(i) if i is not None else got[r] for r, i in enumerate(f.index.ids)]
    return got


def follower(base: Path, *, seeded: bool = True) -> Follower:
    f = Follower(open_path(str(base))[0], seed=seeded)
    drain(f)
    return f


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)


def old_mtimes(folder: Path, step: int = 0) -> None:
    """Every file's mtime well in the past (a cached member is then trusted as it is)."""
    for path in folder.iterdir():
        if path.is_file():
            os.utime(path, ns=(OLD + step, OLD + step))


def plain_build(base: Path) -> None:
    build_index(open_path(str(base))[0]).close()


def open_in(folder: Path) -> list[str]:
    """The files under ``folder`` this process holds open."""
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(folder)):
            out.append(target)
    return out
