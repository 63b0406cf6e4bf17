"""The C scanner and the pure-Python path must build the same index, line for line."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool

from tracetui.store import fastindex
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="C scanner not built")

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"

# Lines chosen to hit every branch where the C path must defer to Python or agree with it.
EDGE_LINES: list[Any] = [
    tool("plain"),
    # Ids beyond ASCII (the scanner makes plain ASCII ids itself, the rest through the decoder),
    # and one-character ids of either kind.
    tool("é-id", parent_command_id="plain"),
    tool("日本語", parent_command_id="é-id"),
    tool("😀", parent_command_id="a"),
    tool("a", parent_command_id="é"),
    tool("é"),
    tool("mixed-ascii-then-ü"),
    tool(
        "cut",
        stdout_bytes=9000,
        stdout_truncated=True,
        stdout_head_bytes=8192,
        preview_stdout="x\n…[truncated 808 bytes]…\n",
    ),
    tool("lying", stdout_bytes=9000, stdout_truncated=False),
    tool("marker-only", preview_stdout="a\n…[truncated 77 bytes]…\n"),
    tool(
        "marker-no-bytes",
        stdout_bytes=None,
        stdout_truncated=None,
        preview_stdout="a\n…[truncated 7 bytes]…\n",
    ),
    tool("flag-no-cap", stdout_cap=None, stdout_truncated=True, stdout_bytes=50),
    tool(
        "flag-no-cap-marker",
        stdout_cap=None,
        stdout_truncated=True,
        stdout_bytes=50,
        preview_stdout="a\n…[truncated 7 bytes]…\n",
    ),
    tool("float-int", stdout_bytes=3.0),
    tool("str-exit", exit_code="1"),
    tool("huge-exit", exit_code=2**40),
    tool("neg-exit", exit_code=-9),
    tool("null-exit", exit_code=None, error="boom"),
    tool("", parent_command_id=""),
    tool("with-parent", parent_command_id="plain"),
    tool("plain"),  # a duplicate id
    tool('esc"id'),
    tool("unicode-id-é"),
    tool(7),
    tool("nested", extra={"exit_code": 5, "list": [1, [2, {"a": None}]]}),
    {
        "span_type": "tool",
        "argv": ["pytest"],
        "returncode": 3,
        "stdout_bytes": 10,
        "stdout_cap": 5,
        "stdout_truncated": True,
        "stderr_bytes": 0,
        "stderr_cap": 5,
        "stderr_truncated": False,
    },
    {"span_type": "tool", "argv": ["x"], "exit_code": 4, "returncode": None},
    {"argv": ["x"], "exit_code": 0, "preview_stdout": "hello"},
    {"command": ["make"], "stdout_tail": "a\n...truncated 3 lines...\n", "exit_code": 1},
    {"command": ["make"], "stdout_tail": "fine\n", "stderr_tail": None, "exit_code": 0},
    {"command": ["make"], "stdout_tail": 5, "exit_code": 0},
    {"schema": "import/codex", "argv": ["ls"], "exit_code": 0, "preview_stdout": "too long output"},
    {"schema": 3, "argv": ["ls"], "exit_code": 0},
    {"hello": "world"},
    "[1, 2]\n",
    "{not json\n",
    '{"a": "\\ud800"}\n',
    '{"schema": "tracetui/1", "argv": ["x"], "exit_code": 0, "preview_stdout": "\\ud83d\\ude00"}\n',
    '{"schema": "tracetui/1", "argv": ["x"], "exit_code": 0, "s\\u0063hema": 1}\n',
    b'{"schema": "tracetui/1", "argv": ["x"], "exit_code": 0, "preview_stdout": "caf\xe9"}\n',
    b'{"schema": "tracetui/1", "argv": ["x"], "exit_code": 0, "preview_stdout": "tab\there"}\n',
    "   \n",
    "\n",
    '{"schema": "tracetui/1", "argv": ["x"], "exit_code": 01}\n',
    '{"schema": "tracetui/1", "argv": ["x"], "exit_code": 1e2}\n',
    '{"schema": "tracetui/1", "argv": ["x"], "exit_code": -}\n',
    '{"schema": "tracetui/1", "argv": ["x"], "exit_code": 0} trailing\n',
    '  {"schema": "tracetui/1", "argv": ["x"], "exit_code": 0}  \n',
    '{"schema": "tracetui/1", "argv": ["x"], "exit_code": 0, "exit_code": 2}\n',
    '{"schema": "tracetui/1", "argv": ["x"], "exit_code": tru}\n',
    '{"schema":"tracetui/1","argv":["x"],"exit_code":0,"x":[' + "[" * 300 + "]" * 300 + "]}\n",
    '{"schema": "tracetui/1", "argv": ["x"], "exit_code": 0}',  # no newline at the end
]


def columns(ix: RunIndex) -> dict[str, Any]:
    return {
        "offset": list(ix.offset),
        "length": list(ix.length),
        "line_no": list(ix.line_no),
        "flags": list(ix.flags),
        "exit": list(ix.exit),
        "hidden": list(ix.hidden),
        "ids": ix.ids,
        "parents": ix.parent_ids,
        "id_rows": ix.id_rows,
        "duplicates": ix.duplicates,
        "bad": {r: (b.line, b.reason) for r, b in ix.bad.items()},
        "stats": ix.stats,
        "latest_failure": ix.latest_failure,
    }


def both(path: str, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], dict[str, Any]]:
    fast = columns(build_index(open_path(path)[0]))
    monkeypatch.setenv("TRACETUI_NO_C", "1")
    slow = columns(build_index(open_path(path)[0]))
    monkeypatch.delenv("TRACETUI_NO_C")
    return fast, slow


def test_edge_lines_agree(make_run: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_run({"B.jsonl": EDGE_LINES})
    fast, slow = both(str(root / "B.jsonl"), monkeypatch)
    for key in slow:
        assert fast[key] == slow[key], key


@pytest.mark.parametrize("run", ["flaky-billing", "silent-json", "rotated"])
def test_sample_runs_agree(run: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = both(str(SAMPLES / run), monkeypatch)
    assert fast == slow


def test_random_records_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    values = [None, 0, 1, -3, 8192, 9000, True, False, "x", 2.5, [], {}, "…[truncated 5 bytes]…"]
    keys = [
        "exit_code",
        "returncode",
        "stdout_bytes",
        "stdout_cap",
        "stdout_truncated",
        "stderr_bytes",
        "stderr_cap",
        "stderr_truncated",
        "preview_stdout",
        "stdout_head_bytes",
        "stdout_tail_bytes",
        "command_id",
        "parent_command_id",
        "stdout_tail",
        "command",
        "argv",
        "span_type",
        "schema",
    ]
    lines = []
    for _i in range(3000):
        rec = {k: rng.choice(values) for k in rng.sample(keys, rng.randint(1, len(keys)))}
        if rng.random() < 0.5:
            rec["schema"] = "tracetui/1"
        if rng.random() < 0.3:
            rec["span_type"] = "tool"
        if rng.random() < 0.7:
            rec["command_id"] = f"id{rng.randint(0, 2000)}"
        lines.append(json.dumps(rec, ensure_ascii=rng.random() < 0.5))
    (tmp_path / "B.jsonl").write_text("\n".join(lines) + "\n")
    fast, slow = both(str(tmp_path / "B.jsonl"), monkeypatch)
    for key in slow:
        assert fast[key] == slow[key], key


def test_chunk_boundaries_do_not_matter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"".join(
        encode_line(tool(f"r{i}", preview_stdout="y" * (i * 37 % 500))) for i in range(400)
    )
    (tmp_path / "B.jsonl").write_bytes(data)
    monkeypatch.setattr(fastindex, "CHUNK", 1000)
    fast, slow = both(str(tmp_path / "B.jsonl"), monkeypatch)
    assert fast == slow


def test_mutated_lines_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bytes flipped, dropped and inserted in real records: same verdicts, and no crash in C."""
    rng = random.Random(23)
    seeds = [encode_line(r) for r in EDGE_LINES[:20] if isinstance(r, dict)]
    alphabet = (
        b'"\\{}[],:0123456789-+.eEtrufalsn \t\x00\x1f\x7f\xc3\xa9\xe2\x80\xa6\xff\xed\xa0\x80u'
    )
    lines = []
    for _ in range(2500):
        line = bytearray(rng.choice(seeds).rstrip(b"\n"))
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(line) + 1)
            op = rng.random()
            if op < 0.4 and pos < len(line):
                line[pos] = rng.choice(alphabet)
            elif op < 0.7:
                line[pos:pos] = bytes([rng.choice(alphabet)])
            elif pos < len(line):
                del line[pos : pos + rng.randint(1, 8)]
        lines.append(bytes(line).replace(b"\n", b" ") + b"\n")
    (tmp_path / "B.jsonl").write_bytes(b"".join(lines))
    fast, slow = both(str(tmp_path / "B.jsonl"), monkeypatch)
    for key in slow:
        assert fast[key] == slow[key], key
