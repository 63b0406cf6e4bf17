"""The persistent index (tracetui/store/cache.py): what a warm build reads, and that its rows
are always those of a cold build, whatever happened to the files or to the cache itself."""

from __future__ import annotations

import os
import subprocess
import sys
import zlib
from array import array
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from cache_runs import (
    OLD,
    append_lines,
    big_set,
    cold,
    copy_truncate,
    lines,
    make_set,
    private_cache,
    rewrite_same_size,
    rotate,
    shrink,
    spy_reads,
    state,
    touch_mtime,
    warm,
    write,
)

from tracetui.store import cache, cache_files, cache_parts
from tracetui.store.runset import open_path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_cache(tmp_path, monkeypatch)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    return spy_reads(monkeypatch)


CHANGES: list[tuple[str, Callable[[Path], None], list[tuple[str, int]] | str]] = [
    ("unchanged", lambda b: None, []),
    ("append", append_lines, "B grown"),
    ("rotate", rotate, [("B.jsonl", 0)]),
    ("copy-truncate", copy_truncate, [("B.jsonl.1", 0), ("B.jsonl", 0)]),
    ("rewrite-same-size", rewrite_same_size, [("B.jsonl", 0)]),
    ("mtime-only", touch_mtime, [("B.jsonl", 0)]),
    ("shrink", shrink, [("B.jsonl", 0)]),
]


@pytest.mark.parametrize(
    ("change", "expected"), [(c[1], c[2]) for c in CHANGES], ids=[c[0] for c in CHANGES]
)
def test_a_warm_build_reads_only_what_changed_and_equals_a_cold_one(
    home: Path,
    tmp_path: Path,
    reads: list[tuple[str, int]],
    change: Callable[[Path], None],
    expected: list[tuple[str, int]] | str,
) -> None:
    base = make_set(tmp_path / "run")
    first = warm(base)  # cold: fills the cache
    assert sorted(reads) == [("B.jsonl", 0), ("B.jsonl.1", 0)]
    old_size = base.stat().st_size
    change(base)
    reads.clear()
    got = warm(base)
    if expected == "B grown":
        expected = [("B.jsonl", old_size)]
    assert sorted(reads) == sorted(expected)
    assert state(got) == state(cold(base))
    assert len(first) > 0


def test_a_line_cut_mid_write_is_read_again_once_finished(
    home: Path, tmp_path: Path, reads: list[tuple[str, int]]
) -> None:
    base = make_set(tmp_path / "run")
    cut = lines(14, 1)
    write(base, base.read_bytes() + cut[:20])  # the writer stopped mid-line
    warm(base)
    with open(base, "ab") as fh:
        fh.write(cut[20:] + lines(15, 1))
    os.utime(base, ns=(OLD + 10**9, OLD + 10**9))
    reads.clear()
    got = warm(base)
    assert reads == [("B.jsonl", 0)]  # not resumed after a line that was not whole
    assert state(got) == state(cold(base))
    assert got.stats.bad_lines == 1  # only B.1's bad line: the cut one is whole now


def test_rotated_members_keep_their_rows_under_their_new_names(
    home: Path, tmp_path: Path, reads: list[tuple[str, int]]
) -> None:
    base = make_set(tmp_path / "run")
    warm(base)
    rotate(base)
    reads.clear()
    got = warm(base)
    assert reads == [("B.jsonl", 0)]
    (bad,) = got.bad.values()
    assert bad.file == f"{base}.2"  # the bad line is reported where it is now
    assert got.location(next(iter(got.bad))) == (f"{base}.2", 7)


def test_a_file_modified_just_before_it_was_read_is_read_again(
    home: Path, tmp_path: Path, reads: list[tuple[str, int]]
) -> None:
    base = make_set(tmp_path / "run")
    os.utime(base)  # now: it may change again within the same mtime tick
    warm(base)
    reads.clear()
    warm(base)
    assert reads == [("B.jsonl", 0)]


