"""The C span writer on hostile lines: each is written exactly as the reference writes it, or
declined (and then written by the Python row writer, the same bytes).

Odd types, huge numbers, invalid UTF-8, escapes, control and bidi characters, lone surrogates,
missing fields, repeated and escaped keys; the C road must decline exactly the lines listed in
``DECLINED`` (else the comparison proves less than it seems). See test_otlp_row.py for the rest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from otlp_row_helpers import three_ways, write_lines
from records import Line, tool

from tracetui.export import otlp_fast

pytestmark = pytest.mark.skipif(otlp_fast._otlp_row is None, reason="C span writer not built")


@pytest.fixture(autouse=True)
def _cold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    monkeypatch.delenv("TRACETUI_NO_C", raising=False)


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
