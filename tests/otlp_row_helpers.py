"""Shared by the C span writer's tests (tests/unit/test_otlp_row*.py): the three-ways check
and generators of random records.

``three_ways`` writes a document three ways (the reference ``otlp.write_json``; the fast writer
with the C road; the fast writer with ``TRACETUI_NO_C=1``), checks the three are byte for byte
the same and says how many rows the C road handed to Python. The random records are shaped like
the ones agents write, with odd types, spacing and escapes mixed in.
"""

from __future__ import annotations

import io
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from records import Line, encode_line, tool

from tracetui.export import otlp, otlp_fast, otlp_rows
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

ROOT = Path(__file__).resolve().parents[1]


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


def json_string(rng: random.Random, text: str) -> str:
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


def json_text(rng: random.Random, value: Any, escape_keys: bool = False) -> str:
    """JSON text for value, with random spacing and escapes (keys too when asked)."""
    comma, colon = rng.choice([(",", ":"), (", ", ": "), (" ,\t", " :\r\n ")])
    if isinstance(value, str):
        return json_string(rng, value)
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        keys = [json_string(rng, k) if escape_keys else json.dumps(k) for k, _ in items]
        body = comma.join(
            f"{k}{colon}{json_text(rng, v)}" for k, (_, v) in zip(keys, items, strict=True)
        )
        return "{" + body + "}"
    if isinstance(value, list):
        return "[" + comma.join(json_text(rng, v) for v in value) + "]"
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
