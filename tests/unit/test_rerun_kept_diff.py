"""A re-run diffed against the kept whole output (tracetui/rerun/kept_diff.py), not only the window."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

from tracetui.record.recorder import run_with_feedback
from tracetui.rerun import runner
from tracetui.rerun.kept_diff import doc_fields, result_diff
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

SCRIPT = """
import pathlib
state = pathlib.Path("state.txt").read_text().strip()
for n in range(200):
    print(f"test_{n} PASSED")
print(f"result: {state}")
print("password=hunter2 in the log")
"""


def record(tmp_path: Path, state: str) -> Path:
    (tmp_path / "suite.py").write_text(SCRIPT)
    (tmp_path / "state.txt").write_text(state)
    base = tmp_path / "B"
    run_with_feedback([sys.executable, "suite.py"], log=base, cap=300, cwd=tmp_path)
    return base


def rerun_of(base: Path) -> runner.RerunResult:
    index = build_index(open_path(str(base))[0])
    return runner.rerun(runner.target_for_row(index, 0), write_sidecar=False, timeout=60)


def test_a_change_past_the_cap_shows_in_the_full_diff_only(tmp_path: Path) -> None:
    base = record(tmp_path, "ok")
    (tmp_path / "state.txt").write_text("broken")
    with rerun_of(base) as result:
        assert result.stream_diff("stdout") == []  # the window the agent saw is unchanged
        full = result_diff(result, "stdout")
        assert full is not None and full.compared and full.note is None
        changed = [x for x in full.lines if x[:1] in "+-" and not x.startswith(("+++", "---"))]
        assert changed == ["-result: ok", "+result: broken"]
        assert result.stdout.verdict == "head matches"  # the verdict still comes from hashes


def test_the_same_output_matches_secrets_included(tmp_path: Path) -> None:
    base = record(tmp_path, "ok")
    with rerun_of(base) as result:
        full = result_diff(result, "stdout")
        assert full is not None and full.compared and full.lines == []
        assert doc_fields(result)["stdout_full_diff"] == ""


def test_a_changed_kept_file_is_not_used(tmp_path: Path) -> None:
    base = record(tmp_path, "ok")
    for f in (tmp_path / "B.kept").glob("*.gz"):
        f.write_bytes(gzip.compress(b"something else\n"))
    with rerun_of(base) as result:
        full = result_diff(result, "stdout")
        assert full is not None and not full.compared and full.lines == []
        assert full.note is not None and full.note.startswith("the kept output was not used: ")
        assert doc_fields(result)["stdout_full_diff"] is None


def test_nothing_kept_nothing_to_diff(tmp_path: Path) -> None:
    (tmp_path / "suite.py").write_text(SCRIPT)
    (tmp_path / "state.txt").write_text("ok")
    base = tmp_path / "B"
    run_with_feedback(
        [sys.executable, "suite.py"], log=base, cap=300, cwd=tmp_path, keep_budget=None
    )
    with rerun_of(base) as result:
        assert result_diff(result, "stdout") is None
        assert doc_fields(result)["stdout_full_diff_note"] == "not kept"
