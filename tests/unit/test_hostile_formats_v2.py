"""Hostile text in other agents' traces, second part (see test_hostile_importers_v2.py): a run
of ours after other JSON lines is read, not refused as no trace; SWE-agent's failure-sign search
(rewritten for speed: a 261 MB .traj spent 35 s in the old pattern) finds what the old one found.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hostile_helpers import private_temp, run_cli

from tracetui.importers import IMPORTERS
from tracetui.importers.swe_agent import failure_at

__all__ = ["private_temp"]  # autouse fixture: each test gets its own TMPDIR


# ------------------------------------------------------------------------- SWE-agent signs
# The single regex failure_at replaced (a 261 MB .traj spent 35 s in it): both must agree.
_OLD_SIGNS = re.compile(
    r"^Traceback \(most recent call last\):"
    r"|command not found"
    r"|^bash: .*: No such file or directory"
    r"|[Ss]yntax error"
    r"|^(?:[A-Z]\w*(?:Error|Exception)|Error|ERROR|FAILED)\b[: ]"
    r"|^=+ .*\b\d+ failed\b",
    re.MULTILINE,
)
SIGN_CASES = [
    ("traceback-first", "Traceback (most recent call last):\n  x"),
    ("traceback-later", "ok\nTraceback (most recent call last):\n"),
    ("traceback-mid-line", "see Traceback (most recent call last):"),
    ("not-found", "ok\nbash: foo: command not found\n"),
    ("bash-no-such", "a\nbash: ./x: No such file or directory\n"),
    ("bash-no-such-mid", "a bash: ./x: No such file or directory\n"),
    ("syntax", "line 3: Syntax error near x"),
    ("syntax-lower", "x\nE   syntax error"),
    ("value-error", "x\nValueError: bad"),
    ("error-word", "Error: nope"),
    ("error-inline", "no Error: here"),
    ("errors-word", "Errors: 0"),
    ("failed", "x\nFAILED tests/a.py::t - assert"),
    ("pytest-tail", "x\n==== 3 failed, 2 passed in 1s ====\n"),
    ("pytest-pass", "x\n==== 5 passed in 1s ====\n"),
    ("two-signs", "a\nsyntax error\nTraceback (most recent call last):\n"),
    ("none", "all good\n" * 50),
    ("empty", ""),
    ("crlf", "ok\r\nTypeError: x\r\n"),
]


@pytest.mark.parametrize("text", [c[1] for c in SIGN_CASES], ids=[c[0] for c in SIGN_CASES])
def test_swe_agent_failure_signs_unchanged(text: str) -> None:
    old = _OLD_SIGNS.search(text)
    assert failure_at(text) == (old.start() if old else None)


# ------------------------------------------------------------------------- not a trace
OWN = {"schema": "tracetui/1", "span_type": "tool", "argv": ["ls"], "exit_code": 1}
LOG = json.dumps({"level": "info", "msg": "starting the worker pool"}) + "\n"


def _log_then_runs(path: Path, log_bytes: int, spans: int) -> str:
    """``log_bytes`` (at least) of a logger's JSON lines, then ``spans`` records of ours."""
    log = LOG * (log_bytes // len(LOG) + 1)
    runs = "".join(json.dumps({**OWN, "command_id": f"c{i}"}) + "\n" for i in range(spans))
    path.write_text(log + runs)
    return str(path)


@pytest.mark.parametrize("log_bytes", [100 << 10, 3 << 20], ids=["past-the-head", "past-3-MiB"])
def test_run_after_other_json_lines_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], log_bytes: int
) -> None:
    # Before: the first 64 KiB held none of our records, so the file was refused whole
    # ("JSON Lines of at least 1,586 objects with keys level, msg", exit 2): 5 spans lost.
    path = _log_then_runs(tmp_path / "mixed.jsonl", log_bytes, 5)
    logged = Path(path).read_text().count('"level"')
    rc, out, err = run_cli(capsys, "summary", "--json", path)
    got = json.loads(out)
    assert (rc, err) == (0, "")
    assert (got["spans"], got["failed"], len(got["bad_lines"])) == (5, 5, logged)


def test_big_json_lines_of_no_trace_still_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _log_then_runs(tmp_path / "log.jsonl", 3 << 20, 0)
    rc, out, err = run_cli(capsys, "summary", path)
    assert (rc, out) == (2, "")
    assert err.startswith(f"tracetui: {path}: JSON Lines of at least 1,")
    assert err.endswith(
        " objects with keys level, msg: no trace tracetui knows (tracetui reads "
        f"{', '.join(i.name for i in IMPORTERS)} and its own JSON Lines runs)\n"
    )
