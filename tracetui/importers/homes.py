"""Where the agents keep their sessions, and which one is the newest (``--latest``, ``--agent``).

Homes searched (docs/importers.md, "Finding sessions"):

- Claude Code: ``$CLAUDE_CONFIG_DIR/projects``, else ``~/.claude/projects``; one folder per
  project, named by :func:`project_folder_name`, holding one ``<session>.jsonl`` per session.
- Codex: ``$CODEX_HOME/sessions``, else ``~/.codex/sessions``; ``YYYY/MM/DD/rollout-*.jsonl``
  (older versions wrote the rollouts straight into ``sessions/``).
- OpenHands: ``$OPENHANDS_CONVERSATIONS_DIR``, else ``$OPENHANDS_PERSISTENCE_DIR/conversations``,
  else ``~/.openhands/conversations`` (the V1 CLI), and ``sessions/`` beside it (V0); one folder
  per conversation.

A session that belongs to the current directory is preferred over a newer one that does not
(Claude Code: its project folder is the current directory's or an ancestor's; Codex: the ``cwd``
in the rollout's ``session_meta``); among equals the newest modification time wins.

The homes are other programs' folders and may hold anything: links inside them are never
followed (a loop or a link out of the home costs nothing), only regular files are taken (a FIFO
or a device is never opened), an unreadable folder is passed over, and every listing stops after
:data:`MAX_ENTRIES` entries, so the work is bounded whatever the home holds.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import orjson

from tracetui.model.times import ago
from tracetui.store.reader import open_regular

AGENTS = ("claude-code", "codex", "openhands")
"""The agents ``--agent`` names, in the order their homes are searched."""
LABELS = {"claude-code": "Claude Code", "codex": "Codex", "openhands": "OpenHands"}

MAX_ENTRIES = 20_000
"""Entries read from one folder listing; the rest of a larger folder is not looked at."""
CODEX_DAYS = 7
"""Codex day folders (``YYYY/MM/DD``) looked into, newest first."""
CODEX_HEAD = 64 << 10
"""Bytes of a rollout read to find its ``cwd`` (the first line, ``session_meta``)."""
CLAUDE_NAME_MAX = 200
"""Claude Code cuts a longer project folder name here and appends a hash of the path."""

_LONG_SUFFIX = re.compile(r"-[0-9a-z]+\Z")


class NoSession(LookupError):
    """No session was found; the message is one line for the user (exit 2)."""


@dataclass(frozen=True, slots=True)
class Home:
    """One folder an agent keeps its sessions in."""

    agent: str
    path: str
    """Absolute; it may not exist."""


@dataclass(frozen=True, slots=True)
class Session:
    """A session file (or an OpenHands conversation folder) found in a home."""

    path: str
    agent: str
    mtime: float
    """Its last modification (seconds since the epoch)."""
    here: bool
    """Whether it belongs to the current directory (see the module docstring)."""


def agent_homes(agent: str | None = None, env: Mapping[str, str] | None = None) -> list[Home]:
    """The homes searched for ``agent`` (every agent when None), in search order."""
    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    out: list[Home] = []
    if agent in (None, "claude-code"):
        config = env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
        out.append(Home("claude-code", os.path.join(config, "projects")))
    if agent in (None, "codex"):
        codex = env.get("CODEX_HOME") or os.path.join(home, ".codex")
        out.append(Home("codex", os.path.join(codex, "sessions")))
    if agent in (None, "openhands"):
        base = env.get("OPENHANDS_PERSISTENCE_DIR") or os.path.join(home, ".openhands")
        conversations = env.get("OPENHANDS_CONVERSATIONS_DIR") or os.path.join(
            base, "conversations"
        )
        out.append(Home("openhands", conversations))
        out.append(Home("openhands", os.path.join(base, "sessions")))
    return [Home(h.agent, os.path.abspath(h.path)) for h in out]


def project_folder_name(path: str) -> str:
    """The folder Claude Code keeps a project's sessions in, for the project at ``path``.

    Claude Code replaces every character that is not an ASCII letter or digit with ``-``,
    counting in UTF-16 code units (a character beyond the BMP becomes two dashes); a name longer
    than :data:`CLAUDE_NAME_MAX` is cut there and given ``-<hash>`` (the hash is matched loosely,
    see :func:`_project_folders`).
    """
    out = []
    for ch in path:
        if ch.isascii() and ch.isalnum():
            out.append(ch)
        else:
            out.append("--" if ord(ch) > 0xFFFF else "-")
    return "".join(out)


def latest(
    agent: str | None = None, cwd: str | None = None, env: Mapping[str, str] | None = None
) -> Session:
    """The session to open: one of the current directory's if any, else the newest of all.

    Raises :class:`NoSession` (one line naming the homes searched) when there is none.
    """
    if agent is not None and agent not in AGENTS:
        raise NoSession(f"unknown agent {agent!r}: one of {', '.join(AGENTS)}")
    homes = agent_homes(agent, env)
    places = _here_paths(cwd, os.environ if env is None else env)
    found: list[Session] = []
    for home in homes:
        found.extend(_sessions(home, places))
    if not found:
        who = LABELS[agent] if agent else "agent"
        where = ", ".join(dict.fromkeys(shown_path(h.path, env) for h in homes))
        raise NoSession(f"no {who} sessions under {where}")
    return max(found, key=lambda s: (s.here, s.mtime))


def describe(
    session: Session, now: float | None = None, env: Mapping[str, str] | None = None
) -> str:
    """``PATH (claude-code, modified 2 min ago)``: what ``--latest`` opened, for stderr."""
    now = time.time() if now is None else now
    when = ago(now - session.mtime)
    return f"{shown_path(session.path, env)} ({session.agent}, modified {when})"


def shown_path(path: str, env: Mapping[str, str] | None = None) -> str:
    """``path`` with the home folder written ``~`` (for messages only)."""
    env = os.environ if env is None else env
    home = (env.get("HOME") or os.path.expanduser("~")).rstrip(os.sep)
    if home and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


# ----------------------------------------------------------------------------- listing


def _entries(path: str) -> Iterator[os.DirEntry[str]]:
    """At most :data:`MAX_ENTRIES` entries of ``path``; nothing when it cannot be listed."""
    try:
        with os.scandir(path) as it:
            for n, entry in enumerate(it):
                if n >= MAX_ENTRIES:
                    return
                yield entry
    except OSError:
        return


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _regular_mtime(entry: os.DirEntry[str]) -> float | None:
    """The modification time of a non-empty regular file (not a link), else None."""
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
        return None  # an empty file has nothing to show yet
    return st.st_mtime


def _root_is_dir(path: str) -> bool:
    """The home itself may be a link the user made (dotfiles); below it nothing is followed."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _here_paths(cwd: str | None, env: Mapping[str, str]) -> list[str]:
    """The current directory and its ancestors, nearest first (logical and physical spellings).

    The home folder and ``/`` count only when they are the current directory itself: every
    directory is below them, so a session started there says nothing about this one.
    """
    starts: list[str] = []
    if cwd is None:
        try:
            cwd = os.getcwd()
        except OSError:
            return []
        logical = env.get("PWD")
        if logical and os.path.isabs(logical):
            try:
                if os.path.samefile(logical, cwd):
                    starts.append(os.path.normpath(logical))
            except OSError:
                pass
    starts.append(os.path.abspath(cwd))
    starts.append(os.path.realpath(cwd))
    home = os.path.normpath(env.get("HOME") or os.path.expanduser("~"))
    too_wide = {home, os.path.realpath(home), os.sep}
    out: list[str] = []
    for start in starts:
        p = start
        while True:
            if p not in out and (p == start or p not in too_wide):
                out.append(p)
            parent = os.path.dirname(p)
            if parent == p:
                break
            p = parent
    # Nearest first whichever the spelling: deepest first (stable for equal depths).
    return sorted(out, key=lambda p: -p.count(os.sep))


