"""Copy-and-truncate rotations that race the follower, replayed without threads.

Under a fast writer (tests/unit/test_live_stress.py) the follower read some generations twice
and others out of order. Each case here replays one such interleaving exactly: the writer's
file operations run from a hook at the point of the follower's work where they struck (while it
lists the rotated files, between its truncation check and its scan, right after it noticed a
truncation, in the middle of a bulk scan), and then the follower is polled until idle. Whatever
the interleaving, every record must be in the index once, in the order written, and read back
as itself.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from tracetui.live import watch
from tracetui.live.follow import Follower
from tracetui.live.ingest import BULK_BYTES
from tracetui.live.rotation import RotationTracker
from tracetui.live.watch import HEAD, FileState
from tracetui.store import fastindex
from tracetui.store.reader import BadLine
from tracetui.store.runset import open_path


class Run:
    """A run written and rotated by the test, and a follower polled by it."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        folder.mkdir()
        self.folder = folder
        self.base = folder / "run.jsonl"
        self.base.write_bytes(b"")
        self.written: list[str] = []
        self.reported: list[str] = []
        self.monkeypatch = monkeypatch
        self.follower = Follower(open_path(str(self.base))[0], on_rows=self._on_rows)

    def _on_rows(self, first: int, items: Any) -> None:
        for item in items:
            self.reported.append(item.reason if isinstance(item, BadLine) else item.command_id)

    def write(self, count: int, pad: int = 40) -> None:
        """Append ``count`` whole records (about ``pad`` bytes longer than the bare record)."""
        lines = []
        for _ in range(count):
            cid = f"r{len(self.written):05d}"
            self.written.append(cid)
            rec = {"schema": "tracetui/1", "span_type": "tool", "command_id": cid, "pad": "x" * pad}
            lines.append(json.dumps(rec) + "\n")
        with open(self.base, "ab") as fh:
            fh.write("".join(lines).encode())

    def rotate(self) -> None:
        """As the stress writer does: ``B.k`` → ``B.k+1`` (highest first), copy B to B.1,
        truncate B."""
        numbers = sorted(
            (int(p.name.rsplit(".", 1)[1]) for p in self.folder.glob("run.jsonl.*")), reverse=True
        )
        for k in numbers:
            os.rename(f"{self.base}.{k}", f"{self.base}.{k + 1}")
        shutil.copyfile(self.base, f"{self.base}.1")
        with open(self.base, "r+b") as fh:
            fh.truncate(0)

    def touch_folder(self) -> None:
        """Move the folder's mtime on: timestamps are coarse, a fast rotation may not show."""
        ns = os.stat(self.folder).st_mtime_ns + 1_000_000_000
        os.utime(self.folder, ns=(ns, ns))

    def list_in_order(self, *, newest_first: bool) -> None:
        """Make the folder list in number order (the file system's own order is arbitrary)."""
        real_listdir = os.listdir

        def listdir(path: Any = ".") -> list[Any]:
            names = real_listdir(path)
            if os.path.abspath(path) != str(self.folder):
                return names
            return sorted(
                names,
                key=lambda n: int(n.rsplit(".", 1)[1]) if n[-1].isdigit() else 0,
                reverse=not newest_first,
            )

        self.monkeypatch.setattr(os, "listdir", listdir)

    def poll(self) -> None:
        self.follower.poll_once()

    def settle(self) -> None:
        """Poll until three polls in a row find nothing (a follower that had to leave something
        for its next look gets it: a real one looks again on the next file event)."""
        idle = 0
        for _ in range(100):
            idle = idle + 1 if not self.follower.poll_once() and not self.follower.more else 0
            if idle == 3:
                return

    # -------------------------------------------------------------- hooks
    def during(self, point: str, *steps: Callable[[], None], times: int = 1) -> None:
        """Run ``steps`` (the writer's file operations) when the follower next reaches
        ``point``, and the next ``times - 1`` times it does."""
        left = times

        def once() -> None:
            nonlocal left
            if left > 0:
                left -= 1
                for step in steps:
                    step()

        mp = self.monkeypatch
        if point == "listing":  # after the first rotated file is opened, in each listing
            real_head, real_list = watch.head_of, watch._list_once
            first = False

            def list_once(*args: Any) -> Any:
                nonlocal first
                first = True
                return real_list(*args)

            def head_of(fh: Any, gz: bool) -> bytes | None:
                nonlocal first
                got = real_head(fh, gz)
                if first:
                    first = False
                    once()
                return got

            mp.setattr(watch, "_list_once", list_once)
            mp.setattr(watch, "head_of", head_of)
        elif point == "truncation-check":  # the base looked untruncated; the scan is next
            real_check = FileState.was_truncated

            def was_truncated(f: FileState, st: os.stat_result) -> bool:
                got = real_check(f, st)
                once()
                return got

            mp.setattr(FileState, "was_truncated", was_truncated)
        elif point == "truncation-noticed":  # the copy was adopted; the fresh base is next
            real_noticed = RotationTracker.on_truncated

            def on_truncated(rot: RotationTracker, live: FileState) -> None:
                real_noticed(rot, live)
                once()

            mp.setattr(RotationTracker, "on_truncated", on_truncated)
        elif point == "bulk-scan":  # the scanner has read a batch; the follower has not kept it
            real_scan = fastindex.scan_stream

            def scan_stream(*args: Any, **kw: Any) -> Iterator[Any]:
                for item in real_scan(*args, **kw):
                    once()
                    yield item

            mp.setattr(fastindex, "scan_stream", scan_stream)
        else:
            raise ValueError(point)


