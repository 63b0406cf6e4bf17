"""Exit codes past the index's int32 column read as the record wrote them.

The column clamps (``store.members.clamp32``): a Windows 0xC0000005 (3221225477) would show as
2147483647 in ``summary --json`` and the chain pane. A value at either clamp bound is read back
from the record; every other value comes from the column as before.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from records import tool

from tracetui.store.build import build_index
from tracetui.store.runset import open_path

CODES = [0, 1, -1, 2**31 - 2, 2**31 - 1, 2**31, 3221225477, 2**63 - 1, -(2**31) + 1, -(2**31)]


@pytest.mark.parametrize("code", CODES, ids=[str(c) for c in CODES])
@pytest.mark.parametrize("scanner", ["c", "python"])
def test_index_exit_code_is_the_records(
    make_run: Any, monkeypatch: pytest.MonkeyPatch, code: int, scanner: str
) -> None:
    if scanner == "python":
        monkeypatch.setenv("TRACETUI_NO_C", "1")
    root = make_run({"B.jsonl": [tool("a"), tool("b", exit_code=code)]})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    assert ix.exit_code(1) == code
    assert ix.exit_code(0) == 0


def test_summary_names_the_real_code(make_run: Any) -> None:
    retry = tool("b", exit_code=3221225477, parent_command_id="a")
    root = make_run({"B.jsonl": [tool("a", exit_code=3221225477), retry]})
    out = subprocess.run(
        [sys.executable, "-m", "tracetui", "summary", "--json", str(root / "B.jsonl")],
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(out.stdout)
    assert got["latest_failure"]["exit_code"] == 3221225477
    assert [c["final_exit_code"] for c in got["chains"]] == [3221225477]
    assert "2147483647" not in out.stdout
