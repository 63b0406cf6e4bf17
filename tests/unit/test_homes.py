"""Finding agent sessions (tracetui/importers/homes.py): the homes, Claude Code's folder names,
the preference for the current directory's session, and homes that hold hostile things."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tracetui.commands.latest import AGENT_NAMES
from tracetui.importers import homes
from tracetui.model.times import ago

CLAUDE_LINE = '{"type": "user", "sessionId": "s", "message": {"role": "user", "content": "hi"}}\n'


def rollout(cwd: str) -> str:
    return (
        '{"timestamp": "2026-12-01T10:00:00Z", "type": "session_meta", "payload": {"id": "r", '
        f'"cwd": "{cwd}"}}}}\n'
    )


def build(root: Path, files: dict[str, Any]) -> None:
    """``{"rel/path": text or (text, age_seconds)}``: files under ``root``, aged on purpose."""
    now = 1_800_000_000
    for rel, spec in files.items():
        text, age = spec if isinstance(spec, tuple) else (spec, 100)
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (now - age, now - age))


def env_for(root: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(root), **extra}


@pytest.mark.parametrize(
    ("path", "folder"),
    [
        ("/home/dev/shop", "-home-dev-shop"),
        ("/Users/me/git/my_repo", "-Users-me-git-my-repo"),
        ("/srv/a.b c+d@e", "-srv-a-b-c-d-e"),
        ("/home/u/.worktrees/x", "-home-u--worktrees-x"),
        ("/x/Проект", "-x-" + "-" * 6),  # one dash per letter
        ("/e/\U0001f600", "-e---"),  # beyond the BMP: two UTF-16 units, two dashes
        ("C:\\git\\cc-plus", "C--git-cc-plus"),
    ],
    ids=["plain", "underscore", "punctuation", "dot-folder", "cyrillic", "emoji", "windows"],
)
def test_project_folder_name_follows_claude_codes_rule(path: str, folder: str) -> None:
    assert homes.project_folder_name(path) == folder


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (
            {},
            [
                ("claude-code", "H/.claude/projects"),
                ("codex", "H/.codex/sessions"),
                ("openhands", "H/.openhands/conversations"),
                ("openhands", "H/.openhands/sessions"),
            ],
        ),
        (
            {"CLAUDE_CONFIG_DIR": "/cc", "CODEX_HOME": "/cx", "OPENHANDS_PERSISTENCE_DIR": "/oh"},
            [
                ("claude-code", "/cc/projects"),
                ("codex", "/cx/sessions"),
                ("openhands", "/oh/conversations"),
                ("openhands", "/oh/sessions"),
            ],
        ),
        (
            {"OPENHANDS_CONVERSATIONS_DIR": "/conv"},
            [
                ("claude-code", "H/.claude/projects"),
                ("codex", "H/.codex/sessions"),
                ("openhands", "/conv"),
                ("openhands", "H/.openhands/sessions"),
            ],
        ),
    ],
    ids=["defaults", "env-vars", "openhands-conversations-dir"],
)
def test_agent_homes(env: dict[str, str], expected: list[tuple[str, str]]) -> None:
    got = homes.agent_homes(None, {"HOME": "/H", **env})
    assert [(h.agent, h.path.replace("/H", "H", 1)) for h in got] == expected


def test_the_cli_spells_the_same_agents() -> None:
    assert AGENT_NAMES == homes.AGENTS


CWD = "/work/shop"
PROJ = ".claude/projects/-work-shop"
OTHER = ".claude/projects/-work-other"

# Each case: files under a temporary HOME, cwd, --agent → (expected file, agent, here).
LATEST_CASES: list[tuple[str, dict[str, Any], str, str | None, tuple[str, str, bool]]] = [
    (
        "claude-newest-of-all",
        {f"{OTHER}/a.jsonl": (CLAUDE_LINE, 50), f"{OTHER}/b.jsonl": (CLAUDE_LINE, 10)},
        CWD,
        None,
        (f"{OTHER}/b.jsonl", "claude-code", False),
    ),
    (
        "claude-cwd-project-preferred-over-newer",
        {f"{PROJ}/mine.jsonl": (CLAUDE_LINE, 500), f"{OTHER}/b.jsonl": (CLAUDE_LINE, 10)},
        CWD,
        None,
        (f"{PROJ}/mine.jsonl", "claude-code", True),
    ),
    (
        "claude-ancestor-project-for-a-subdirectory",
        {f"{PROJ}/mine.jsonl": (CLAUDE_LINE, 500), f"{OTHER}/b.jsonl": (CLAUDE_LINE, 10)},
        CWD + "/src/pkg",
        None,
        (f"{PROJ}/mine.jsonl", "claude-code", True),
    ),
    (
        "claude-newest-inside-the-cwd-project",
        {f"{PROJ}/old.jsonl": (CLAUDE_LINE, 500), f"{PROJ}/new.jsonl": (CLAUDE_LINE, 200)},
        CWD,
        None,
        (f"{PROJ}/new.jsonl", "claude-code", True),
    ),
    (
        "claude-subagent-folders-are-not-sessions",
        {
            f"{OTHER}/s.jsonl": (CLAUDE_LINE, 300),
            f"{OTHER}/s/subagents/agent-1.jsonl": (CLAUDE_LINE, 1),
        },
        CWD,
        None,
        (f"{OTHER}/s.jsonl", "claude-code", False),
    ),
    (
        "claude-empty-file-passed-over",
        {f"{OTHER}/full.jsonl": (CLAUDE_LINE, 300), f"{OTHER}/empty.jsonl": ("", 1)},
        CWD,
        None,
        (f"{OTHER}/full.jsonl", "claude-code", False),
    ),
    (
        "codex-newest-day-folder",
        {
            ".codex/sessions/2026/11/30/rollout-a.jsonl": (rollout("/x"), 90_000),
            ".codex/sessions/2026/12/01/rollout-b.jsonl": (rollout("/x"), 60),
            ".codex/sessions/2026/12/01/notes.txt": ("x", 1),
        },
        CWD,
        None,
        (".codex/sessions/2026/12/01/rollout-b.jsonl", "codex", False),
    ),
    (
        "codex-flat-rollouts-of-older-versions",
        {".codex/sessions/rollout-old.jsonl": (rollout("/x"), 60)},
        CWD,
        None,
        (".codex/sessions/rollout-old.jsonl", "codex", False),
    ),
    (
        "codex-cwd-from-session-meta-preferred",
        {
            ".codex/sessions/2026/12/01/rollout-here.jsonl": (rollout(CWD), 600),
            ".codex/sessions/2026/12/01/rollout-else.jsonl": (rollout("/else"), 10),
        },
        CWD,
        None,
        (".codex/sessions/2026/12/01/rollout-here.jsonl", "codex", True),
    ),
    (
        "newest-across-agents",
        {
            f"{OTHER}/a.jsonl": (CLAUDE_LINE, 300),
            ".codex/sessions/2026/12/01/rollout-b.jsonl": (rollout("/x"), 30),
        },
        CWD,
        None,
        (".codex/sessions/2026/12/01/rollout-b.jsonl", "codex", False),
    ),
    (
        "agent-narrows-to-claude",
        {
            f"{OTHER}/a.jsonl": (CLAUDE_LINE, 300),
            ".codex/sessions/2026/12/01/rollout-b.jsonl": (rollout("/x"), 30),
        },
        CWD,
        "claude-code",
        (f"{OTHER}/a.jsonl", "claude-code", False),
    ),
    (
        "agent-narrows-to-codex-over-a-cwd-claude-session",
        {
            f"{PROJ}/mine.jsonl": (CLAUDE_LINE, 5),
            ".codex/sessions/2026/12/01/rollout-b.jsonl": (rollout("/x"), 300),
        },
        CWD,
        "codex",
        (".codex/sessions/2026/12/01/rollout-b.jsonl", "codex", False),
    ),
    (
        "openhands-v1-events-folder",
        {
            ".openhands/conversations/c1/events/event-00000-a.json": ("{}", 10),
            ".openhands/conversations/c1/base_state.json": ("{}", 10),
        },
        CWD,
        "openhands",
        (".openhands/conversations/c1/events", "openhands", False),
    ),
    (
        "openhands-events-json-file",
        {".openhands/sessions/s1/events.json": ("[]", 10)},
        CWD,
        "openhands",
        (".openhands/sessions/s1/events.json", "openhands", False),
    ),
]


@pytest.mark.parametrize(
    ("files", "cwd", "agent", "expected"),
    [c[1:] for c in LATEST_CASES],
    ids=[c[0] for c in LATEST_CASES],
)
def test_latest(
    tmp_path: Path,
    files: dict[str, Any],
    cwd: str,
    agent: str | None,
    expected: tuple[str, str, bool],
) -> None:
    build(tmp_path, files)
    if agent == "openhands":  # a conversation folder's time is its own, not its files'
        for folder in tmp_path.glob(".openhands/*/*/events"):
            os.utime(folder, (1_800_000_000, 1_800_000_000))
    got = homes.latest(agent, cwd=cwd, env=env_for(tmp_path))
    rel, who, here = expected
    assert (got.path, got.agent, got.here) == (str(tmp_path / rel), who, here)


def test_the_home_folder_is_no_ancestor_project(tmp_path: Path) -> None:
    """Everything is below the home folder: a session started there is not this project's."""
    home_project = ".claude/projects/" + homes.project_folder_name(str(tmp_path))
    build(
        tmp_path,
        {f"{home_project}/h.jsonl": (CLAUDE_LINE, 500), f"{OTHER}/b.jsonl": (CLAUDE_LINE, 10)},
    )
    got = homes.latest(None, cwd=str(tmp_path / "code" / "proj"), env=env_for(tmp_path))
    assert got.path == str(tmp_path / OTHER / "b.jsonl")
    at_home = homes.latest(None, cwd=str(tmp_path), env=env_for(tmp_path))
    assert (at_home.path, at_home.here) == (str(tmp_path / home_project / "h.jsonl"), True)