# ------------------------------------------------------------------ a hostile cache file
def _cut_half(p: Path) -> None:
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def _flip_body_byte(p: Path) -> None:
    data = bytearray(p.read_bytes())
    data[-10] ^= 0xFF
    p.write_bytes(bytes(data))


def _other_version(p: Path) -> None:
    p.write_bytes(p.read_bytes().replace(b'"version":%d' % cache.VERSION, b'"version":99', 1))


def _huge_header_length(p: Path) -> None:
    data = p.read_bytes()
    p.write_bytes(data[:8] + (2**31).to_bytes(4, "little") + data[12:])


def _garbage(p: Path) -> None:
    p.write_bytes(os.urandom(4096))


def _empty(p: Path) -> None:
    p.write_bytes(b"")


def _oversized(p: Path) -> None:
    with open(p, "ab") as fh:
        fh.truncate(2 << 20)  # past the cap the test sets (1 MiB)


def _respell(p: Path, part: int, blob: int, new: Callable[[bytes], bytes]) -> None:
    """Replace one blob of one part by ``new(old)``, the header and CRC made to check out."""
    data = p.read_bytes()
    n = int.from_bytes(data[8:12], "little")
    header = orjson.loads(data[12 : 12 + n])
    body = data[12 + n :]
    flat = [(i, j) for i, meta in enumerate(header["parts"]) for j in range(len(meta["blobs"]))]
    blobs = []
    for i, j in flat:
        start, length = header["parts"][i]["blobs"][j]
        old = body[start : start + length]
        blobs.append(new(old) if (i, j) == (part, blob) else old)
    out = b""
    for (i, j), b in zip(flat, blobs, strict=True):
        header["parts"][i]["blobs"][j] = [len(out), len(b)]
        out += b
    header["body"] = [len(out), zlib.crc32(out)]
    head = orjson.dumps(header)
    p.write_bytes(data[:8] + len(head).to_bytes(4, "little") + head + out)


def _offsets_past_the_member(p: Path) -> None:
    # A header that still checks out but rows that point outside their file.
    _respell(p, 0, 0, lambda old: (10**12).to_bytes(8, "little") + old[8:])


def _links(p: Path, rows: list[int] | None, ids: list[object] | None) -> None:
    """Part 1 (B.jsonl, whose first row names a parent) with other link rows or ids."""
    if rows is not None:
        _respell(p, 1, LINK_ROWS, lambda _old: array("i", rows).tobytes())
    if ids is not None:
        _respell(p, 1, LINK_IDS, lambda _old: orjson.dumps(ids))


LINK_ROWS, LINK_IDS = len(cache_parts.COLUMNS) + 1, len(cache_parts.COLUMNS) + 2


BOTH = [("B.jsonl", 0), ("B.jsonl.1", 0)]
BROKEN = [
    ("truncated", _cut_half, BOTH),
    ("corrupt-body", _flip_body_byte, BOTH),
    ("other-version", _other_version, BOTH),
    ("huge-header-length", _huge_header_length, BOTH),
    ("garbage", _garbage, BOTH),
    ("empty", _empty, BOTH),
    ("oversized", _oversized, BOTH),
    # Checked part by part: only the member whose rows do not hold together is read again.
    ("rows-outside-the-file", _offsets_past_the_member, [("B.jsonl.1", 0)]),
    ("link-row-past-the-rows", lambda p: _links(p, [99], None), [("B.jsonl", 0)]),
    ("link-row-negative", lambda p: _links(p, [-1], None), [("B.jsonl", 0)]),
    ("link-rows-cut", lambda p: _respell(p, 1, LINK_ROWS, lambda old: old[:-1]), [("B.jsonl", 0)]),
    ("more-link-ids-than-rows", lambda p: _links(p, None, ["c0006", "c0007"]), [("B.jsonl", 0)]),
    ("link-id-not-a-string", lambda p: _links(p, None, [6]), [("B.jsonl", 0)]),
    ("link-id-null", lambda p: _links(p, None, [None]), [("B.jsonl", 0)]),
    ("link-ids-not-json", lambda p: _respell(p, 1, LINK_IDS, lambda _o: b"[no"), [("B.jsonl", 0)]),
    (
        "ids-not-strings",
        lambda p: _respell(p, 1, LINK_IDS - 2, lambda o: o.replace(b'"c0009"', b"9")),
        [("B.jsonl", 0)],
    ),
]


