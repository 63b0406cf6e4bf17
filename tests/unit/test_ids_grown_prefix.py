"""A run grown since its id table was kept (tracetui/store/ids_prefix.py, ids_kept.py) gets the
table back for the rows it was made from, with the new rows inserted, only when its index starts
with exactly those rows; every answer is that of a table built afresh from the index's id column,
after appends, rotations (rename, copy-and-truncate, gzip), a rewritten base and hostile kept
files, on the viewer's path (the registry still owed) and with the registry settled."""

from __future__ import annotations

import gzip
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from cache_runs import OLD, private_cache
from ids_grown_runs import ROWS, SHAPES, check_fresh, lines_of, make_run, more, opened, write

from tracetui.store import fastindex, ids_kept
from tracetui.store.build import build_index
from tracetui.store.id_registry import IdRegistry
from tracetui.store.ids import IdTable, attach_registry, table_for
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path


# ------------------------------------------------------------------ what changed since
def append(base: Path, shape: str) -> None:
    with open(base, "ab") as fh:
        fh.write(more(base, shape))


def append_known(base: Path, shape: str) -> None:
    with open(base, "ab") as fh:
        fh.write(b"".join(base.read_bytes().splitlines(keepends=True)[:5]))


def append_prefix_mover(base: Path, shape: str) -> None:
    with open(base, "ab") as fh:  # sequential ids share "c00": this one moves it
        fh.write(lines_of(["x9", "20261129T231150.000001Z-abcdef12", "c0000001"]))


def append_unfinished(base: Path, shape: str) -> None:
    with open(base, "ab") as fh:
        fh.write(more(base, shape, 3) + b'{"schema": "tracetui/1", "command_id": "half')


def rotate(base: Path, shape: str, *, drop_oldest: bool = False) -> None:
    root = base.parent
    if drop_oldest:
        os.remove(root / "B.jsonl.2")
    else:
        os.rename(root / "B.jsonl.2", root / "B.jsonl.3")
    os.rename(root / "B.jsonl.1", root / "B.jsonl.2")
    os.rename(base, root / "B.jsonl.1")
    write(base, more(base, shape, 5, tag=3), mtime=OLD + 10**9)


def append_then_rotate(base: Path, shape: str) -> None:
    append(base, shape)
    rotate(base, shape)


def copy_truncate(base: Path, shape: str) -> None:
    root = base.parent
    os.rename(root / "B.jsonl.2", root / "B.jsonl.3")
    os.rename(root / "B.jsonl.1", root / "B.jsonl.2")
    shutil.copyfile(base, root / "B.jsonl.1")
    os.utime(root / "B.jsonl.1", ns=(OLD, OLD))
    write(base, more(base, shape, 5, tag=4), mtime=OLD + 2 * 10**9)


def gzip_rotated(base: Path, shape: str) -> None:
    one = base.parent / "B.jsonl.1"
    with gzip.open(f"{one}.gz", "wb") as fh:
        fh.write(one.read_bytes())
    os.remove(one)
    append(base, shape)


def rewrite_base(base: Path, shape: str) -> None:
    write(base, more(base, shape, ROWS + 10, tag=5), mtime=OLD + 10**9)


