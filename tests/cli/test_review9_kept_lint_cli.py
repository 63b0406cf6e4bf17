"""Review of lint's kept findings through the real entry point (``python -m tracetui lint``): a
run file named in bytes that are not UTF-8, and a re-runs file rewritten with its stat put back.
Warm and cold give the same bytes and status (tests/unit/test_review9_kept_lint.py in-process)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from records import encode_line, tool
from test_kept_lint_cli import run_records

OLD = time.time_ns() - 3600 * 10**9
"""An mtime well before any lint (a file changed just before it is read is not trusted)."""

Outcome = tuple[int, bytes, bytes]


def _write(path: bytes, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
    os.utime(path, ns=(OLD, OLD))


def _lint(args: list[str], tmp_path: Path, *, cache: bool = True) -> Outcome:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    for name in ("TRACETUI_CACHE_MAX_MB", "TRACETUI_DEBUG", "TRACETUI_NO_CACHE"):
        env.pop(name, None)
    if not cache:
        env["TRACETUI_NO_CACHE"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "tracetui", "lint", *args],
        capture_output=True,
        env=env,
        cwd=tmp_path,
        check=False,
        timeout=60,
    )
    return done.returncode, done.stdout, done.stderr


def test_a_run_file_named_in_bytes_not_utf8(tmp_path: Path) -> None:
    """Every lint of it with the cache on was ``internal error (TypeError)``, exit 3: the
    state of its files could not be written as JSON (failed before)."""
    (tmp_path / "run").mkdir()
    base = os.fsencode(tmp_path / "run") + b"/bad\xff\xfe.jsonl"
    _write(base, run_records("bad", 2600) + b"{not json\n")
    for form in ("text", "sarif"):
        args = ["--format", form, os.fsdecode(base)]
        want = _lint(args, tmp_path, cache=False)
        assert want[0] == 1 and want[2] == b""
        assert _lint(args, tmp_path) == want
        assert _lint(args, tmp_path) == want


def test_a_rerun_file_rewritten_with_its_stat_put_back(tmp_path: Path) -> None:
    """The re-runs file is linted with its run; its stat alone was in the kept findings' state,
    so a re-run record edited into a bad line of the same size, mtime put back, was left out of
    a warm lint (failed before)."""
    (tmp_path / "run").mkdir()
    base = os.fsencode(tmp_path / "run") + b"/B.jsonl"
    _write(base, run_records("b", 2600))
    side = base + b".reruns.jsonl"
    good = encode_line(tool("r-1", parent_command_id="b-3"))
    _write(side, good)
    args = ["--format", "json", os.fsdecode(base)]
    assert _lint(args, tmp_path) == _lint(args, tmp_path, cache=False)  # linted, kept
    _write(side, b"{" + b"x" * (len(good) - 3) + b"}\n")  # same size, same mtime
    want = _lint(args, tmp_path, cache=False)
    assert b"reruns.jsonl" in want[1]
    assert _lint(args, tmp_path) == want
