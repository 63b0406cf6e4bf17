"""`--latest` / `--agent` through the real entry point, with a temporary HOME for each agent."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tracetui.importers.homes import project_folder_name

AGENTS_DATA = Path(__file__).resolve().parents[1] / "data" / "agents"
CLAUDE = AGENTS_DATA / "claude_session.jsonl"
CODEX = AGENTS_DATA / "rollout-2025-09-10T09-00-00-0199a300.jsonl"
OPENHANDS = AGENTS_DATA / "openhands_output.jsonl"
PLACES = {
    "claude-code": ".claude/projects/-home-dev-shop/5f0c1e2a.jsonl",
    "codex": ".codex/sessions/2026/12/01/rollout-2026-12-01T10-00-00-x.jsonl",
    "openhands": ".openhands/conversations/c1/events.jsonl",
}
SOURCES = {"claude-code": CLAUDE, "codex": CODEX, "openhands": OPENHANDS}


def tracetui(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "PWD") and not k.startswith("OPENHANDS_")
    }
    env["HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "tracetui", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd or home,
        timeout=120,
    )


def place(home: Path, agent: str, rel: str | None = None, age: float = 60) -> Path:
    path = home / (rel or PLACES[agent])
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(SOURCES[agent], path)
    t = os.stat(home).st_mtime - age
    os.utime(path, (t, t))
    return path


@pytest.mark.parametrize("agent", ["claude-code", "codex", "openhands"])
def test_summary_latest_for_each_agent(tmp_path: Path, agent: str) -> None:
    path = place(tmp_path, agent)
    out = tracetui(tmp_path, "summary", "--latest", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["files"] == [str(path)]
    shown = "~/" + PLACES[agent]
    assert re.fullmatch(
        rf"tracetui: latest session: {re.escape(shown)} \({agent}, modified [^)]+ ago\)\n",
        out.stderr,
    ), out.stderr


def test_agent_narrows_and_implies_latest(tmp_path: Path) -> None:
    place(tmp_path, "claude-code", age=600)
    codex = place(tmp_path, "codex", age=10)
    assert json.loads(tracetui(tmp_path, "summary", "--latest", "--json").stdout)["files"] == [
        str(codex)
    ]
    out = tracetui(tmp_path, "summary", "--agent", "claude-code", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["files"] == [str(tmp_path / PLACES["claude-code"])]


def test_the_current_directorys_claude_project_is_preferred(tmp_path: Path) -> None:
    project = tmp_path / "code" / "shop"
    (project / "src").mkdir(parents=True)
    mine = place(
        tmp_path,
        "claude-code",
        f".claude/projects/{project_folder_name(str(project))}/mine.jsonl",
        age=900,
    )
    place(tmp_path, "claude-code", age=5)
    place(tmp_path, "codex", age=1)
    out = tracetui(tmp_path, "summary", "--latest", "--json", cwd=project / "src")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["files"] == [str(mine)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["summary", "--latest", "x.jsonl"],
            "summary: --latest picks the session itself: give no PATH with it",
        ),
        (
            ["view", "--latest", "x.jsonl"],
            "view: --latest picks the session itself: give no PATH with it",
        ),
        (
            ["tail", "--agent", "codex", "x.jsonl"],
            "tail: --agent picks the session itself: give no PATH with it",
        ),
        (
            ["lint", "--latest", "x.jsonl"],
            "lint: --latest picks the session itself: give no PATH with it",
        ),
        (
            ["report", "x.jsonl", "--latest", "--id", "a"],
            "report: --latest picks the session itself: give no PATH with it",
        ),
        (
            ["summary"],
            "summary: give a PATH (a run file, a rotated member or a directory), or --latest",
        ),
        (
            ["view", "--latest"],
            "no agent sessions under ~/.claude/projects, ~/.codex/sessions, ~/.openhands/conversations, ~/.openhands/sessions",
        ),
        (
            ["--latest"],
            "no agent sessions under ~/.claude/projects, ~/.codex/sessions, ~/.openhands/conversations, ~/.openhands/sessions",
        ),
        (["tail", "--agent", "claude-code"], "no Claude Code sessions under ~/.claude/projects"),
        (["lint", "--agent", "codex"], "no Codex sessions under ~/.codex/sessions"),
    ],
    ids=[
        "summary-path",
        "view-path",
        "tail-agent-path",
        "lint-path",
        "report-path",
        "summary-nothing",
        "view-no-sessions",
        "bare-latest-no-sessions",
        "tail-no-claude",
        "lint-no-codex",
    ],
)
def test_usage_errors_exit_2_with_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    out = tracetui(tmp_path, *args)
    assert (out.returncode, out.stdout, out.stderr) == (2, "", f"tracetui: {message}\n")


def test_lint_tail_and_report_open_the_latest(tmp_path: Path) -> None:
    path = place(tmp_path, "claude-code")
    lint = tracetui(tmp_path, "lint", "--latest", "--format", "json")
    assert lint.returncode in (0, 1), lint.stderr
    assert json.loads(lint.stdout)["count"] == len(json.loads(lint.stdout)["issues"])
    assert lint.stderr.startswith("tracetui: latest session: ~/.claude/projects/")
    tail = tracetui(tmp_path, "tail", "--latest", "--once", "--json", "--from-start")
    assert tail.stderr.splitlines()[0].startswith(
        f"tracetui: latest session: ~/{PLACES['claude-code']} ("
    )
    if tail.returncode == 0:  # tail follows foreign sessions once issue 14's item 1 lands
        assert len(tail.stdout.splitlines()) == 6
    else:
        assert tail.returncode == 2, tail.stderr
    report = tracetui(tmp_path, "report", "--latest", "--id", "toolu_01")
    assert report.returncode == 0, report.stderr
    assert "pytest -q tests/test_checkout.py" in report.stdout
    assert f"latest session: ~/{PLACES['claude-code']}" in report.stderr
    assert path.exists()


def test_latest_never_opens_a_fifo_named_like_a_session(tmp_path: Path) -> None:
    good = place(tmp_path, "claude-code", age=600)
    os.mkfifo(good.parent / "zzz-newest.jsonl")  # would block an open for ever
    out = tracetui(tmp_path, "summary", "--latest", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["files"] == [str(good)]