def test_a_long_project_path_matches_claude_codes_cut_name(tmp_path: Path) -> None:
    cwd = "/w/" + "deep-folder/" * 20 + "proj"
    name = homes.project_folder_name(cwd)
    assert len(name) > homes.CLAUDE_NAME_MAX
    cut = name[: homes.CLAUDE_NAME_MAX] + "-1a2b3c"
    build(
        tmp_path,
        {
            f".claude/projects/{cut}/mine.jsonl": (CLAUDE_LINE, 500),
            f"{OTHER}/b.jsonl": (CLAUDE_LINE, 10),
        },
    )
    got = homes.latest(None, cwd=cwd, env=env_for(tmp_path))
    assert (got.path, got.here) == (str(tmp_path / ".claude/projects" / cut / "mine.jsonl"), True)


def test_config_dir_and_codex_home_are_honoured(tmp_path: Path) -> None:
    build(
        tmp_path,
        {
            "cc/projects/-p/a.jsonl": (CLAUDE_LINE, 20),
            "cx/sessions/2026/01/02/rollout-z.jsonl": (rollout("/x"), 10),
            f"{OTHER}/ignored.jsonl": (CLAUDE_LINE, 1),
        },
    )
    env = env_for(tmp_path, CLAUDE_CONFIG_DIR=str(tmp_path / "cc"), CODEX_HOME=str(tmp_path / "cx"))
    assert homes.latest("claude-code", cwd=CWD, env=env).path == str(
        tmp_path / "cc/projects/-p/a.jsonl"
    )
    assert homes.latest(None, cwd=CWD, env=env).path == str(
        tmp_path / "cx/sessions/2026/01/02/rollout-z.jsonl"
    )


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("claude-code", "no Claude Code sessions under ~/.claude/projects"),
        ("codex", "no Codex sessions under ~/.codex/sessions"),
        (
            "openhands",
            "no OpenHands sessions under ~/.openhands/conversations, ~/.openhands/sessions",
        ),
        (
            None,
            "no agent sessions under ~/.claude/projects, ~/.codex/sessions, "
            "~/.openhands/conversations, ~/.openhands/sessions",
        ),
        ("vim", "unknown agent 'vim': one of claude-code, codex, openhands"),
    ],
    ids=["claude-code", "codex", "openhands", "any", "unknown"],
)
def test_no_session_is_one_line(tmp_path: Path, agent: str | None, message: str) -> None:
    with pytest.raises(homes.NoSession) as caught:
        homes.latest(agent, cwd=CWD, env=env_for(tmp_path))
    assert str(caught.value) == message