def _sessions(home: Home, places: list[str]) -> list[Session]:
    if not _root_is_dir(home.path):
        return []
    if home.agent == "claude-code":
        return _claude_sessions(home.path, places)
    if home.agent == "codex":
        return _codex_sessions(home.path, places)
    return _openhands_sessions(home.path)


# ----------------------------------------------------------------------------- Claude Code


def claude_sessions_in(folder: str) -> list[Session]:
    """The session files of one Claude Code project folder (sub-folders are not sessions)."""
    out = []
    for entry in _entries(folder):
        if not entry.name.endswith(".jsonl"):
            continue
        mtime = _regular_mtime(entry)
        if mtime is not None:
            out.append(Session(entry.path, "claude-code", mtime, False))
    return out


def _project_folders(projects: str, places: list[str]) -> tuple[list[str], str | None]:
    """Every project folder, and the one belonging to the nearest of ``places`` (or None)."""
    folders = {e.name: e.path for e in _entries(projects) if _is_dir(e)}
    for place in places:
        name = project_folder_name(place)
        if len(name) <= CLAUDE_NAME_MAX:
            if name in folders:
                return list(folders.values()), folders[name]
            continue
        # A long name ends in a hash whose function differs between Claude Code's builds:
        # the first 200 characters and a `-<base36>` tail are matched instead.
        head = name[:CLAUDE_NAME_MAX]
        for folder_name, path in folders.items():
            if folder_name.startswith(head) and _LONG_SUFFIX.fullmatch(
                folder_name[CLAUDE_NAME_MAX:]
            ):
                return list(folders.values()), path
    return list(folders.values()), None


