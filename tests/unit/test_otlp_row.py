"""The C span writer (export/_otlp_row.c) writes exactly the reference's bytes, or declines.

Three roads write a span of ``export --otlp-json``: the C extension for the ordinary shape of
record, the Python row writer (export/otlp_rows.py) for what C declines, the reference exporter
for what that declines. Every document here is written three ways (the reference
``otlp.write_json``; the fast writer with the C road; the fast writer with ``TRACETUI_NO_C=1``)
and the three must be byte for byte the same: on every fixture under tests/ and sample_runs/, on
a generated set shaped like the benchmark's, on random records, and on hostile lines (odd types,
huge numbers, invalid UTF-8, escapes, control and bidi characters, lone surrogates, missing
fields, repeated and escaped keys). The C road must also be the one taken for ordinary rows
(else the comparison proves little), and its pieces (sha256, times, string escaping) are checked
on their own against the Python functions they stand for.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from records import Line, encode_line, tool

from tracetui.export import otlp, otlp_fast, otlp_rows
from tracetui.model import markers
from tracetui.model.flags import BAD, SIDECAR, TRUNC_UNKNOWN, TRUNCATED
from tracetui.model.text import dump_json
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

pytestmark = pytest.mark.skipif(otlp_fast._otlp_row is None, reason="C span writer not built")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _cold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    monkeypatch.delenv("TRACETUI_NO_C", raising=False)


def three_ways(
    monkeypatch: pytest.MonkeyPatch, indexes: list[RunIndex], batch: int = otlp_fast.BATCH
) -> tuple[bytes, int]:
    """The document and how many rows the C road handed to Python, after checking that the
    three roads write the same bytes."""
    ref, fast, python = io.BytesIO(), io.BytesIO(), io.BytesIO()
    n = otlp.write_json(indexes, ref)
    handed = 0
    real = otlp_rows.RowWriter.row

    def counting(writer: otlp_rows.RowWriter, *args: Any) -> Any:
        nonlocal handed
        handed += 1
        return real(writer, *args)

    with monkeypatch.context() as m:
        m.setattr(otlp_rows.RowWriter, "row", counting)
        assert otlp_fast.write_json(indexes, fast, batch=batch) == n
    with monkeypatch.context() as m:
        m.setenv("TRACETUI_NO_C", "1")
        assert not otlp_fast.c_available()
        assert otlp_fast.write_json(indexes, python, batch=batch) == n
    assert fast.getvalue() == ref.getvalue()
    assert python.getvalue() == ref.getvalue()
    return fast.getvalue(), handed


def index_of(path: Path) -> RunIndex:
    return build_index(open_path(str(path))[0])


def write_lines(tmp_path: Path, lines: Sequence[Line], name: str = "R.jsonl") -> RunIndex:
    path = tmp_path / name
    path.write_bytes(b"".join(encode_line(x) for x in lines))
    return index_of(path)


# ------------------------------------------------------------------ the pieces on their own
def test_flag_copies_equal_the_model() -> None:
    row = otlp_fast._otlp_row
    assert (row.SKIP_FLAGS, row.MAY_MARK_FLAGS) == (BAD | SIDECAR, TRUNCATED | TRUNC_UNKNOWN)


@pytest.mark.parametrize("chars", [16, 32], ids=["span", "trace"])
def test_ids_equal_hashlib(chars: int) -> None:
    """Texts of every length around sha256's block boundaries (55, 56, 64, 119, 128 bytes)."""
    rng = random.Random(chars)
    for size in range(0, 200):
        prefix = bytes(rng.randrange(256) for _ in range(rng.randrange(30)))
        text = bytes(rng.randrange(256) for _ in range(size))
        want = hashlib.sha256(prefix + text).hexdigest()[:chars]
        assert otlp_fast._otlp_row.hex_id(prefix, text, chars) == want