# ----------------------------------------------------------------------------- hostile homes


def _hostile(tmp_path: Path, kind: str) -> None:
    projects = tmp_path / ".claude" / "projects"
    good = projects / "-work-good"
    build(tmp_path, {".claude/projects/-work-good/ok.jsonl": (CLAUDE_LINE, 500)})
    outside = tmp_path / "outside"
    build(tmp_path, {"outside/secret.jsonl": (CLAUDE_LINE, 1)})
    if kind == "symlink-loop":
        (projects / "loop").symlink_to(projects)
        (good / "self").symlink_to(good)
    elif kind == "link-out-of-the-home":
        (projects / "-work-shop").symlink_to(outside)  # even the cwd's project name
    elif kind == "linked-session-file":
        (good / "linked.jsonl").symlink_to(outside / "secret.jsonl")
    elif kind == "fifo-named-like-a-session":
        os.mkfifo(good / "newest.jsonl")
    elif kind == "device-named-like-a-session":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(good / "newest.jsonl", stat.S_IFCHR | 0o600, os.makedev(1, 3))  # like /dev/null
    elif kind == "dangling-link":
        (good / "gone.jsonl").symlink_to(tmp_path / "nothing-here")


@pytest.mark.parametrize(
    "kind",
    [
        "symlink-loop",
        "link-out-of-the-home",
        "linked-session-file",
        "fifo-named-like-a-session",
        "device-named-like-a-session",
        "dangling-link",
    ],
)
def test_hostile_home_things_are_passed_over(tmp_path: Path, kind: str) -> None:
    _hostile(tmp_path, kind)
    got = homes.latest("claude-code", cwd=CWD, env=env_for(tmp_path))
    assert got.path == str(tmp_path / ".claude/projects/-work-good/ok.jsonl")


