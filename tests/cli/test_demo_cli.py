"""`tracetui demo --no-ui` through the real entry point: the run it writes, checked by the
other commands (summary, lint) as a user would.

The session is fixed (tracetui/demo/session.py), so its facts are exact: 11 spans, 5 failures
(two flaky attempts, the build, the missing program, the deploy gate), 7 truncated spans, one
chain of three attempts, and a rotation after nearly every record.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BASE = "feedback_record.jsonl"


def tracetui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tracetui", *args], capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("demo") / "run"
    out = tracetui("demo", "--no-ui", "--keep", str(folder))
    assert out.returncode == 0, out.stderr
    assert out.stderr == f"tracetui demo: 11 spans recorded in {folder}\n"
    return folder


def test_summary_facts(demo_run: Path) -> None:
    out = tracetui("summary", str(demo_run), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    base = str(demo_run / BASE)
    assert (doc["spans"], doc["failed"], doc["truncated"], doc["bad_lines"]) == (11, 5, 7, [])
    assert doc["hidden_bytes"] > 10_000
    # Rotation happened: the base and nine rotated members, oldest first.
    assert doc["files"] == [f"{base}.{i}" for i in range(9, 0, -1)] + [base]
    latest = doc["latest_failure"]
    assert (latest["argv"], latest["exit_code"], latest["file"]) == (
        ["tools/deploy_check.py"],
        2,
        base,
    )
    [chain] = doc["chains"]
    assert (len(chain["attempts"]), chain["final_exit_code"]) == (3, 0)


def test_records_show_each_kind_of_cut(demo_run: Path) -> None:
    records = []
    for name in sorted(
        os.listdir(demo_run), key=lambda n: -int(n.rsplit(".", 1)[1]) if n[-1].isdigit() else 0
    ):
        if name.startswith(BASE) and not name.endswith((".lock", ".kept")):  # .kept: a folder
            with open(demo_run / name, encoding="utf-8") as fh:
                records += [json.loads(line) for line in fh]
    by_tool = {}
    for r in records:
        by_tool.setdefault(r["tool_name"], []).append(r)
    flaky = by_tool["flaky_tests"]
    assert [r["exit_code"] for r in flaky] == [1, 1, 0]
    assert [r["parent_command_id"] for r in flaky] == [
        None,
        flaky[0]["command_id"],
        flaky[1]["command_id"],
    ]
    # The assertion that explains the failure is past the cap: the agent never saw it.
    assert "AssertionError" not in flaky[0]["preview_stdout"]
    assert flaky[0]["stdout_truncated"] is True
    inventory = by_tool["inventory"][0]
    assert inventory["stdout_items"] == 50
    assert 0 < inventory["preview_stdout_items"] < 50
    missing = by_tool["invoice-sync"][0]
    assert (missing["exit_code"], missing["error"]) == (None, "command not found: invoice-sync")
    build = by_tool["build"]
    assert [(r["exit_code"], r["stdout_clip"]) for r in build] == [(1, "head"), (0, "head_tail")]
    server = by_tool["server_log"][0]
    assert (server["stdout_clip"], server["stdout_truncated"]) == ("tail", True)
    assert "ERROR migration" not in server["preview_stdout"]  # early line, cut by the tail cap
    assert "(ready)" in server["preview_stdout"]
    assert by_tool["env_check"][0]["redacted"] == 3


def test_lint_finds_the_staged_incidents_and_no_contract_fault(demo_run: Path) -> None:
    """The records honour the contract (no error: exit 0); the warnings are the incidents the
    session stages (docs/lint.md): the flaky tests and the failing build cut at the head
    (TT019) under a note expecting a pass (TT022), and both retries under the same cap (TT021)."""
    out = tracetui("lint", str(demo_run))
    assert out.returncode == 0, out.stdout + out.stderr
    found = [line.split(": ", 1) for line in out.stdout.splitlines()[:-1]]
    assert [(Path(where).name, rest.split(" ", 1)[0]) for where, rest in found] == [
        (f"{BASE}.9:1", "TT019"),  # flaky tests, attempt 1
        (f"{BASE}.9:1", "TT022"),
        (f"{BASE}.8:1", "TT019"),  # attempt 2, retried blind
        (f"{BASE}.8:1", "TT021"),
        (f"{BASE}.7:1", "TT021"),  # attempt 3 (it passed: the flake let it)
        (f"{BASE}.4:1", "TT019"),  # the build
        (f"{BASE}.4:1", "TT022"),
    ]
    assert out.stdout.splitlines()[-1] == "issues=7"
    assert tracetui("lint", "--strict", str(demo_run)).returncode == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--speed", "-1"], "tracetui: --speed must be a number >= 0\n"),
        (["--speed", "nan"], "tracetui: --speed must be a number >= 0\n"),
    ],
    ids=["negative-speed", "nan-speed"],
)
def test_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    out = tracetui("demo", "--no-ui", "--keep", str(tmp_path / "x"), *args)
    assert (out.returncode, out.stderr) == (2, message)


def test_keep_refuses_a_folder_with_a_run(demo_run: Path) -> None:
    out = tracetui("demo", "--no-ui", "--keep", str(demo_run))
    assert out.returncode == 2
    assert (
        out.stderr == f"tracetui: {demo_run} already holds a run ({BASE}): choose another folder\n"
    )


def test_without_keep_the_temporary_folder_is_removed(tmp_path: Path) -> None:
    env = dict(os.environ, TMPDIR=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-m", "tracetui", "demo", "--no-ui"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    assert os.listdir(tmp_path) == []