def renamed_while_listed(run: Run, *, newest_first: bool) -> None:
    # The interleaving the stress test hit: the follower lists B.1 and B.2 and opens one of
    # them; the writer then shifts B.2 → B.3, B.1 → B.2 and copies the base to B.1. Opening
    # B.1 first, B.2 then opens the same file again (it was read twice); opening B.2 first,
    # the file now at B.2 is missed (and read later, out of order).
    run.list_in_order(newest_first=newest_first)
    run.write(5)
    run.poll()
    run.rotate()
    run.write(5)
    run.rotate()
    run.write(5)
    run.during("listing", run.rotate, partial(run.write, 5))


def renamed_while_listed_newest_first(run: Run) -> None:
    renamed_while_listed(run, newest_first=True)


def renamed_while_listed_oldest_first(run: Run) -> None:
    renamed_while_listed(run, newest_first=False)


def renamed_during_every_listing(run: Run) -> None:
    # A rotation during each of the listings taken in a row: none can be believed. Nothing
    # may be read twice or out of order meanwhile; all is read once the renames stop.
    run.write(5)
    run.poll()
    run.rotate()
    run.write(5)
    run.during("listing", run.rotate, partial(run.write, 5), times=watch.LIST_TRIES + 2)


def copied_twice_before_the_truncation_is_noticed(run: Run) -> None:
    # Between the follower's truncation check and its scan, two rotations: B.2 is the copy of
    # the base (with lines not read yet), B.1 a newer generation. B.2's rest comes first.
    run.write(5)
    run.poll()
    run.write(3)
    run.during(
        "truncation-check",
        run.rotate,
        partial(run.write, 5),
        run.rotate,
        partial(run.write, 5),
        run.touch_folder,
    )


def copied_again_before_the_fresh_base_is_read(run: Run) -> None:
    # The truncation is noticed and the copy adopted; before the base is read from its start,
    # what it held is copied away too: B.1 must come before what the base holds now.
    run.write(5)
    run.poll()
    run.rotate()
    run.write(5)
    run.during("truncation-noticed", run.rotate, partial(run.write, 5))


def copied_while_the_fresh_base_is_scanned(run: Run) -> None:
    # A fresh base read in bulk is copied and truncated (and written again) between the
    # scanner reading it and the follower keeping its rows: its first bytes must be those
    # scanned, not those there after the truncation.
    if not fastindex.available():
        pytest.skip("the C scanner is not built (or TRACETUI_NO_C is set)")
    run.write(5)
    run.poll()
    run.rotate()
    run.write(BULK_BYTES // 1000 + 100, pad=1000)
    run.during("bulk-scan", run.rotate, partial(run.write, HEAD // 100 + 5))


@pytest.mark.parametrize(
    "script",
    [
        renamed_while_listed_newest_first,
        renamed_while_listed_oldest_first,
        renamed_during_every_listing,
        copied_twice_before_the_truncation_is_noticed,
        copied_again_before_the_fresh_base_is_read,
        copied_while_the_fresh_base_is_scanned,
    ],
    ids=lambda s: s.__name__.replace("_", "-"),
)
def test_every_record_once_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: Callable[[Run], None]
) -> None:
    run = Run(tmp_path / "run", monkeypatch)
    script(run)
    run.settle()
    index = run.follower.index
    in_index = [index.ids[r] for r in range(len(index))]
    read_back = [getattr(index.get(r), "command_id", None) for r in range(len(index))]
    run.follower.stop()
    assert in_index == run.written
    assert read_back == run.written
    assert run.reported == run.written
    assert run.follower.notes == []


def test_a_listing_that_a_rename_overlapped_is_taken_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The listing itself: the files as they are once nothing moved while they were opened."""
    run = Run(tmp_path / "run", monkeypatch)
    for _ in range(3):
        run.write(2)
        run.rotate()
    before = {os.stat(f"{run.base}.{k}").st_ino for k in (1, 2, 3)}
    run.during("listing", run.rotate)
    entries, stable = watch.list_members(str(run.folder), run.base.name)
    for e in entries:
        assert e.fh is not None
        e.fh.close()
    assert stable
    assert [(e.number, e.ident[1]) for e in entries] == [
        (k, os.stat(f"{run.base}.{k}").st_ino) for k in (4, 3, 2, 1)
    ]
    assert {e.ident[1] for e in entries} > before
