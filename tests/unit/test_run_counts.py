"""The run picker's counts (tracetui/analysis/run_counts.py): whole, partial or not counted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from records import encode_line, tool

from tracetui.analysis.run_counts import RunCounts, count_run, run_times
from tracetui.store.runset import open_paths

CLAUDE = Path(__file__).resolve().parents[1] / "data" / "agents" / "claude_session.jsonl"


def own_run(folder: Path, n: int) -> Path:
    path = folder / "run.jsonl"
    records = [tool(f"id-{i}", exit_code=1 if i % 4 == 0 else 0) for i in range(n)]
    path.write_bytes(b"".join(encode_line(r) for r in records))
    return path


@pytest.mark.parametrize(
    ("kind", "max_bytes", "expected"),
    [
        ("own", 1 << 20, RunCounts(40, 10, 0, "tracetui/1")),
        ("claude", 100, RunCounts(None, None, None, "claude-code", note="not counted: 0 MiB")),
    ],
    ids=["own-whole", "foreign-too-big"],
)
def test_count_run(tmp_path: Path, kind: str, max_bytes: int, expected: RunCounts) -> None:
    path = own_run(tmp_path, 40) if kind == "own" else tmp_path / "s.jsonl"
    if kind == "claude":
        shutil.copy(CLAUDE, path)
    run = open_paths([str(path)])[0]
    got = count_run(run, max_bytes=max_bytes)
    assert got is not None
    assert got == expected
    assert run.notes == []  # counting leaves the run's notes to the viewer's own build


def test_a_foreign_session_is_counted_as_summary_counts_it(tmp_path: Path) -> None:
    from tracetui.analysis.summary import summarize
    from tracetui.store.build import build_index

    shutil.copy(CLAUDE, tmp_path / "s.jsonl")
    run = open_paths([str(tmp_path / "s.jsonl")])[0]
    facts = summarize(build_index(open_paths([str(tmp_path / "s.jsonl")])[0]))
    got = count_run(run)
    assert got == RunCounts(facts["spans"], facts["failed"], facts["truncated"], "claude-code")


def test_a_big_run_of_our_own_is_counted_over_its_newest_part(tmp_path: Path) -> None:
    path = own_run(tmp_path, 6000)  # ~2.5 MiB: more than the peek's 1 MiB
    run = open_paths([str(path)])[0]
    got = count_run(run, max_bytes=1024)
    assert got is not None and got.partial and got.dialect == "tracetui/1"
    assert got.spans is not None and 0 < got.spans < 6000
    assert got.note is not None and got.note.startswith("newest part of ")


def test_a_cancelled_count_is_none(tmp_path: Path) -> None:
    shutil.copy(CLAUDE, tmp_path / "s.jsonl")
    run = open_paths([str(tmp_path / "s.jsonl")])[0]
    assert count_run(run, cancelled=lambda: True) is None


def test_run_times_reads_no_file(tmp_path: Path) -> None:
    path = own_run(tmp_path, 3)
    run = open_paths([str(path)])[0]
    path.chmod(0)  # lstat needs no read permission
    mtime, size = run_times(run)
    assert (mtime, size) == (path.stat().st_mtime, path.stat().st_size)
    path.unlink()
    assert run_times(run) == (None, 0)