def test_an_unreadable_project_folder_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Simulated (the suite may run as root, which reads any folder): scandir raises EACCES."""
    build(
        tmp_path,
        {
            ".claude/projects/-work-good/ok.jsonl": (CLAUDE_LINE, 500),
            ".claude/projects/-work-locked/new.jsonl": (CLAUDE_LINE, 1),
        },
    )
    real = os.scandir
    locked = str(tmp_path / ".claude/projects/-work-locked")

    def scandir(path: str) -> Any:
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(homes.os, "scandir", scandir)
    got = homes.latest("claude-code", cwd=CWD, env=env_for(tmp_path))
    assert got.path == str(tmp_path / ".claude/projects/-work-good/ok.jsonl")


def test_an_unreadable_home_is_no_sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build(tmp_path, {".claude/projects/-work-good/ok.jsonl": (CLAUDE_LINE, 500)})

    def scandir(path: str) -> Any:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(homes.os, "scandir", scandir)
    with pytest.raises(
        homes.NoSession, match=r"^no Claude Code sessions under ~/\.claude/projects$"
    ):
        homes.latest("claude-code", cwd=CWD, env=env_for(tmp_path))


def test_a_huge_folder_is_read_only_up_to_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / ".claude/projects/-work-many"
    build(
        tmp_path, {f".claude/projects/-work-many/{i:04}.jsonl": (CLAUDE_LINE, i) for i in range(60)}
    )
    monkeypatch.setattr(homes, "MAX_ENTRIES", 10)
    with os.scandir(folder) as it:
        first = [e.path for _, e in zip(range(10), it, strict=False)]
    got = homes.latest("claude-code", cwd=CWD, env=env_for(tmp_path))
    assert got.path in first
    assert got.path == min(first, key=lambda p: int(os.path.basename(p)[:4]))  # newest = least aged


def test_thousands_of_sessions(tmp_path: Path) -> None:
    files: dict[str, Any] = {
        f".claude/projects/-work-p{i % 7}/{i:05}.jsonl": (CLAUDE_LINE, 10 + i) for i in range(3000)
    }
    build(tmp_path, files)
    got = homes.latest(None, cwd=CWD, env=env_for(tmp_path))
    assert got.path == str(tmp_path / ".claude/projects/-work-p0/00000.jsonl")


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0, "just now"),
        (42, "42 s ago"),
        (150, "2 min ago"),
        (7300, "2 h ago"),
        (86400, "1 day ago"),
        (5 * 86400 + 5, "5 days ago"),
    ],
    ids=["now", "seconds", "minutes", "hours", "one-day", "days"],
)
def test_ago(seconds: float, text: str) -> None:
    assert ago(seconds) == text


def test_describe_names_path_agent_and_age(tmp_path: Path) -> None:
    path = str(tmp_path / ".claude/projects/-p/s.jsonl")
    session = homes.Session(path, "claude-code", 1000.0, True)
    line = homes.describe(session, now=1120.0, env=env_for(tmp_path))
    assert line == "~/.claude/projects/-p/s.jsonl (claude-code, modified 2 min ago)"
