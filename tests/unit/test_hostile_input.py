"""Issue 13: one bad value, member or file costs that record (or that member), never the run.

Absurd numbers, damaged and bomb-like gzip members, member names with absurd numbers, FIFOs and
devices, a line just over the size limit and a damaged ``.eval`` sample: each case states the
exact outcome (spans and bad lines counted, the run note word for word, nothing left in the temp
folder), and every run is indexed both by the C scanner and by the pure-Python path, which must
agree. The commands run in-process through the real entry point.
"""

from __future__ import annotations

import gc
import gzip
import io
import json
import os
import tempfile
import threading
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool

from tracetui import cli
from tracetui.store import fastindex, gz
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.reader import MAX_LINE, NotRegularFile, open_regular
from tracetui.store.runset import RunSetError, open_path

DATA = Path(__file__).resolve().parents[1] / "data" / "agents"
GOOD = encode_line(tool("good"))
NEWEST = encode_line(tool("newest"))


@pytest.fixture(autouse=True)
def private_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """TMPDIR (and tempfile's cached choice) pointed at an empty folder of this test's own."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # crash reports, if any
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    yield tmp


def temps(tmp_path: Path) -> list[str]:
    return sorted(os.listdir(tmp_path / "tmp"))


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``tracetui ARGS`` in this process: exit status, stdout, stderr."""
    capsys.readouterr()
    try:
        rc = cli.main(list(args))
    finally:
        gc.enable()  # batch commands switch the collector off for their short life
        gc.collect()  # what the end of the process does: the command's objects are gone
    out, err = capsys.readouterr()
    return rc, out, err


def facts(ix: RunIndex) -> tuple[Any, ...]:
    """Everything the index decided, row by row: both paths must agree on all of it."""
    n = len(ix)
    return (
        n,
        ix.stats.spans,
        ix.stats.bad_lines,
        ix.stats.truncated,
        ix.stats.hidden_bytes,
        ix.stats.failed,
        list(ix.flags[:n]),
        list(ix.exit[:n]),
        list(ix.hidden[:n]),
        ix.ids[:n],
        sorted((r, b.reason) for r, b in ix.bad.items()),
    )


