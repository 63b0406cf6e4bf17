"""Issue 13: one bad value or file costs that record (or that member), never the run.

Absurd numbers, member names with absurd numbers, FIFOs and devices, a line just over the size
limit and a damaged ``.eval`` sample (gzip members: test_hostile_gzip.py). Each case states the
exact outcome (spans and bad lines counted, the note or reason word for word), every run is
indexed both by the C scanner and by the pure-Python path, which must agree, and the commands
run in-process through the real entry point.
"""

from __future__ import annotations

import json
import os
import threading
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import (
    both_paths,
    private_temp,  # noqa: F401 - an autouse fixture, used by being here
    run_cli,
)
from records import encode_line, tool

from tracetui.store.build import build_index
from tracetui.store.reader import MAX_LINE, NotRegularFile, open_regular
from tracetui.store.runset import RunSetError, open_path

DATA = Path(__file__).resolve().parents[1] / "data" / "agents"
GOOD = encode_line(tool("good"))
NEWEST = encode_line(tool("newest"))


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
