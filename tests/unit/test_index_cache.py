"""The persistent index (tracetui/store/cache.py): what a warm build reads, and that its rows
are always those of a cold build, whatever happened to the files or to the cache itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool

from tracetui import cli
from tracetui.store import build, cache, cache_files, fastindex
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

CACHED_FROM = cache.MIN_RUN_BYTES
"""The size from which a run is cached (the fixture lowers it to 0 in this process only)."""
OLD = time.time_ns() - 3600 * 10**9
"""An mtime well before any build (a file changed within RACY_NS of a read is not trusted)."""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache folder of this test's own, the cache on."""
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


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """``(member name, first byte)`` of every scan a build makes, C scanner or not."""
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
def _append(b: Path) -> None:
    with open(b, "ab") as fh:
        fh.write(lines(14, 3))
    os.utime(b, ns=(OLD + 10**9, OLD + 10**9))


def _rotate(b: Path) -> None:
    os.rename(f"{b}.1", f"{b}.2")
    os.rename(b, f"{b}.1")
    write(b, lines(14, 2))


def _copy_truncate(b: Path) -> None:
    os.rename(f"{b}.1", f"{b}.2")
    shutil.copyfile(b, f"{b}.1")
    os.utime(f"{b}.1", ns=(OLD, OLD))
    write(b, lines(14, 2), mtime=OLD + 2 * 10**9)


def _rewrite_same_size(b: Path) -> None:
    data = b.read_bytes()
    at = data.index(b'"exit_code": 0')
    write(b, data[:at] + b'"exit_code": 7' + data[at + 14 :], mtime=OLD + 10**9)


def _mtime_only(b: Path) -> None:
    os.utime(b, ns=(OLD + 5 * 10**9, OLD + 5 * 10**9))


def _shrink(b: Path) -> None:
    write(b, lines(9, 2), mtime=OLD + 10**9)


