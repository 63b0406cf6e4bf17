"""Runs on disk and index snapshots for the persistent-index tests (test_index_cache*.py)."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool

from tracetui.store import cache, cache_files, fastindex
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

CACHED_FROM = cache.MIN_RUN_BYTES
"""The size from which a run is cached (the fixture lowers it to 0 in this process only)."""
OLD = time.time_ns() - 3600 * 10**9
"""An mtime well before any build (a file changed within RACY_NS of a read is not trusted)."""


def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of the test's own, the cache on; returns the index folder."""
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    monkeypatch.delenv("TRACETUI_NO_CACHE", raising=False)
    monkeypatch.delenv("TRACETUI_CACHE_MAX_MB", raising=False)
    monkeypatch.setattr(cache, "_off", False)
    monkeypatch.setattr(cache_files, "_totals", {})
    monkeypatch.setattr(cache_files, "_folders", {})
    monkeypatch.setattr(cache, "MIN_RUN_BYTES", 0)  # the test runs are tiny
    monkeypatch.setattr(cache, "_fingerprint", None)  # as a subprocess started now sees the code
    return xdg / "tracetui" / "index"


def spy_reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """``(member name, first byte)`` of every scan a build makes from now, C scanner or not."""
    seen: list[tuple[str, int]] = []
    scan = fastindex.scan_member

    def spy_scan(path: str, start: int, *rest: Any, **kw: Any) -> Iterator[fastindex.Item]:
        seen.append((os.path.basename(path), start))
        return scan(path, start, *rest, **kw)

    monkeypatch.setattr(fastindex, "scan_member", spy_scan)
    if not fastindex.available():  # the Python path reads through index_member
        member = RunIndex.index_member

        def spy_member(self: RunIndex, mno: int, *a: Any, **kw: Any) -> None:
            im = self.members[mno]
            seen.append((os.path.basename(im.member.path), im.size))
            member(self, mno, *a, **kw)

        monkeypatch.setattr(RunIndex, "index_member", spy_member)
    return seen


def lines(first: int, n: int, *, parent_of: int | None = None) -> bytes:
    out = b""
    for i in range(first, first + n):
        fields: dict[str, Any] = {"exit_code": 1 if i % 3 == 0 else 0}
        if parent_of is not None and i == first:
            fields["parent_command_id"] = f"c{parent_of:04d}"
        out += encode_line(tool(f"c{i:04d}", **fields))
    return out


def write(path: Path, data: bytes, *, mtime: int = OLD) -> None:
    path.write_bytes(data)
    os.utime(path, ns=(mtime, mtime))


def make_set(root: Path) -> Path:
    """``B.1`` (with a bad line) and ``B``, a chain crossing them; returns B's path."""
    root.mkdir(parents=True, exist_ok=True)
    write(root / "B.jsonl.1", lines(0, 6) + b"{not json\n" + lines(6, 3))
    write(root / "B.jsonl", lines(9, 5, parent_of=6))
    return root / "B.jsonl"


def big_set(root: Path) -> Path:
    """Like :func:`make_set`, past the size under which a run is not cached (a subprocess does
    not see this module's monkeypatching of MIN_RUN_BYTES)."""
    base = make_set(root)
    write(base, base.read_bytes() + lines(100, (CACHED_FROM // 400) + 1))
    assert base.stat().st_size > CACHED_FROM
    return base


def state(ix: RunIndex) -> tuple[Any, ...]:
    """Everything a cold build decides, member by member and row by row."""
    return (
        [(im.member.path, im.member.number) for im in ix.members],
        ix.member_no.tobytes(),
        ix.offset.tobytes(),
        ix.length.tobytes(),
        ix.line_no.tobytes(),
        ix.flags.tobytes(),
        ix.exit.tobytes(),
        ix.hidden.tobytes(),
        ix.marks.tobytes(),
        ix.ids,
        ix.parent_ids,
        sorted(ix.links()),
        ix.bad,
        ix.stats,
        ix.latest_failure,
        ix.id_rows,
        ix.duplicates,
    )


def cold(base: Path) -> RunIndex:
    was = cache._off
    cache._off = True
    try:
        return build_index(open_path(str(base))[0])
    finally:
        cache._off = was


def warm(base: Path) -> RunIndex:
    return build_index(open_path(str(base))[0])


# ------------------------------------------------------------------ what a change costs
def append_lines(b: Path) -> None:
    with open(b, "ab") as fh:
        fh.write(lines(14, 3))
    os.utime(b, ns=(OLD + 10**9, OLD + 10**9))


def rotate(b: Path) -> None:
    os.rename(f"{b}.1", f"{b}.2")
    os.rename(b, f"{b}.1")
    write(b, lines(14, 2))


def copy_truncate(b: Path) -> None:
    os.rename(f"{b}.1", f"{b}.2")
    shutil.copyfile(b, f"{b}.1")
    os.utime(f"{b}.1", ns=(OLD, OLD))
    write(b, lines(14, 2), mtime=OLD + 2 * 10**9)


def rewrite_same_size(b: Path) -> None:
    data = b.read_bytes()
    at = data.index(b'"exit_code": 0')
    write(b, data[:at] + b'"exit_code": 7' + data[at + 14 :], mtime=OLD + 10**9)


def touch_mtime(b: Path) -> None:
    os.utime(b, ns=(OLD + 5 * 10**9, OLD + 5 * 10**9))


def shrink(b: Path) -> None:
    write(b, lines(9, 2), mtime=OLD + 10**9)