def edit_base_same_size(base: Path, shape: str) -> None:
    data = bytearray(base.read_bytes())
    at = data.index(b'"duration_ms": 12', len(data) // 2)
    data[at : at + 17] = b'"duration_ms": 13'
    write(base, bytes(data), mtime=OLD + 10**9)


def edit_id_in_place_and_append(base: Path, shape: str) -> None:
    """An id in the middle of the base changed (same length) and lines appended: the persistent
    index reads on after its cached rows, as the kept table does: both keep the old id."""
    data = bytearray(base.read_bytes())
    at = data.index(b'"command_id": "', len(data) // 2) + 15
    data[at] = ord("Z")
    write(base, bytes(data) + more(base, shape), mtime=OLD + 10**9)


def change_rotated_id(base: Path, shape: str) -> None:
    """A rotated member's id changed to one a character off another id (the same length: no
    offset moves), the file's mtime with it: read again, both ids are then shown longer."""
    one = base.parent / "B.jsonl.1"
    data = one.read_bytes()
    found = [m for m in re.finditer(rb'"command_id": "([^"]+)"', data)]
    source = found[2].group(1)
    target = next(m for m in found[len(found) // 2 :] if len(m.group(1)) == len(source))
    new = source[:-1] + (b"q" if source[-1:] != b"q" else b"r")
    write(one, data[: target.start(1)] + new + data[target.end(1) :], mtime=OLD + 10**9)
    append(base, shape)


def truncate_base(base: Path, shape: str) -> None:
    data = base.read_bytes()
    write(base, data[: data.index(b"\n", len(data) // 2) + 1], mtime=OLD + 10**9)


def nothing(base: Path, shape: str) -> None:
    """Unchanged, but the cache entry's state forgotten (its rows still check out)."""
    for entry in (base.parent.parent / "xdg").rglob("*.ids"):
        data = entry.read_bytes()
        entry.write_bytes(data.replace(b'"state":"', b'"state":"0', 1))


# (case id, the change, whether the kept table is taken back; None: either, as the index's)
CHANGES: list[tuple[str, Callable[[Path, str], None], bool | None]] = [
    ("append", append, True),
    ("append-known-ids", append_known, True),
    ("append-moving-the-shared-prefix", append_prefix_mover, True),
    ("append-with-an-unfinished-line", append_unfinished, True),
    ("rename-rotation", rotate, True),
    ("append-then-rename-rotation", append_then_rotate, True),
    ("oldest-generation-deleted", lambda b, s: rotate(b, s, drop_oldest=True), False),
    ("copy-and-truncate", copy_truncate, False),
    ("gzip-of-a-rotated-member", gzip_rotated, False),
    ("base-rewritten", rewrite_base, False),
    ("base-edited-same-size", edit_base_same_size, False),
    ("base-edited-and-appended", edit_id_in_place_and_append, None),
    ("base-truncated", truncate_base, False),
    ("rotated-member-id-changed", change_rotated_id, False),
    ("unchanged-state-forgotten", nothing, True),
]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(ids_kept, "KEEP_FROM", 10)
    return private_cache(tmp_path, monkeypatch)


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Rows of every table built afresh (not taken back) from now."""
    seen: list[int] = []
    real = ids_kept.built

    def spy(index: RunIndex, first: dict[str, int], n: int, *, later: bool = False) -> IdTable:
        seen.append(n)
        return real(index, first, n, later=later)

    monkeypatch.setattr(ids_kept, "built", spy)
    return seen


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(
    ("change", "reused"), [c[1:] for c in CHANGES], ids=[c[0] for c in CHANGES]
)
@pytest.mark.parametrize(
    ("follow", "settle"),
    [(False, False), (True, False), (False, True)],
    ids=["frozen-view", "followed-view", "settled"],
)
def test_a_grown_run_gets_its_table_back_only_for_the_same_rows(
    home: Path,
    tmp_path: Path,
    builds: list[int],
    shape: str,
    change: Callable[[Path, str], None],
    reused: bool | None,
    follow: bool,
    settle: bool,
) -> None:
    base = make_run(tmp_path / "run", shape)
    index, table = opened(base, follow=follow, settle=settle)
    check_fresh(index, table)
    assert builds == [len(index)] and list(home.glob("*.ids"))  # built, and kept
    builds.clear()
    change(base, shape)
    index, table = opened(base, follow=follow, settle=settle)
    check_fresh(index, table)
    if reused is not None:
        assert (builds == []) is reused
    index.settle_ids()
    attach_registry(index)  # the viewer's next step: its set of ids goes, the answers stay
    check_fresh(index, table)
    with open(base, "ab") as fh:  # then a follower's rows
        fh.write(more(base, shape, 4, tag=8))
    index.index_member(next(m for m, im in enumerate(index.members) if im.member.number == 0))
    assert table_for(index) is table
    check_fresh(index, table)


def test_a_run_grown_by_many_rows_keeps_its_grown_table(
    home: Path, tmp_path: Path, builds: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ids_kept, "REKEEP", 50)
    base = make_run(tmp_path / "run", "recorder")
    first, _ = opened(base, follow=True, settle=False)
    kept = next(home.glob("*.ids"))
    with open(base, "ab") as fh:
        fh.write(more(base, "recorder", 60))
    os.utime(base, ns=(OLD + 10**9, OLD + 10**9))  # then left alone (kept for these files)
    index, table = opened(base, follow=True, settle=False)
    check_fresh(index, table)
    assert builds == [len(first)]  # the kept table taken back, then kept again grown
    assert b'"rows":%d' % len(index) in kept.read_bytes().split(b"\n", 2)[1]
    again, table = opened(base, follow=True, settle=False)
    check_fresh(again, table)
    assert builds == [len(first)] and table.rows == len(again) == len(index)


def test_a_run_grown_more_than_twice_over_is_built_again(
    home: Path, tmp_path: Path, builds: list[int]
) -> None:
    base = make_run(tmp_path / "run", "mixed")
    first, _ = opened(base, follow=False, settle=False)
    with open(base, "ab") as fh:
        fh.write(more(base, "mixed", 4 * ROWS))
    index, table = opened(base, follow=False, settle=False)
    check_fresh(index, table)
    assert builds == [len(first), len(index)]


def test_an_imported_trace_keeps_no_record(home: Path, tmp_path: Path) -> None:
    base = make_run(tmp_path / "run", "recorder")
    index = build_index(open_path(str(base))[0])
    index.run.source_format = "claude-code"
    assert ids_kept.ids_prefix.record(index, len(index)) is None


@pytest.mark.parametrize("added", [1, 3, 70], ids=["one-row", "a-few-rows", "many-rows"])
def test_a_followed_base_read_on_leaves_every_row_owed(
    home: Path, tmp_path: Path, added: int
) -> None:
    """A followed run's build reads its grown base on after the cached rows without settling
    the registry (a few rows registered at once would settle a million first); settled later,
    it is the registry of a build that registers every row at once."""
    base = make_run(tmp_path / "run", "mixed")
    build_index(open_path(str(base))[0], for_follower=True)  # the cache entry
    with open(base, "ab") as fh:
        fh.write(more(base, "mixed", added) + more(base, "mixed", 2, tag=1))
    index = build_index(open_path(str(base))[0], for_follower=True)
    assert index.ids_owed is fastindex.available()  # (the line reader registers as it reads)
    reference = IdRegistry()
    reference.add(index.ids[: len(index)], 0)
    assert index.settle_ids() == reference.rows
    assert index.duplicates == reference.duplicates