@pytest.mark.parametrize(("spoil", "again"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN])
def test_a_spoilt_cache_file_is_rebuilt_silently(
    home: Path,
    tmp_path: Path,
    reads: list[tuple[str, int]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    spoil: Callable[[Path], None],
    again: list[tuple[str, int]],
) -> None:
    monkeypatch.setenv("TRACETUI_CACHE_MAX_MB", "1")
    base = make_set(tmp_path / "run")
    warm(base)
    (entry,) = home.glob("*.idx")
    spoil(entry)
    reads.clear()
    got = warm(base)
    assert sorted(reads) == again
    assert state(got) == state(cold(base))
    assert capsys.readouterr() == ("", "")  # nothing said: a debug log line only
    reads.clear()
    warm(base)  # and the entry was written anew
    assert reads == []


def test_a_link_planted_at_the_cache_path_is_never_followed(
    home: Path, tmp_path: Path, reads: list[tuple[str, int]]
) -> None:
    base = make_set(tmp_path / "run")
    warm(base)
    (entry,) = home.glob("*.idx")
    victim = tmp_path / "victim"
    victim.write_bytes(entry.read_bytes())  # even a valid entry is not read through a link
    entry.unlink()
    entry.symlink_to(victim)
    before = victim.read_bytes()
    reads.clear()
    warm(base)
    assert sorted(reads) == [("B.jsonl", 0), ("B.jsonl.1", 0)]
    assert victim.read_bytes() == before
    assert not entry.is_symlink()  # the link itself was replaced by a real entry


def test_a_link_in_place_of_the_cache_folder_turns_the_cache_off(
    home: Path, tmp_path: Path, reads: list[tuple[str, int]]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home.parent.mkdir(parents=True)
    home.symlink_to(elsewhere)
    base = make_set(tmp_path / "run")
    warm(base)
    reads.clear()
    warm(base)
    assert len(reads) == 2
    assert list(elsewhere.iterdir()) == []


# ------------------------------------------------------------------ switches, bound, processes
def summary_out(base: Path, *extra: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "tracetui", "summary", *extra, "--json", str(base)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=True,
    )
    return out.stdout


def test_two_processes_opening_one_run_at_once(
    home: Path, tmp_path: Path, reads: list[tuple[str, int]]
) -> None:
    base = big_set(tmp_path / "run")
    argv = [sys.executable, "-m", "tracetui", "summary", "--json", str(base)]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in "ab"]
    outs = [p.communicate() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert outs[0] == outs[1] and outs[0][1] == b""
    assert outs[0][0].decode() == summary_out(base)  # and the entry left behind is whole
    # No temp file left.
    assert sorted(p.suffix for p in home.iterdir()) == [".idx", ".json", ".out"]
    got = warm(base)
    assert reads == []  # the entry either process left is whole: nothing read again
    assert state(got) == state(cold(base))


def test_the_folder_stays_under_its_cap_dropping_the_least_recently_used(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bases = [make_set(tmp_path / f"run{i}") for i in range(6)]
    warm(bases[0])
    one = sum(p.stat().st_size for p in home.iterdir())
    cap = one * 3 + one // 2
    monkeypatch.setattr(cache_files, "size_cap", lambda: cap)
    for k, base in enumerate(bases):
        warm(base)
        entry = home / (cache.run_key(open_path(str(base))[0]) + ".idx")
        os.utime(entry, ns=(OLD + k * 10**9, OLD + k * 10**9))  # distinct, ordered use times
    sizes = [p.stat().st_size for p in home.iterdir()]
    assert sum(sizes) <= cap
    assert len(sizes) == 3
    kept = {p.name for p in home.iterdir()}
    assert cache.run_key(open_path(str(bases[-1]))[0]) + ".idx" in kept
    assert cache.run_key(open_path(str(bases[0]))[0]) + ".idx" not in kept