STAMPS = [
    "2026-11-02T09:00:00Z",
    "2026-11-02T09:00:59.123456789Z",
    "2026-11-02T09:00:59.1234567891234Z",
    "2026-11-02T09:00:60Z",
    "2026-11-02 09:00:00.5+05:30",
    "2026-11-02T09:00:00.1234567891-0800",
    "2026-11-02t09:00:00z",
    "2026-11-02T09:00:00",
    "2026-11-02T09:00:00.Z",
    "2026-11-02T09:00:00Zx",
    "2026-11-02T09:00:00+0560",
    "2026-11-02T09:00:00+23:59",
    "2026-11-02T09:00:00+24:00",
    "2026-11-02T09:00:00+05:3",
    "2026-02-29T00:00:00Z",
    "2024-02-29T00:00:00Z",
    "2000-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2026-04-31T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-00-01T00:00:00Z",
    "2026-01-00T00:00:00Z",
    "2026-11-02T24:00:00Z",
    "2026-11-02T23:60:00Z",
    "0000-01-01T00:00:00Z",
    "0001-01-01T00:00:00Z",
    "1677-09-21T00:12:43.145224192Z",
    "1677-09-21T00:12:43.145224191Z",
    "2262-04-11T23:47:16.854775807Z",
    "2262-04-11T23:47:16.854775808Z",
    "9999-12-31T23:59:59.999999999-23:59",
    "1969-12-31T23:59:59.999Z",
    "2026-11-02X09:00:00Z",
    "2026-11-02T09:00:00 Z",
    " 2026-11-02T09:00:00Z",
    "\t\x1c2026-11-02T09:00:00.5Z\r\n\x0b\x0c\x1f ",
    "2026-11-02T09:00:00Z\x1b",
    " \n ",
    "yesterday",
    "",
]


@pytest.mark.parametrize("stamp", STAMPS, ids=[s or "empty" for s in STAMPS])
def test_times_equal_unix_nanos(stamp: str) -> None:
    got = otlp_fast._otlp_row.nanos(stamp.encode())
    want = otlp.unix_nanos(stamp)
    if got == "python":  # undecided (outside 64 bits): the row goes to Python
        assert want is not None and not -(2**63) <= want < 2**63
    else:
        assert got == want


@pytest.mark.parametrize(
    "stamp", ["٢٠٢٦-11-02T09:00:00Z", "2026-11-02T09:00:00Z\u2003", "\xa02026-11-02T09:00:00Z"]
)
def test_times_c_does_not_judge(stamp: str) -> None:
    """Unicode digits and whitespace are Python's to read (\\d, strip())."""
    assert otlp_fast._otlp_row.nanos(stamp.encode()) == "python"


def test_random_times_equal_unix_nanos() -> None:
    rng = random.Random(3)
    parts = ["2026", "-", "11", "02", "T", "t", " ", ":", "09", "60", "99", ".", "5", "123456789"]
    parts += ["Z", "z", "+", "-", "05:30", "0800", "1", "0"]
    for _ in range(3000):
        stamp = "".join(rng.choice(parts) for _ in range(rng.randrange(4, 14)))
        if rng.random() < 0.5:
            stamp = f"20{rng.randrange(100):02}-{rng.randrange(14):02}-{rng.randrange(33):02}T"
            stamp += f"{rng.randrange(25):02}:{rng.randrange(61):02}:{rng.randrange(62):02}"
            stamp += rng.choice(["", ".", ".1", ".000000001999"]) + rng.choice(["", "Z", "+01:00"])
        got = otlp_fast._otlp_row.nanos(stamp.encode())
        assert got == "python" or got == otlp.unix_nanos(stamp), stamp


TEXTS = [
    "",
    "plain",
    'quote " and backslash \\ and slash /',
    "".join(chr(c) for c in range(0x20)),
    "del \x7f c1 \x85 \x9b csi",
    "bidi \u202e \u2066 \u061c zero-width \u200b \u2060 \ufeff \ufff9 lines \u2028 \u2029",
    "tags \U000e0041\U000e007f and \U000e0080",
    "emoji \U0001f600 cjk 漢字 é",
    "nbsp \xa0 and \u180e",
]


@pytest.mark.parametrize("text", TEXTS, ids=[f"t{n}" for n in range(len(TEXTS))])
def test_strings_escape_as_dump_json(text: str) -> None:
    assert otlp_fast._otlp_row.text_json(text.encode()) == dump_json(text)


def test_every_code_point_escapes_as_dump_json() -> None:
    points = [*range(0, 0x3000), *range(0xE000, 0x10000), *range(0xE0000, 0xE0100), 0x10FFFF]
    text = "".join(chr(c) for c in points if not 0xD800 <= c <= 0xDFFF)
    assert otlp_fast._otlp_row.text_json(text.encode()) == dump_json(text)


