"""Gaps the seeded follower's hostile tests found, seeded or not, each failing before its fix:
a generation deleted during a seeding's build (the fallback read members again by name), a
stop() from another thread during a catch-up (files it opened then stayed open), a gzip member
damaged in its first bytes (zlib.error stopped the first poll), and a base copied, truncated and
rotated again before the follower looked (the copy's unread rest was lost).
"""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from seed_hostile_runs import (
    append,
    drain,
    follower,
    ids,
    make_run,
    open_in,
    read_ids,
    rec,
    recs,
    seed_every_run,
)

from tracetui.live import follow as follow_module
from tracetui.live import seed
from tracetui.live.follow import Follower
from tracetui.store import fastindex
from tracetui.store.runset import open_path, sidecar_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="seeding needs the C scanner")


@pytest.fixture(autouse=True)
def _seed_every_run(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Seed runs of any size, the cache off; each seeding's outcome."""
    return seed_every_run(monkeypatch)


def test_a_generation_deleted_during_the_build_is_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = make_run(tmp_path / "run")
    real = seed.build_index

    def building(*args: Any, **kw: Any) -> Any:
        os.unlink(f"{base}.2.gz")
        return real(*args, **kw)

    monkeypatch.setattr(seed, "build_index", building)
    f = follower(base)
    assert sorted(f.index.ids) == ids(0, 30)  # type: ignore[type-var]
    f.stop()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_stopped_right_after_the_seeding_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = make_run(tmp_path / "run")
    Path(sidecar_path(str(base))).write_bytes(rec(900))
    f = Follower(open_path(str(base))[0], seed=True)
    real = follow_module.open_regular

    def opening(path: str) -> Any:
        f.stop()  # the viewer opens another run now
        return real(path)

    monkeypatch.setattr(follow_module, "open_regular", opening)
    f.poll_once()
    f.index.close()
    assert open_in(tmp_path / "run") == []


@pytest.mark.parametrize("seeded", [True, False], ids=["seeded", "unseeded"])
def test_a_gzip_member_damaged_at_its_start_is_noted(tmp_path: Path, seeded: bool) -> None:
    base = make_run(tmp_path / "run")
    data = gzip.compress(recs(0, 10))
    (tmp_path / "run" / "run.jsonl.2.gz").write_bytes(
        data[:12] + bytes(b ^ 0x55 for b in data[12:40]) + data[40:]
    )
    run = open_path(str(base))[0]
    f = Follower(run, seed=seeded)
    try:
        drain(f)
        assert read_ids(f) == ids(10, 20)
        assert any("run.jsonl.2.gz" in n for n in run.notes + f.notes)
    finally:
        f.stop()


@pytest.mark.parametrize("second", ["rename", "delete"])
@pytest.mark.parametrize("seeded", [True, False], ids=["seeded", "unseeded"])
def test_a_copy_truncate_then_another_rotation_before_a_look(
    tmp_path: Path, seeded: bool, second: str
) -> None:
    base = make_run(tmp_path / "run", recs(20, 5))
    f = follower(base, seeded=seeded)
    append(base, recs(25, 5))  # not read yet
    shutil.copyfile(base, f"{base}.copy")
    with open(base, "r+b") as fh:
        fh.truncate(0)
    os.rename(f"{base}.2.gz", f"{base}.4.gz")
    os.rename(f"{base}.1", f"{base}.3")
    os.rename(f"{base}.copy", f"{base}.2")
    if second == "rename":
        os.rename(base, f"{base}.1")
    else:
        shutil.copyfile(base, f"{base}.1")
        os.unlink(base)
    base.write_bytes(recs(30, 2))
    drain(f)
    try:
        assert read_ids(f) == ids(0, 32)  # the copy's unread rest before the newer rows
    finally:
        f.stop()
