"""The demo's build step: its error lies past the cap, as the README says (issue 16)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tracetui.demo import session

ERROR = "error: 'ledger_round' undeclared"


def test_the_failing_build_records_its_error_past_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = next(s for s in session.STEPS if s.argv[0] == "build.py" and "--ok" not in s.argv)
    monkeypatch.setattr(session, "STEPS", (build,))
    session.prepare(str(tmp_path))
    assert session.run_session(str(tmp_path), speed=0) == 1
    (line,) = (tmp_path / session.BASE).read_text().splitlines()
    record = json.loads(line)
    assert (record["exit_code"], record["stdout_clip"], record["stdout_truncated"]) == (
        1,
        "head",
        True,
    )
    assert ERROR not in record["preview_stdout"]  # the agent never saw it …
    tool = tmp_path / "tools" / "build.py"
    out = subprocess.run(
        [sys.executable, str(tool), *build.argv[1:]], capture_output=True, text=True, check=False
    ).stdout
    cut = record["stdout_cap"]
    assert ERROR in out and out.index(ERROR) > cut  # … it is in the output, past the cap