def _claude_sessions(projects: str, places: list[str]) -> list[Session]:
    folders, mine = _project_folders(projects, places)
    if mine is not None:
        own = [Session(s.path, s.agent, s.mtime, True) for s in claude_sessions_in(mine)]
        if own:  # a session of this directory beats any other: the rest need no stat
            return own
    out: list[Session] = []
    for folder in folders:
        here = folder == mine
        out.extend(Session(s.path, s.agent, s.mtime, here) for s in claude_sessions_in(folder))
    return out


# ----------------------------------------------------------------------------- Codex


def _digits(entries: Iterator[os.DirEntry[str]], width: int) -> list[os.DirEntry[str]]:
    """The sub-folders named by ``width`` digits, newest (largest) first."""
    picked = [e for e in entries if len(e.name) == width and e.name.isdigit() and _is_dir(e)]
    return sorted(picked, key=lambda e: e.name, reverse=True)


def _codex_days(sessions: str) -> list[str]:
    days: list[str] = []
    for year in _digits(_entries(sessions), 4):
        for month in _digits(_entries(year.path), 2):
            for day in _digits(_entries(month.path), 2):
                days.append(day.path)
                if len(days) >= CODEX_DAYS:
                    return days
    return days


def _codex_sessions(sessions: str, places: list[str]) -> list[Session]:
    out: list[Session] = []
    for folder in [sessions, *_codex_days(sessions)]:
        for entry in _entries(folder):
            if not (entry.name.startswith("rollout-") and entry.name.endswith(".jsonl")):
                continue
            mtime = _regular_mtime(entry)
            if mtime is not None:
                out.append(Session(entry.path, "codex", mtime, False))
    if not places:
        return out
    # Reading a head costs a file open: only the newest few are asked where they ran.
    out.sort(key=lambda s: s.mtime, reverse=True)
    wanted = set(places)
    for i, s in enumerate(out[: CODEX_DAYS * 4]):
        if _codex_cwd(s.path) in wanted:
            out[i] = Session(s.path, s.agent, s.mtime, True)
    return out


def _codex_cwd(path: str) -> str | None:
    """The ``cwd`` a rollout's first line (``session_meta``) records, or None."""
    try:
        with open_regular(path) as fh:
            head = fh.read(CODEX_HEAD)
    except OSError:
        return None
    line = head.split(b"\n", 1)[0]
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    payload = obj.get("payload") if isinstance(obj, dict) else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return os.path.normpath(cwd) if isinstance(cwd, str) and os.path.isabs(cwd) else None


# ----------------------------------------------------------------------------- OpenHands


def _openhands_sessions(home: str) -> list[Session]:
    """One session per conversation folder: its ``events.json`` or ``*.jsonl`` when it has one,
    else its ``events/`` folder (one file per event), else the folder itself."""
    out: list[Session] = []
    for conv in _entries(home):
        if not _is_dir(conv):
            continue
        best: Session | None = None
        events_dir: os.DirEntry[str] | None = None
        for entry in _entries(conv.path):
            if entry.name == "events" and _is_dir(entry):
                events_dir = entry
                continue
            if entry.name == "events.json" or entry.name.endswith(".jsonl"):
                mtime = _regular_mtime(entry)
                if mtime is not None and (best is None or mtime > best.mtime):
                    best = Session(entry.path, "openhands", mtime, False)
        if best is None:
            target = events_dir if events_dir is not None else conv
            try:
                mtime = target.stat(follow_symlinks=False).st_mtime
            except OSError:
                continue
            best = Session(target.path, "openhands", mtime, False)
        out.append(best)
    return out