# ------------------------------------------------------------------ whole documents
def _fixture_paths() -> list[Path]:
    found = [p for p in (ROOT / "tests").rglob("*") if p.is_file() and ".jsonl" in p.name]
    found += [ROOT / "sample_runs" / r for r in ("flaky-billing", "silent-json", "rotated")]
    agents = ROOT / "tests" / "data" / "agents"
    found += [p for p in agents.iterdir() if p.suffix not in (".py", ".txt")]
    return sorted(set(found))


FIXTURES = _fixture_paths()


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(ROOT)) for p in FIXTURES])
def test_fixtures_three_ways(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    three_ways(monkeypatch, [index_of(path)])


def test_benchmark_shaped_set(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A small set from benchmarks/make_big_set.py (the figures' data): all C, all the same."""
    script = ROOT / "benchmarks" / "make_big_set.py"
    subprocess.run(
        [sys.executable, str(script), "--spans", "3000", "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    base = min((p for p in tmp_path.iterdir()), key=lambda p: len(p.name))
    doc, handed = three_ways(monkeypatch, [index_of(base)], batch=250)
    assert doc.count(b'"spanId"') > 2900
    assert handed == 0


# ------------------------------------------------------------------ random records
MARKED = [
    "a\n…[truncated 808 bytes]…\nz",
    "…[truncated 99999999999999999999999999999999 bytes]…",
    "…[truncated ١٢ bytes]… then …[truncated 5 bytes]…",
    "x ...truncated 12 lines... y",
    "head\n\n... [42 characters truncated] ...\n\ntail",
    "Output too large (12.5KB). Preview (first 2KB):\nabc\n...\n</persisted-output>",
    "<response clipped><NOTE>Observations should not exceeded 100 characters",
    "the word truncated alone, clipped, elided, omitted",
]
POOLS: dict[str, list[Any]] = {
    "int": [0, 1, -1, 2, 7, 9000, 8192, -9, 2**31, 2**53, 2**62, 2**63 - 1, -(2**63), 2**63],
    "float": [0.0, -0.0, 1.5, 3.0, 1e-9, 12.345678901234567, 1e15, 2.0**53 + 2, 1e300, -2.5],
    "bool": [True, False],
    "str": [*TEXTS, "head", "tail", "head_tail", "middle", "submission", *MARKED],
    "list": [[], ["a"], ["/usr/bin/env", "python3"], ["a", 1], [["x"]], ["é\u202e", "\x7f"]],
    "null": [None],
    "other": [{}, {"a": [1, {"b": None}]}, 2**64, 10**30, "12", "shell string"],
}
TYPED = {
    "command_id": "str",
    "parent_command_id": "str",
    "tool_name": "str",
    "cwd": "str",
    "started_at": "str",
    "error": "str",
    "agent_note": "str",
    "encoding": "str",
    "argv": "list",
    "command": "list",
    "exit_code": "int",
    "returncode": "int",
    "redacted": "int",
    "ok_preview": "bool",
    "duration_ms": "float",
    "kind": "str",
    "span_type": "str",
    "schema": "str",
    **{
        f"{k.format(s=s)}": t
        for s in ("stdout", "stderr")
        for k, t in [
            ("{s}_bytes", "int"),
            ("{s}_cap", "int"),
            ("{s}_truncated", "bool"),
            ("preview_{s}", "str"),
            ("{s}_head_bytes", "int"),
            ("{s}_tail_bytes", "int"),
            ("{s}_clip", "str"),
            ("{s}_full_sha256", "str"),
            ("{s}_items", "int"),
            ("preview_{s}_items", "int"),
            ("{s}_tail", "str"),
        ]
    },
}
STARTS = [
    "2026-11-02T09:00:00Z",
    "2026-11-02T09:00:01.25+01:00",
    "bad",
    "",
    " 2026-11-02T09:00:00Z",
]


def _string(rng: random.Random, text: str) -> str:
    """A JSON string for text, sometimes with every character (or a few) written as escapes."""
    mode = rng.random()
    if mode < 0.75:
        return json.dumps(text, ensure_ascii=rng.random() < 0.3)
    out = []
    for ch in text:
        if mode < 0.9 and rng.random() < 0.7:
            out.append(json.dumps(ch, ensure_ascii=False)[1:-1])
        else:
            code = ord(ch)
            if code > 0xFFFF:
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}" if rng.random() < 0.5 else f"\\u{code:04X}")
    return '"' + "".join(out) + '"'


def _dump(rng: random.Random, value: Any, escape_keys: bool = False) -> str:
    """JSON text for value, with random spacing and escapes (keys too when asked)."""
    comma, colon = rng.choice([(",", ":"), (", ", ": "), (" ,\t", " :\r\n ")])
    if isinstance(value, str):
        return _string(rng, value)
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        keys = [_string(rng, k) if escape_keys else json.dumps(k) for k, _ in items]
        body = comma.join(
            f"{k}{colon}{_dump(rng, v)}" for k, (_, v) in zip(keys, items, strict=True)
        )
        return "{" + body + "}"
    if isinstance(value, list):
        return "[" + comma.join(_dump(rng, v) for v in value) + "]"
    return json.dumps(value)


def random_record(rng: random.Random, i: int) -> dict[str, Any]:
    kind = rng.random()
    rec: dict[str, Any]
    if kind < 0.5:
        rec = tool(f"c{i}", started_at=rng.choice(STARTS), duration_ms=rng.choice([0, 12, 1.5]))
    elif kind < 0.7:
        rec = {"command": ["make"], "stdout_tail": rng.choice(MARKED), "exit_code": 1}
    elif kind < 0.85:
        rec = {"span_type": "tool", "argv": ["pytest"], "returncode": 0, "stdout_bytes": 10}
    else:
        rec = {"schema": rng.choice(["import/x", "tracetui/2", "import/feedback-record"])}
    if rng.random() < 0.8:
        rec["command_id"] = rng.choice([f"c{i}", f"c{i // 3}", ""])
    if i and rng.random() < 0.3:
        rec["parent_command_id"] = rng.choice([f"c{rng.randrange(i)}", "gone", ""])
    for _ in range(rng.choice([0, 0, 0, 1, 2, 8])):
        key = rng.choice(list(TYPED))
        if rng.random() < 0.1:
            rec.pop(key, None)
            continue
        pool = TYPED[key] if rng.random() < 0.8 else rng.choice(list(POOLS))
        rec[key] = rng.choice(POOLS[pool])
    return rec


@pytest.mark.parametrize("seed", range(4))
def test_random_records_three_ways(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    lines = []
    for i in range(700):
        rec = random_record(rng, i)
        lines.append((_dump(rng, rec, escape_keys=rng.random() < 0.03) + "\n").encode())
    doc, handed = three_ways(monkeypatch, [write_lines(tmp_path, lines)], batch=rng.choice([1, 64]))
    spans = doc.count(b'"spanId"')
    assert spans > 500
    assert 0 < handed < spans // 2  # both roads taken, the C one mostly


# ------------------------------------------------------------------ hostile lines
def _rec(**fields: Any) -> bytes:
    return json.dumps(tool("h", **fields)).encode()


BASE = _rec()[:-1]  # an ordinary record, open at its end for a field to be added


def _with(raw: bytes, *drop: str) -> bytes:
    """An ordinary record without the fields ``drop``, with ``raw`` JSON text added."""
    rec = tool("h")
    for key in drop:
        rec.pop(key)
    return json.dumps(rec).encode()[:-1] + b", " + raw + b"}"


HOSTILE: list[tuple[str, bytes]] = [
    ("invalid-utf8", BASE + b', "x": "\xff\xfe"}'),
    ("overlong-utf8", BASE + b', "x": "\xc0\xaf"}'),
    ("utf8-surrogate", BASE + b', "x": "\xed\xa0\x80"}'),
    ("past-10ffff", BASE + b', "x": "\xf4\x90\x80\x80"}'),
    ("truncated-utf8", BASE + b', "x": "\xe2\x80"}'),
    ("lone-high-escape", BASE + b', "x": "\\ud800"}'),
    ("lone-low-escape", BASE + b', "x": "\\udc00"}'),
    ("reversed-pair", BASE + b', "x": "\\udc00\\ud800"}'),
    ("pair-escape", _with(b'"tool_name": "\\ud83d\\ude00 \\udb40\\udc41"', "tool_name")),
    ("escaped-key", BASE + b', "\\u0065xit_code": 3}'),
    ("repeated-key", BASE + b', "exit_code": 3}'),
    ("repeated-unknown-key", BASE + b', "x": 1, "x": 2}'),
    ("deep-nesting", BASE + b', "x": ' + b"[" * 70 + b"]" * 70 + b"}"),
    ("deeper-nesting", BASE + b', "x": ' + b"[" * 2000 + b"]" * 2000 + b"}"),
    ("bom", b"\xef\xbb\xbf" + _rec()),
    ("trailing-garbage", _rec() + b" x"),
    ("trailing-comma", BASE + b", }"),
    ("crlf-and-tabs", b"\t " + _rec().replace(b", ", b",\t\r\n ") + b"\r"),
    ("raw-control", _with(b'"tool_name": "a\x01b"', "tool_name")),
    ("raw-del-c1-bidi", _rec(tool_name="a\x7f\x85\u202e\u2066\U000e0041b", cwd="\u200b")),
    (
        "escaped-unsafe",
        _with(b'"agent_note": "\\u007f\\u0085\\u202e\\u0000\\u001b\\/"', "agent_note"),
    ),
    ("bad-escape", BASE + b', "x": "\\x41"}'),
    ("top-array", b'[{"schema": "tracetui/1"}]'),
    ("top-number", b"12"),
    ("top-string", b'"tracetui/1"'),
    ("empty-object", b"{}"),
    ("no-dialect", b'{"command_id": "z", "tool_name": "x"}'),
    ("missing-fields", b'{"argv": ["x"], "exit_code": 0}'),
    ("only-span-type", b'{"span_type": "tool"}'),
    ("escaped-span-type", b'{"span_type": "t\\u006fol", "command_id": "e"}'),
    ("escaped-schema", b'{"schema": "tracetui\\/1", "argv": ["x"]}'),
    ("schema-number", b'{"schema": 1, "argv": ["x"], "exit_code": 0}'),
    ("schema-newer", _rec(schema="tracetui/9")),
    ("schema-import-feedback", b'{"schema": "import/feedback-record", "command": ["m"]}'),
    ("schema-import-empty", b'{"schema": "import/", "argv": ["m"]}'),
    ("int-64", _rec(exit_code=2**63 - 1, redacted=-(2**63))),
    ("int-past-64", _rec(exit_code=2**64, stdout_bytes=10**30)),
    ("int-as-float", _rec(exit_code=3.0, redacted=1e2)),
    ("minus-zero", _with(b'"exit_code": -0', "exit_code")),
    ("leading-zero", BASE + b', "x": 01}'),
    ("float-forms", _with(b'"duration_ms": 1E2, "x": [0.5e-3, -1.25E+3]', "duration_ms")),
    ("float-inf", _with(b'"duration_ms": 1e400', "duration_ms")),
    ("duration-huge", _rec(duration_ms=1e300)),
    ("duration-2-53", _rec(duration_ms=2**53 + 1)),
    ("duration-negative", _rec(duration_ms=-5.5)),
    ("duration-text", _rec(duration_ms="12")),
    ("duration-tiny", _rec(duration_ms=1e-7)),
    ("nan", _with(b'"duration_ms": NaN', "duration_ms")),
    ("hidden-overflow", _rec(stdout_bytes=2**62, stdout_cap=-(2**62), stdout_truncated=True)),
    ("windows-overflow", _rec(stdout_bytes=2**62, stdout_head_bytes=-(2**62), stdout_tail_bytes=1)),
    ("negative-bytes", _rec(stdout_bytes=-5, stdout_cap=10, stdout_truncated=True)),
    ("marker-huge-count", _rec(preview_stdout="…[truncated 99999999999999999999 bytes]…")),
    ("marker-arabic-digits", _rec(preview_stdout="…[truncated ١٢ bytes]…", stdout_bytes=None)),
    (
        "marker-escaped",
        _with(b'"preview_stderr": "\\u2026[truncated 5 bytes]\\u2026"', "preview_stderr"),
    ),
    ("argv-long", _rec(argv=[f"a{n}" for n in range(300)], tool_name=None)),
    ("argv-mixed", _rec(argv=["a", 1, None], tool_name=None)),
    ("argv-string", _rec(argv="ls -l", tool_name=None)),
    ("argv-slash", _rec(argv=["/usr/bin/"], tool_name="")),
    ("argv-escaped", BASE.replace(b'"argv": ["echo", "hi"]', b'"argv": ["\\/bin\\/e\\u0063ho"]')),
    ("ids-numbers", _rec(command_id=7, parent_command_id=7)),
    ("ids-empty", _rec(command_id="", parent_command_id="")),
    ("ids-escaped", BASE.replace(b'"command_id": "h"', b'"command_id": "h\\u00e9\\n"')),
    ("started-odd", _rec(started_at="\u00a02026-11-02T09:00:00Z")),
    ("started-number", _rec(started_at=20261102)),
    ("kind-list", _rec(kind=["submission"])),
    ("clip-number", _rec(stdout_clip=3, stdout_truncated=True)),
    ("ok-preview-text", _rec(ok_preview="yes")),
]


# What the C road declines (Python reads it); every other hostile line it writes itself, or
# the index found no span there (a bad line).
DECLINED = {
    *("invalid-utf8", "overlong-utf8", "utf8-surrogate", "past-10ffff", "truncated-utf8"),
    *("escaped-key", "repeated-key", "deep-nesting", "schema-number", "started-odd"),
    *("int-64", "int-past-64", "int-as-float", "hidden-overflow", "windows-overflow"),
    *("duration-huge", "duration-2-53", "duration-text", "started-number", "ids-numbers"),
    *("argv-long", "argv-mixed", "argv-string", "clip-number", "ok-preview-text"),
}


def test_hostile_lines_three_ways(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Each hostile line between ordinary ones (the clock and ids carry across roads)."""
    lines: list[Line] = [tool("first")]
    for n, (_, line) in enumerate(HOSTILE):
        lines += [line + b"\n", tool(f"o{n}", parent_command_id="h", started_at=None)]
    _, handed = three_ways(monkeypatch, [write_lines(tmp_path, lines)], batch=5)
    assert handed == len(DECLINED)


@pytest.mark.parametrize(("case", "line"), HOSTILE, ids=[c for c, _ in HOSTILE])
def test_each_hostile_line_three_ways(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, case: str, line: bytes
) -> None:
    lines = [tool("h"), line + b"\n", tool("z")]
    _, handed = three_ways(monkeypatch, [write_lines(tmp_path, lines)])
    assert handed == (case in DECLINED)


def test_iter_span_json_is_the_documents_spans(tmp_path: Path) -> None:
    """The per-span iterator (the OTLP/HTTP sender's source) gives the document's spans."""
    rng = random.Random(9)
    lines = [(_dump(rng, random_record(rng, i)) + "\n").encode() for i in range(300)]
    ix = write_lines(tmp_path, lines)
    doc = io.BytesIO()
    otlp_fast.write_json([ix], doc)
    spans = json.loads(doc.getvalue())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert [json.loads(s) for s in otlp_fast.iter_span_json(ix)] == spans
    assert b",".join(otlp_fast.iter_span_json(ix)) in doc.getvalue()


# ------------------------------------------------------------------ tracetui's marker in C
OWN_MARKERS = [
    # (case, preview text, whether C reads it alone: else it asks find_marker)
    ("plain", "a\n…[truncated 808 bytes]…\nz", True),
    ("second-occurrence", "…[truncated x]… then …[truncated 7 bytes]…", True),
    ("no-digits", "…[truncated  bytes]… and the word truncated", False),
    ("digits-to-end", "…[truncated 12", False),
    ("other-family-first", "<response clipped> …[truncated 9 bytes]…", True),
    ("other-family-only", "x ...truncated 12 lines... y", False),
    ("digits-19", "…[truncated 9223372036854775807 bytes]…", True),
    ("digits-19-past", "…[truncated 9223372036854775808 bytes]…", True),
    ("digits-30", "…[truncated " + "9" * 30 + " bytes]…", True),
    ("digits-31", "…[truncated " + "9" * 31 + " bytes]…", True),
    ("zeros", "…[truncated 000 bytes]…", True),
    ("unicode-digit", "…[truncated ١٢ bytes]…", False),
    ("unicode-after-digits", "…[truncated 1٢ bytes]…", False),
    ("unicode-then-own", "…[truncated …[truncated 5 bytes]…", False),
]


@pytest.mark.parametrize(("case", "text", "alone"), OWN_MARKERS, ids=[c[0] for c in OWN_MARKERS])
def test_own_marker_three_ways(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, case: str, text: str, alone: bool
) -> None:
    """C finds tracetui's marker itself; for anything else in a hinted text it asks Python."""
    lines = [
        tool("a", preview_stdout=text, stdout_bytes=None, stdout_truncated=None),
        tool("b", preview_stderr=text, stderr_bytes=100, stderr_cap=10),
        {"command": ["make"], "stdout_tail": text, "stderr_tail": text, "exit_code": 0},
    ]
    ix = write_lines(tmp_path, lines)
    asked = 0
    real = markers.find_marker

    def counting(text: str) -> Any:
        nonlocal asked
        asked += 1
        return real(text)

    monkeypatch.setattr(markers, "find_marker", counting)  # what the C road calls back
    _, handed = three_ways(monkeypatch, [ix])
    assert (handed, asked == 0) == (0, alone)


def test_a_member_name_that_is_no_utf8(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An undecodable file name (a lone surrogate in the path): Python's road, same bytes."""
    name = os.fsencode(tmp_path) + b"/R\xff.jsonl"
    with open(name, "wb") as fh:
        fh.write(b"".join(encode_line(tool(f"c{i}", parent_command_id="c0")) for i in range(3)))
    doc, handed = three_ways(monkeypatch, [index_of(Path(os.fsdecode(name)))])
    assert (doc.count(b'"spanId"'), handed) == (6, 3)  # three spans, three links


def test_one_row_at_a_time_equals_the_runs(tmp_path: Path) -> None:
    """``Rows.span`` (one row) gives the bytes ``Rows.run`` joins, or None where it declines."""
    rng = random.Random(12)
    lines = [(_dump(rng, random_record(rng, i)) + "\n").encode() for i in range(200)]
    ix = write_lines(tmp_path, lines)
    crows = otlp_fast._c_rows(ix, otlp_rows.RowWriter(ix))
    path_json = otlp_fast._path_json(ix.members[0].member.path)
    data = (tmp_path / "R.jsonl").read_bytes()
    singles = []
    for row in range(len(ix)):
        line = data[ix.offset[row] : ix.offset[row] + ix.length[row]]
        if not ix.flags[row] & (BAD | SIDECAR):
            may_mark = ix.flags[row] & (TRUNCATED | TRUNC_UNKNOWN)
            singles.append(crows.span(row, line, may_mark, path_json, ix.line_no[row]))
    crows = otlp_fast._c_rows(ix, otlp_rows.RowWriter(ix))
    spans: list[bytes | None] = []
    row, columns = 0, (ix.offset, ix.length, ix.flags, ix.member_no, ix.line_no)
    while row < len(ix):
        out: list[bytes] = []
        done, n = crows.run(data, 0, row, len(ix), 0, path_json, out, 50, *columns)
        assert n == len(out)
        spans += out
        if done == row:  # declined: what Python would read, here None
            if not ix.flags[row] & (BAD | SIDECAR):
                spans.append(None)
            row += 1
        else:
            row = done
    assert singles == spans
    assert singles.count(None) < len(singles) // 2


@pytest.mark.parametrize("switch", ["TRACETUI_NO_C", "TRACETUI_NO_C_OTLP"])
def test_switches_turn_the_c_road_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, switch: str
) -> None:
    ix = write_lines(tmp_path, [tool(f"c{i}") for i in range(5)])
    ref, off = io.BytesIO(), io.BytesIO()
    otlp.write_json([ix], ref)
    monkeypatch.setenv(switch, "1")
    assert not otlp_fast.c_available()
    handed = 0
    real = otlp_rows.RowWriter.row

    def counting(writer: otlp_rows.RowWriter, *args: Any) -> Any:
        nonlocal handed
        handed += 1
        return real(writer, *args)

    monkeypatch.setattr(otlp_rows.RowWriter, "row", counting)
    otlp_fast.write_json([ix], off)
    assert (off.getvalue(), handed) == (ref.getvalue(), 5)