CHANGES: list[tuple[str, Callable[[Path], None], list[tuple[str, int]] | str]] = [
    ("unchanged", lambda b: None, []),
    ("append", _append, "B grown"),
    ("rotate", _rotate, [("B.jsonl", 0)]),
    ("copy-truncate", _copy_truncate, [("B.jsonl.1", 0), ("B.jsonl", 0)]),
    ("rewrite-same-size", _rewrite_same_size, [("B.jsonl", 0)]),
    ("mtime-only", _mtime_only, [("B.jsonl", 0)]),
    ("shrink", _shrink, [("B.jsonl", 0)]),
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
    _rotate(base)
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


def _offsets_past_the_member(p: Path) -> None:
    # A header that still checks out but rows that point outside their file.
    import orjson

    data = p.read_bytes()
    n = int.from_bytes(data[8:12], "little")
    header = orjson.loads(data[12 : 12 + n])
    body = bytearray(data[12 + n :])
    start, _length = header["parts"][0]["blobs"][0]
    body[start : start + 8] = (10**12).to_bytes(8, "little")
    import zlib

    header["body"] = [len(body), zlib.crc32(body)]
    head = orjson.dumps(header)
    p.write_bytes(data[:8] + len(head).to_bytes(4, "little") + head + bytes(body))


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
def _summary(base: Path, *extra: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "tracetui", "summary", *extra, "--json", str(base)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=True,
    )
    return out.stdout


SWITCHES = [
    ("--no-cache", ("--no-cache",), {}),
    ("TRACETUI_NO_CACHE=1", (), {"TRACETUI_NO_CACHE": "1"}),
]


@pytest.mark.parametrize(("extra", "env"), [s[1:] for s in SWITCHES], ids=[s[0] for s in SWITCHES])
def test_the_cache_can_be_switched_off(
    home: Path, tmp_path: Path, extra: tuple[str, ...], env: dict[str, str]
) -> None:
    base = big_set(tmp_path / "run")
    off = _summary(base, *extra, env=env)
    assert not home.exists() or list(home.iterdir()) == []
    on = _summary(base)
    assert sorted(p.suffix for p in home.iterdir()) == [".idx", ".json"]
    assert on == off


def test_a_warm_summary_is_the_cold_one_without_indexing(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    base = make_set(tmp_path / "run")
    assert cli.main(["summary", "--json", str(base)]) == 0
    first = capsysbinary.readouterr().out

    def no_build(*_a: Any, **_k: Any) -> RunIndex:
        raise AssertionError("indexed again")

    monkeypatch.setattr(build, "build_index", no_build)
    assert cli.main(["summary", "--json", str(base)]) == 0
    assert capsysbinary.readouterr().out == first


def test_two_processes_opening_one_run_at_once(
    home: Path, tmp_path: Path, reads: list[tuple[str, int]]
) -> None:
    base = big_set(tmp_path / "run")
    argv = [sys.executable, "-m", "tracetui", "summary", "--json", str(base)]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in "ab"]
    outs = [p.communicate() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert outs[0] == outs[1] and outs[0][1] == b""
    assert outs[0][0].decode() == _summary(base)  # and the entry left behind is whole
    assert sorted(p.suffix for p in home.iterdir()) == [".idx", ".json"]  # no temp file left
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
        entry = home / (cache._run_key(open_path(str(base))[0]) + ".idx")
        os.utime(entry, ns=(OLD + k * 10**9, OLD + k * 10**9))  # distinct, ordered use times
    sizes = [p.stat().st_size for p in home.iterdir()]
    assert sum(sizes) <= cap
    assert len(sizes) == 3
    kept = {p.name for p in home.iterdir()}
    assert cache._run_key(open_path(str(bases[-1]))[0]) + ".idx" in kept
    assert cache._run_key(open_path(str(bases[0]))[0]) + ".idx" not in kept


KEPT_CHANGES = [
    ("append", _append),
    ("rotate", _rotate),
    ("rewrite-same-size", _rewrite_same_size),
    ("re-run-added", lambda b: write(Path(f"{b}.reruns.jsonl"), lines(50, 1, parent_of=3))),
]


@pytest.mark.parametrize("change", [c[1] for c in KEPT_CHANGES], ids=[c[0] for c in KEPT_CHANGES])
@pytest.mark.parametrize("form", [["--json"], []], ids=["json", "text"])
def test_a_kept_summary_is_never_shown_for_changed_files(
    home: Path,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    change: Callable[[Path], None],
    form: list[str],
) -> None:
    base = make_set(tmp_path / "run")
    assert cli.main(["summary", *form, str(base)]) == 0
    first = capsysbinary.readouterr().out
    assert cli.main(["summary", *form, str(base)]) == 0  # from what was kept
    assert capsysbinary.readouterr().out == first
    change(base)
    assert cli.main(["summary", *form, str(base)]) == 0
    changed = capsysbinary.readouterr().out
    cache._off = True
    try:
        assert cli.main(["summary", *form, str(base)]) == 0
    finally:
        cache._off = False
    assert changed == capsysbinary.readouterr().out
    assert changed != b"" and first != b""


def _lint(base: Path, out: Path) -> list[str]:
    return ["lint", "--format", "json", str(base)]


def _export(base: Path, out: Path) -> list[str]:
    return ["export", str(base), "--otlp-json", str(out)]


def _report(base: Path, out: Path) -> list[str]:
    return ["report", str(base), "--id", "c0003", "-o", str(out)]


COMMANDS = [("lint", _lint, (0, 1)), ("export", _export, (0,)), ("report", _report, (0,))]


@pytest.mark.parametrize(("argv", "codes"), [c[1:] for c in COMMANDS], ids=[c[0] for c in COMMANDS])
def test_every_indexing_command_takes_no_cache(
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: Callable[[Path, Path], list[str]],
    codes: tuple[int, ...],
) -> None:
    base = make_set(tmp_path / "run")
    words = argv(base, tmp_path / "out")
    try:
        assert cli.main([words[0], "--no-cache", *words[1:]]) in codes
        assert not home.exists() or list(home.iterdir()) == []
    finally:
        cache._off = False
    assert cli.main(words) in codes
    assert [p.suffix for p in home.iterdir()] == [".idx"]
    capsys.readouterr()