def both_paths(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[RunIndex, RunIndex]:
    """The run indexed by the C scanner and by the Python path (same facts, or the test fails)."""
    assert fastindex.available(), "the C scanner is built in this environment"
    with_c = build_index(open_path(str(path))[0])
    monkeypatch.setenv("TRACETUI_NO_C", "1")
    without_c = build_index(open_path(str(path))[0])
    monkeypatch.delenv("TRACETUI_NO_C")
    assert facts(with_c) == facts(without_c)
    return with_c, without_c


# ------------------------------------------------------------------------------ absurd numbers
def swap(old: str, new: str, **fields: Any) -> bytes:
    """A record with the text ``old`` replaced by ``new`` (numbers json.dumps cannot spell)."""
    line = encode_line(tool("odd", **fields))
    assert old.encode() in line
    return line.replace(old.encode(), new.encode())


OUT_OF_RANGE = "number out of range at column {} (beyond what a double holds, ±1.8e308)"
BIG = 2**64 * 3
U64 = 2**64 - 1
CHAR_MARKER = "a\n\n... [99999999999999999999 characters truncated] ...\n\nb"
OWN_MARKER = "a\n…[truncated " + "9" * 5000 + " bytes]…\n"
# (id, the odd line, the problem noted on its span or its bad-line reason, (spans, bad lines))
ABSURD: list[tuple[str, bytes, str | None, tuple[int, int]]] = [
    (
        "stdout-bytes-3x2^64",
        encode_line(tool("odd", stdout_bytes=BIG)),
        f"stdout_bytes: 5.53e+19 is past the 64-bit range; read as {U64}",
        (3, 0),
    ),
    (
        "cap-3x2^64",
        encode_line(tool("odd", stdout_cap=BIG)),
        f"stdout_cap: 5.53e+19 is past the 64-bit range; read as {U64}",
        (3, 0),
    ),
    (
        "head-bytes-3x2^64",
        encode_line(tool("odd", stdout_truncated=True, stdout_head_bytes=BIG)),
        f"stdout_head_bytes: 5.53e+19 is past the 64-bit range; read as {U64}",
        (3, 0),
    ),
    (
        "exit-2^70",
        encode_line(tool("odd", exit_code=2**70)),
        f"exit_code: 1.18e+21 is past the 64-bit range; read as {U64}",
        (3, 0),
    ),
    (
        "exit-minus-2^70",
        encode_line(tool("odd", exit_code=-(2**70))),
        f"exit_code: -1.18e+21 is past the 64-bit range; read as {-(2**63)}",
        (3, 0),
    ),
    ("exit-past-int32", encode_line(tool("odd", exit_code=2**40)), None, (3, 0)),
    (
        "exit-1e300",
        encode_line(tool("odd", exit_code=1e300)),
        f"exit_code: 1e+300 is past the 64-bit range; read as {U64}",
        (3, 0),
    ),
    (
        "redacted-3x2^64",
        encode_line(tool("odd", redacted=BIG)),
        f"redacted: 5.53e+19 is past the 64-bit range; read as {U64}",
        (3, 0),
    ),
    (
        "duration-1e30",
        encode_line(tool("odd", duration_ms=10**30)),
        "duration_ms: 1e+30 is out of range; read as 9007199254740992",
        (3, 0),
    ),
    (
        "duration-1e308",
        encode_line(tool("odd", duration_ms=1e308)),
        "duration_ms: 1e+308 is out of range; read as 9007199254740992",
        (3, 0),
    ),
    (
        "bytes-1e400",
        swap('"stdout_bytes": 3', '"stdout_bytes": 1e400'),
        OUT_OF_RANGE.format(276),
        (2, 1),
    ),
    (
        "duration-1e400",  # a key the C scanner does not read: it passed the line as valid
        swap('"duration_ms": 12', '"duration_ms": 1e400'),
        OUT_OF_RANGE.format(205),
        (2, 1),
    ),
    (
        "duration-minus-1e400",
        swap('"duration_ms": 12', '"duration_ms": -1e400'),
        OUT_OF_RANGE.format(205),
        (2, 1),
    ),
    (
        "duration-401-digits",
        swap('"duration_ms": 12', '"duration_ms": 1' + "0" * 400),
        OUT_OF_RANGE.format(205),
        (2, 1),
    ),
    (
        "duration-nan",
        swap('"duration_ms": 12', '"duration_ms": NaN'),
        "malformed JSON at column 205: unexpected character, expected a JSON value",
        (2, 1),
    ),
    ("duration-1e-400-is-zero", swap('"duration_ms": 12', '"duration_ms": 1e-400'), None, (3, 0)),
    (
        "marker-20-digit-characters",
        encode_line(
            tool("odd", stdout_bytes=None, stdout_truncated=None, preview_stdout=CHAR_MARKER)
        ),
        None,
        (3, 0),
    ),
    (
        "own-marker-5000-digits",
        encode_line(
            tool("odd", stdout_bytes=None, stdout_truncated=None, preview_stdout=OWN_MARKER)
        ),
        None,
        (3, 0),
    ),
]


@pytest.mark.parametrize(
    ("line", "said", "counts"), [c[1:] for c in ABSURD], ids=[c[0] for c in ABSURD]
)
def test_an_absurd_number_costs_one_record_at_most(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    line: bytes,
    said: str | None,
    counts: tuple[int, int],
) -> None:
    path = tmp_path / "B.jsonl"
    path.write_bytes(GOOD + line + NEWEST)
    for command in (
        ["summary", "--json"],
        ["summary"],
        ["lint"],
        ["tail", "--once", "--from-start", "--json"],
        ["export", "--otlp-json", "-"],
        ["report", "--id", "newest"],
    ):
        rc, out, err = run_cli(capsys, *command, str(path))
        assert rc in (0, 1), (command, err)  # 1: lint found something; never 2 or 3
        assert "internal error" not in err and "cannot read" not in err
    rc, out, _ = run_cli(capsys, "summary", "--json", str(path))
    summary = json.loads(out)
    assert (summary["spans"], len(summary["bad_lines"])) == counts
    ix, _ = both_paths(path, monkeypatch)
    assert (ix.stats.spans, ix.stats.bad_lines) == counts
    assert ix.ids[0] == "good" and ix.ids[2] == "newest"
    got = ix.get(1)
    if counts[1]:
        assert getattr(got, "reason", None) == said
    else:
        assert getattr(got, "problems", None) == ((said,) if said else ())


# ------------------------------------------------------------------------------ gzip members
def lines_of(n: int, width: int = 200) -> bytes:
    return b"".join(encode_line(tool(f"z{i:05d}", preview_stdout="x" * width)) for i in range(n))


def stored(data: bytes) -> bytes:
    """gzip at level 0: stored deflate blocks, so damage placed by offset hits known bytes."""
    return gzip.compress(data, compresslevel=0, mtime=0)


def blocks(blob: bytes) -> list[tuple[int, int]]:
    """``(offset, data length)`` of each stored block: [1 byte, LEN, NLEN, data] after the
    10-byte gzip header."""
    found, at = [], 10
    while at < len(blob) - 8:
        assert blob[at] in (0, 1)  # BTYPE 00: stored
        length = int.from_bytes(blob[at + 1 : at + 3], "little")
        found.append((at, length))
        at += 5 + length
    return found


MEMBER = lines_of(1000)  # about 650 KB
(_, FIRST), (SECOND_BLOCK, SECOND) = blocks(stored(MEMBER))[:2]
KEPT_ONE_BLOCK = MEMBER[:FIRST].count(b"\n")
CUT_AT = SECOND_BLOCK + 5 + SECOND // 2  # within the second block's data
CUT_BYTES = FIRST + SECOND // 2
KEPT_CUT = MEMBER[:CUT_BYTES].count(b"\n")


def nlen_broken(blob: bytes) -> bytes:
    b = bytearray(blob)
    b[SECOND_BLOCK + 3] ^= 0xFF  # NLEN no longer the complement of LEN
    return bytes(b)


def crc_broken(blob: bytes) -> bytes:
    b = bytearray(blob)
    b[-8] ^= 0xFF
    return bytes(b)


GZ_MEMBERS: list[tuple[str, bytes, int, str | None]] = [
    ("sound", stored(MEMBER), 1000, None),
    (
        "corrupt-deflate",  # zlib.error: it took the whole run down
        nlen_broken(stored(MEMBER)),
        KEPT_ONE_BLOCK,
        f"B.jsonl.1.gz: gzip data damaged after {FIRST:,} decompressed bytes (invalid stored "
        f"block lengths); the {KEPT_ONE_BLOCK:,} complete lines before it are read",
    ),
    (
        "cut-short",  # every readable span was dropped with it
        stored(MEMBER)[:CUT_AT],
        KEPT_CUT,
        f"B.jsonl.1.gz: gzip data ends early (cut off) after {CUT_BYTES:,} decompressed "
        f"bytes; the {KEPT_CUT:,} complete lines before it are read",
    ),
    (
        "trailing-garbage",
        stored(MEMBER) + b"garbage",
        1000,
        "B.jsonl.1.gz: 7 bytes after the end of the gzip data, not gzip: ignored",
    ),
    ("zero-padding", stored(MEMBER) + b"\0" * 512, 1000, None),
    ("two-members", gzip.compress(MEMBER[:99_999]) + gzip.compress(MEMBER[99_999:]), 1000, None),
    (
        "checksum",
        crc_broken(stored(MEMBER)),
        1000,
        "B.jsonl.1.gz: gzip checksum does not match (incorrect data check): the data may be "
        "damaged; its 1,000 complete lines are read",
    ),
    (
        "not-gzip",
        b"this is not gzip\n",
        0,
        "B.jsonl.1.gz: not readable as gzip (incorrect header check); nothing read",
    ),
]


@pytest.mark.parametrize(
    ("blob", "spans", "note"), [c[1:] for c in GZ_MEMBERS], ids=[c[0] for c in GZ_MEMBERS]
)
def test_a_damaged_gz_member_keeps_what_decompresses(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    blob: bytes,
    spans: int,
    note: str | None,
) -> None:
    root = tmp_path / "run"
    root.mkdir()
    (root / "B.jsonl.1.gz").write_bytes(blob)
    (root / "B.jsonl").write_bytes(NEWEST)
    run = open_path(str(root / "B.jsonl"))[0]
    ix = build_index(run)
    assert (ix.stats.spans, ix.stats.bad_lines) == (spans + 1, 0)
    assert run.notes == ([note] if note else [])
    assert ix.ids[-1] == "newest"
    ix.close()
    assert temps(tmp_path) == []
    both_paths(root / "B.jsonl", monkeypatch)
    rc, out, err = run_cli(capsys, "summary", "--json", str(root))
    assert rc == 0 and json.loads(out)["spans"] == spans + 1
    assert err == (f"tracetui: run/B.jsonl: {note}\n" if note else "")
    assert temps(tmp_path) == []


def test_the_live_follower_keeps_what_decompresses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tail`` reads gz members through the same bounded decompressor (live/watch.spool)."""
    root = tmp_path / "run"
    root.mkdir()
    (root / "B.jsonl.1.gz").write_bytes(nlen_broken(stored(MEMBER)))
    (root / "B.jsonl").write_bytes(NEWEST)
    rc, out, err = run_cli(capsys, "tail", "--once", "--from-start", "--json", str(root))
    assert rc == 0 and "internal error" not in err
    assert len(out.splitlines()) == KEPT_ONE_BLOCK + 1
    assert temps(tmp_path) == []


# (id, decompressed content, limits set for the test, bytes kept, the note)
BOMBS: list[tuple[str, bytes, dict[str, int], int, str]] = [
    (
        "no-line-break-in-first-mib",  # 8 MiB of NULs: 4 MB of them made 4.3 GB and took 81 s
        b"\0" * (8 << 20),
        {},
        0,
        "B.jsonl.1.gz: no line break in the first 1 MiB of its decompressed data: not a JSON "
        "Lines trace (a gzip bomb?); not read",
    ),
    (
        "ratio",  # judged past RATIO_AFTER (1 MiB here): the second MiB stops it
        GOOD * 40_000,
        {"RATIO_AFTER": 1 << 20, "MAX_RATIO": 10},
        (2 << 20) // len(GOOD) * len(GOOD),
        "B.jsonl.1.gz: decompresses to over 10 times its size (a gzip bomb?), stopped after "
        "2,097,152 bytes; the {lines:,} complete lines before it are read",
    ),
]


@pytest.mark.parametrize(
    ("content", "limits", "kept", "note"), [c[1:] for c in BOMBS], ids=[c[0] for c in BOMBS]
)
def test_a_gzip_bomb_is_stopped_early_and_what_came_before_kept(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    content: bytes,
    limits: dict[str, int],
    kept: int,
    note: str,
) -> None:
    for name, value in limits.items():
        monkeypatch.setattr(gz, name, value)
    root = tmp_path / "run"
    root.mkdir()
    (root / "B.jsonl.1.gz").write_bytes(gzip.compress(content, 9))
    (root / "B.jsonl").write_bytes(NEWEST)
    run = open_path(str(root / "B.jsonl"))[0]
    ix = build_index(run)
    lines = kept // len(GOOD)
    assert os.path.getsize(ix.members[0].readable) == kept
    assert run.notes == [note.format(lines=lines)]
    assert (ix.stats.spans, ix.stats.bad_lines) == (lines + 1, 0)
    ix.close()
    assert temps(tmp_path) == []


def test_the_size_cap_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(gz.MAX_OUTPUT_ENV, "1")
    out = io.BytesIO()
    got = gz.gunzip_to(io.BytesIO(gzip.compress(GOOD * 5000)), out, "B.jsonl.1.gz")
    lines = (1 << 20) // len(GOOD)
    assert got == gz.Gunzipped(
        lines * len(GOOD),
        lines,
        "B.jsonl.1.gz: over the 1 MiB limit for one member (TRACETUI_GUNZIP_MAX_MIB); "
        f"the {lines:,} complete lines before it are read",
    )
    assert out.getvalue() == GOOD * lines


# ------------------------------------------------------------------------------ temp copies
class Interrupting(io.RawIOBase):
    """A .gz source that raises ``exc`` on its third read (Ctrl-C mid-decompression)."""

    def __init__(self, path: str, exc: BaseException) -> None:
        self.fh = open(path, "rb")  # noqa: SIM115 - closed in close()
        self.exc, self.reads = exc, 0

    def read(self, n: int = -1) -> bytes:
        self.reads += 1
        if self.reads == 3:
            raise self.exc
        return self.fh.read(min(n, 4096))

    def close(self) -> None:
        self.fh.close()
        super().close()


@pytest.mark.parametrize(
    "exc",
    [KeyboardInterrupt(), OSError(28, "No space left on device")],
    ids=["ctrl-c", "disk-full"],
)
def test_no_temp_copy_outlives_a_failed_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exc: BaseException
) -> None:
    root = tmp_path / "run"
    root.mkdir()
    (root / "B.jsonl.1.gz").write_bytes(gzip.compress(MEMBER))
    (root / "B.jsonl").write_bytes(NEWEST)
    monkeypatch.setattr(gz, "open_regular", lambda path: Interrupting(path, exc))
    run = open_path(str(root / "B.jsonl"))[0]
    if isinstance(exc, KeyboardInterrupt):
        with pytest.raises(KeyboardInterrupt) as caught:
            build_index(run)
        assert temps(tmp_path) == []  # while the traceback still holds the index
        del caught
    else:
        ix = build_index(run)  # a member that cannot be read is a note, the rest is read
        assert run.notes == ["B.jsonl.1.gz: cannot read: No space left on device"]
        assert ix.ids == ["newest"]
        ix.close()
        assert temps(tmp_path) == []


def test_a_cancelled_build_stops_and_cleans_up(tmp_path: Path) -> None:
    root = tmp_path / "run"
    root.mkdir()
    (root / "B.jsonl.1.gz").write_bytes(gzip.compress(MEMBER))
    (root / "B.jsonl").write_bytes(NEWEST * 10)
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return True

    with pytest.raises(gz.Cancelled):
        build_index(open_path(str(root / "B.jsonl"))[0], cancelled=cancelled)
    assert asked == [1] and temps(tmp_path) == []


# ------------------------------------------------------------------------------ member names
# (id, rotated member numbers present beside B.jsonl, the notes)
NUMBERS: list[tuple[str, list[str], list[str]]] = [
    (
        "ten-million",  # it cost 1.2 GB and a 99 MB "missing" line
        ["10000000"],
        ["B.jsonl.10000000: rotation number over 10,000: not read as a member"],
    ),
    (
        "two-hundred-digits",
        ["9" * 200],
        [f"B.jsonl.{'9' * 200}: rotation number over 10,000: not read as a member"],
    ),
    ("at-the-cap", ["10000"], ["rotation members missing: .1-.9999"]),
    ("gaps-as-runs", ["1", "3", "7", "9"], ["rotation members missing: .2, .4-.6, .8"]),
    ("two-in-a-row", ["3"], ["rotation members missing: .1, .2"]),
    (
        "many-gaps",
        [str(n) for n in range(2, 42, 2)],
        ["rotation members missing: .1, .3, .5, .7, .9, .11, .13, .15, and 12 more"],
    ),
]


@pytest.mark.parametrize(
    ("numbers", "notes"), [c[1:] for c in NUMBERS], ids=[c[0] for c in NUMBERS]
)
def test_member_numbers_are_capped_and_gaps_short(
    tmp_path: Path, numbers: list[str], notes: list[str]
) -> None:
    for n in numbers:
        (tmp_path / f"B.jsonl.{n}").write_bytes(encode_line(tool(f"m{n[:8]}")))
    (tmp_path / "B.jsonl").write_bytes(NEWEST)
    run = open_path(str(tmp_path / "B.jsonl"))[0]
    assert run.notes == notes
    read = [int(n) for n in numbers if int(n) <= 10_000]
    assert [m.number for m in run.members] == [*sorted(read, reverse=True), 0]


def test_a_named_file_past_the_cap_is_read_alone(tmp_path: Path) -> None:
    (tmp_path / "B.jsonl.10000000").write_bytes(GOOD)
    (tmp_path / "B.jsonl").write_bytes(NEWEST)
    (run,) = open_path(str(tmp_path / "B.jsonl.10000000"))
    assert run.notes == ["B.jsonl.10000000: rotation number over 10,000: read as a run of its own"]
    assert build_index(run).ids == ["good"]


# ------------------------------------------------------------------------------ not regular files
def bounded(fn: Any) -> Any:
    """``fn()`` on a thread: its result, or a failure saying it did not return (a FIFO's open
    blocks for ever, a device never ends) instead of a hung test run."""
    box: list[Any] = []
    t = threading.Thread(target=lambda: box.append(_outcome(fn)), daemon=True)
    t.start()
    t.join(20)
    assert box, "did not return: blocked on a FIFO or reading a device"
    if isinstance(box[0], BaseException):
        raise box[0]
    return box[0]


def _outcome(fn: Any) -> Any:
    try:
        return fn()
    except BaseException as exc:
        return exc


def test_open_regular_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "f")
    with pytest.raises(NotRegularFile, match=r"not a regular file \(a FIFO\)"):
        bounded(lambda: open_regular(str(tmp_path / "f")))


# (id, what to plant: name -> "fifo" | a device path to link to, path opened, notes or error)
SPECIAL: list[tuple[str, dict[str, str], str, list[str] | str]] = [
    (
        "fifo-member",
        {"B.jsonl.1": "fifo"},
        "B.jsonl",
        ["B.jsonl.1: not a regular file (a FIFO): skipped"],
    ),
    (
        "device-member",
        {"B.jsonl.1": "/dev/zero"},
        "B.jsonl",
        ["B.jsonl.1: not a regular file (a character device): skipped"],
    ),
    (
        "device-base-in-folder",
        {"B.jsonl": "/dev/zero", "B.jsonl.1": ""},
        ".",
        ["B.jsonl: not a regular file (a character device): skipped"],
    ),
    (
        "fifo-named",
        {"B.jsonl.1": "fifo"},
        "B.jsonl.1",
        "B.jsonl.1: not a regular file (a FIFO); only regular files are read",
    ),
    (
        "device-named",
        {"B.jsonl": "/dev/zero"},
        "B.jsonl",
        "B.jsonl: not a regular file (a character device); only regular files are read",
    ),
]


@pytest.mark.parametrize(
    ("plant", "opened", "outcome"), [c[1:] for c in SPECIAL], ids=[c[0] for c in SPECIAL]
)
def test_only_regular_files_are_read(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    plant: dict[str, str],
    opened: str,
    outcome: list[str] | str,
) -> None:
    monkeypatch.chdir(tmp_path)
    for name, what in plant.items():
        if what == "fifo":
            os.mkfifo(name)
        elif what:
            os.symlink(what, name)
        else:
            Path(name).write_bytes(GOOD)
    if "B.jsonl" not in plant:
        Path("B.jsonl").write_bytes(NEWEST)
    if isinstance(outcome, str):
        with pytest.raises(RunSetError) as caught:
            bounded(lambda: open_path(opened))
        assert str(caught.value) == outcome
        rc, _out, err = bounded(lambda: run_cli(capsys, "summary", opened))
        assert (rc, err) == (2, f"tracetui: {outcome}\n")
        return
    (run,) = bounded(lambda: open_path(opened))
    assert run.notes == outcome
    ix = bounded(lambda: build_index(run))
    assert ix.stats.spans == 1 and run.notes == outcome
    rc, _out, err = bounded(lambda: run_cli(capsys, "lint", opened))
    assert rc == 0 and err == f"tracetui: {run.name}: {outcome[0]}\n"


# ------------------------------------------------------------------------------ the line limit
# (id, the record's length in bytes without its newline, a span (True) or a bad line)
LONG_LINES = [
    ("at-the-limit", MAX_LINE, True),
    ("one-byte-over", MAX_LINE + 1, False),  # the C path counted it as a span
    ("17-MB", 17_000_000, False),
]


@pytest.mark.parametrize(
    ("length", "span"), [c[1:] for c in LONG_LINES], ids=[c[0] for c in LONG_LINES]
)
def test_one_line_limit_on_both_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, length: int, span: bool
) -> None:
    head = encode_line(tool("long", preview_stdout="")).rstrip(b"\n")
    filler = length - len(head) - len(', "pad": ""')
    line = head[:-1] + b', "pad": "' + b"x" * filler + b'"}\n'
    assert len(line) == length + 1
    path = tmp_path / "B.jsonl"
    path.write_bytes(GOOD + line + NEWEST)
    ix, _ = both_paths(path, monkeypatch)
    assert (ix.stats.spans, ix.stats.bad_lines) == ((3, 0) if span else (2, 1))
    if not span:
        limit = f"line of {length:,} bytes is over the 16 MiB limit; not parsed"
        assert ix.bad[1].reason == limit


# ------------------------------------------------------------------------------ .eval samples
def eval_with_samples(path: Path, broken: int | None) -> None:
    """An Inspect AI log of three samples (copies of the stored one); ``broken`` has its
    compressed data damaged."""
    src = zipfile.ZipFile(DATA / "inspect_log.eval")
    sample = json.loads(src.read("samples/task-1_epoch_1.json"))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("_journal/start.json", src.read("_journal/start.json"))
        for k in (1, 2, 3):
            z.writestr(f"samples/task-{k}_epoch_1.json", json.dumps({**sample, "id": f"task-{k}"}))
        z.writestr("header.json", src.read("header.json"))
    if broken is None:
        return
    data = bytearray(path.read_bytes())
    info = zipfile.ZipFile(path).getinfo(f"samples/task-{broken}_epoch_1.json")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    for i in range(start + 20, start + 60):
        data[i] ^= 0x55
    path.write_bytes(bytes(data))
    with pytest.raises(zlib.error):
        zipfile.ZipFile(path).read(info.filename)


def test_a_damaged_eval_sample_costs_that_sample_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    eval_with_samples(tmp_path / "good.eval", None)
    eval_with_samples(tmp_path / "bad.eval", broken=2)
    whole = build_index(open_path(str(tmp_path / "good.eval"))[0])
    run = open_path(str(tmp_path / "bad.eval"))[0]
    ix = build_index(run)
    per_sample = whole.stats.spans // 3
    assert ix.stats.spans == 2 * per_sample
    samples = {s.raw.get("sample") for s in (ix.span(r) for r in range(len(ix))) if s}
    assert samples == {"task-1/1", "task-3/1"}  # the one after the damage is kept too
    note = (
        f"inspect-ai import: {2 * per_sample} tool call(s) imported; 1 problem(s): "
        "samples/task-2_epoch_1.json: unreadable (corrupt compressed data: invalid code -- "
        "missing end-of-block), skipped"
    )
    assert run.notes == [note]
    rc, out, err = run_cli(capsys, "summary", "--json", str(tmp_path / "bad.eval"))
    assert rc == 0 and json.loads(out)["spans"] == 2 * per_sample
    assert err == f"tracetui: {run.name}: {note}\n"
