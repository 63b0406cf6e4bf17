"""A seeded follower (live/seed.py) and the persistent index: whatever an earlier plain or
seeded build kept, and whatever changed since or during the build, the follower and every
build after it give the rows a build without the cache gives.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cache_runs import cold, private_cache, state
from seed_hostile_runs import (
    append,
    follower,
    ids,
    make_run,
    old_mtimes,
    plain_build,
    read_ids,
    rec,
    recs,
    seed_every_run,
)

from tracetui.store import fastindex
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="seeding needs the C scanner")


@pytest.fixture(autouse=True)
def _seed_every_run(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Seed runs of any size, the cache off unless a test turns it on; each seeding's outcome."""
    return seed_every_run(monkeypatch)


# ------------------------------------------------------------------ the persistent cache
def seeded_follow(base: Path) -> None:
    follower(base).stop()


def finish_and_append(base: Path) -> None:
    append(base, rec(30)[25:] + recs(31, 3))


def append_partial(base: Path) -> None:
    append(base, rec(30)[25:] + rec(31) + rec(32)[:20])


def rename_rotate(base: Path) -> None:
    finish_and_append(base)
    os.rename(f"{base}.2.gz", f"{base}.3.gz")
    os.rename(f"{base}.1", f"{base}.2")
    os.rename(base, f"{base}.1")
    base.write_bytes(recs(40, 2) + rec(42)[:9])


def rewrite_in_place(base: Path) -> None:
    """Copy-and-truncate, the fresh base already longer than the old one."""
    append(base, rec(30)[25:])
    os.rename(f"{base}.1", f"{base}.9")
    shutil.copyfile(base, f"{base}.1")
    with open(base, "r+b") as fh:
        fh.truncate(0)
        fh.write(recs(200, 20))


WARMED: dict[str, tuple[Callable[[Path], None], Callable[[Path], None]]] = {
    "plain-partial-then-finished": (plain_build, finish_and_append),
    "plain-then-partial": (plain_build, append_partial),
    "seeded-then-partial": (seeded_follow, append_partial),
    "seeded-then-rotated": (seeded_follow, rename_rotate),
    "plain-then-rewritten": (plain_build, rewrite_in_place),
    "seeded-then-rewritten": (seeded_follow, rewrite_in_place),
}


@pytest.mark.parametrize(("first", "change"), list(WARMED.values()), ids=list(WARMED))
@pytest.mark.parametrize("racy", [False, True], ids=["old-mtimes", "fresh-mtimes"])
def test_a_warm_cache_gives_the_rows_on_disk(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    first: Callable[[Path], None],
    change: Callable[[Path], None],
    racy: bool,
) -> None:
    """Whatever an earlier plain or seeded build kept, a seeded follower and the plain builds
    after it give the rows a build without the cache gives."""
    private_cache(tmp_path, monkeypatch)
    base = make_run(tmp_path / "run")
    if not racy:
        old_mtimes(base.parent)
    first(base)
    change(base)
    if not racy:
        old_mtimes(base.parent, 10**9)
    f = follower(base)
    truth = cold(base)
    want = [str(i) for i in truth.ids]
    if not base.read_bytes().endswith(b"\n"):
        want = want[:-1]  # the unfinished line waits for its newline
    assert read_ids(f) == want
    assert not f.index.bad
    f.stop()
    for _ in range(2):  # one built from what the seeding kept, one from what that one kept
        warm = build_index(open_path(str(base))[0])
        assert state(warm) == state(truth)
        warm.close()


@pytest.mark.parametrize("seeded", [True, False], ids=["seeded-follower", "plain-build"])
def test_a_copy_and_truncate_during_the_scan_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seeded: bool, _seed_every_run: list[bool]
) -> None:
    """The base's first KiB read, then copied and truncated and written past its old size
    before the scan reaches its end: its rows are of two files. The seeding falls back, and
    the cache must not keep them as the rows of the file now there: a later build showed the
    old records at the new one's offsets (c0020 where c0200 is), till store/build.py left such
    a member out of the cache."""
    private_cache(tmp_path, monkeypatch)
    base = make_run(tmp_path / "run", recs(20, 40))
    scan = fastindex.scan_member
    done: list[bool] = []

    def scanning(path: str, *args: Any, **kw: Any) -> Iterator[Any]:
        for item in scan(path, *args, **kw):
            yield item
            if path == str(base) and not done:
                done.append(True)
                shutil.copyfile(base, f"{base}.1.tmp")
                os.rename(f"{base}.1", f"{base}.9")
                os.rename(f"{base}.1.tmp", f"{base}.1")
                with open(base, "r+b") as fh:
                    fh.truncate(0)
                    fh.write(recs(200, 60))

    with monkeypatch.context() as m:
        m.setattr(fastindex, "CHUNK", 1024)  # the scan reads the base in steps
        m.setattr(fastindex, "scan_member", scanning)
        if seeded:
            f = follower(base)
        else:
            build_index(open_path(str(base))[0]).close()
    assert done
    if seeded:
        assert _seed_every_run == [False]
        assert sorted(read_ids(f)) == [*ids(0, 60), *ids(200, 60)]
        f.stop()
    append(base, recs(260, 2))  # an append: the cache resumes a file it kept whole
    truth = cold(base)
    warm = build_index(open_path(str(base))[0])
    assert [str(i) for i in warm.ids] == [str(i) for i in truth.ids]
    assert state(warm) == state(truth)
