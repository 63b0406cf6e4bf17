"""SPEC §6: every kind of bad input gets a clear message and loses nothing else."""

from __future__ import annotations

import gzip
import io
import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool

from tracetui.model.flags import BAD
from tracetui.store.build import build_index
from tracetui.store.reader import iter_lines
from tracetui.store.runset import open_path

GOOD = encode_line(tool("before"))
AFTER = encode_line(tool("after"))

# (case id, the bad line's bytes, the reason reported)
BAD_LINES: list[tuple[str, bytes, str]] = [
    ("malformed-json", b'{"schema": "tracetui/1", \n', "malformed JSON"),
    ("not-an-object", b"[1, 2, 3]\n", "expected a JSON object, got list"),
    (
        "unknown-record",
        b'{"hello": "world"}\n',
        "not a span record of any known dialect (keys: hello)",
    ),
    ("binary-garbage", b"\x00\x01\x02\xff\n", "malformed JSON"),
]


@pytest.mark.parametrize(
    ("line", "reason"), [c[1:] for c in BAD_LINES], ids=[c[0] for c in BAD_LINES]
)
def test_bad_line_is_a_row_and_reading_goes_on(make_run: Any, line: bytes, reason: str) -> None:
    root = make_run({"B.jsonl": [GOOD, line, AFTER]})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    assert [ix.ids[0], ix.ids[2]] == ["before", "after"]
    assert ix.flags[1] & BAD
    assert reason in ix.bad[1].reason
    assert ix.bad[1].line == 2


def test_truncated_last_line(make_run: Any) -> None:
    root = make_run({"B.jsonl": [GOOD, b'{"schema": "tracetui/1", "argv": ["x"']})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    assert ix.stats.spans == 1
    assert ix.bad[1].reason.startswith("truncated line (no newline at end of file)")


def test_invalid_utf8_is_replaced_and_noted(make_run: Any) -> None:
    rec = encode_line(tool("u", preview_stdout="caf\u00e9")).replace(b"caf\\u00e9", b"caf\xe9")
    root = make_run({"B.jsonl": [rec]})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    span = ix.span(0)
    assert span is not None and span.stdout.preview == "caf\ufffd"
    assert "invalid UTF-8 (replaced with U+FFFD)" in span.problems


def test_wrong_field_types_keep_the_span(make_run: Any) -> None:
    root = make_run({"B.jsonl": [tool("w", exit_code="1", stdout_bytes=[1])]})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    span = ix.span(0)
    assert span is not None and span.exit_code is None
    assert len(span.problems) == 2


def test_huge_single_line_is_reported_with_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "B.jsonl"
    with open(path, "wb") as fh:
        fh.write(GOOD)
        fh.write(b'{"preview_stdout": "')
        block = b"x" * (1 << 20)
        for _ in range(100):  # a 100 MB single line
            fh.write(block)
        fh.write(b'"}\n')
        fh.write(AFTER)
    tracemalloc.start()
    ix = build_index(open_path(str(path))[0])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert ix.ids[0] == "before" and ix.ids[2] == "after"
    assert ix.bad[1].reason == "line of 104,857,622 bytes is over the 16 MiB limit; not parsed"
    assert peak < 40 << 20, f"peak {peak / 1e6:.0f} MB"


def test_empty_file(make_run: Any) -> None:
    root = make_run({"B.jsonl": []})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    assert len(ix) == 0 and ix.stats.spans == 0


def test_blank_lines_are_skipped(make_run: Any) -> None:
    root = make_run({"B.jsonl": [GOOD, b"\n", b"   \n", AFTER]})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    assert ix.ids == ["before", "after"]
    assert ix.location(1)[1] == 4


def test_corrupt_gz_member_is_noted_and_others_read(make_run: Any) -> None:
    root = make_run({"B.jsonl": [AFTER], "B.jsonl.1": [GOOD]})
    (root / "B.jsonl.2.gz").write_bytes(b"this is not gzip")
    run = open_path(str(root / "B.jsonl"))[0]
    ix = build_index(run)
    assert ix.ids == ["before", "after"]
    assert any(n.startswith("B.jsonl.2.gz: ") for n in run.notes)


def test_truncated_gz_member_keeps_what_it_can(make_run: Any) -> None:
    root = make_run({"B.jsonl": [AFTER]})
    data = gzip.compress(GOOD * 50)
    (root / "B.jsonl.1.gz").write_bytes(data[: len(data) // 2])
    run = open_path(str(root / "B.jsonl"))[0]
    ix = build_index(run)
    assert ix.ids[-1] == "after"
    assert any(n.startswith("B.jsonl.1.gz: ") for n in run.notes)


def test_member_rotated_away_after_indexing(make_run: Any) -> None:
    root = make_run({"B.jsonl": [GOOD, AFTER]})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    os.unlink(root / "B.jsonl")
    got = ix.get(1)
    assert "rotated away?" in getattr(got, "reason", "")


def test_iter_lines_handles_lines_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    import tracetui.store.reader as reader

    monkeypatch.setattr(reader, "CHUNK", 3)
    data = b"a\nbbbbbbb\n\nccc"
    got = [(r.line_no, r.offset, r.data, r.complete) for r in iter_lines(io.BytesIO(data))]
    assert got == [
        (1, 0, b"a", True),
        (2, 2, b"bbbbbbb", True),
        (3, 10, b"", True),
        (4, 11, b"ccc", False),
    ]
