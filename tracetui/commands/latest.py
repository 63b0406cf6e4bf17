"""``--latest`` and ``--agent`` for the commands that open runs (view, tail, summary, lint, report).

Kept apart from :mod:`tracetui.commands.common` and free of heavy imports: every command's
parser is built on each run, and finding the session (:mod:`tracetui.importers.homes`) is only
imported when one of the flags is given.
"""

from __future__ import annotations

import argparse
import sys

from tracetui.errors import UsageError

AGENT_NAMES = ("claude-code", "codex", "openhands")
"""``importers.homes.AGENTS``, spelled here so that building the parser imports no importer
(~70 ms on every run); tests/unit/test_homes.py holds the two equal."""


def add_latest_options(parser: argparse.ArgumentParser) -> None:
    """``--latest`` and ``--agent``: open the newest agent session instead of naming a PATH."""
    parser.add_argument(
        "--latest",
        action="store_true",
        help="open the most recently modified agent session (Claude Code, Codex, OpenHands; "
        "the current directory's first) instead of a PATH",
    )
    parser.add_argument(
        "--agent",
        choices=AGENT_NAMES,
        help="only this agent's sessions (implies --latest)",
    )


def session_paths(args: argparse.Namespace, paths: list[str], command: str) -> list[str]:
    """The paths a command opens: those given, or the one ``--latest`` picks (named on stderr).

    ``--agent`` alone means ``--latest`` for that agent. A PATH together with either is a usage
    error, and so is neither (exit 2, raised as :class:`UsageError`).
    """
    latest = bool(getattr(args, "latest", False))
    agent = getattr(args, "agent", None)
    if not (latest or agent):
        if not paths:
            raise UsageError(
                f"{command}: give a PATH (a run file, a rotated member or a directory), or --latest"
            )
        return paths
    flag = "--latest" if latest else "--agent"
    if paths:
        raise UsageError(f"{command}: {flag} picks the session itself: give no PATH with it")
    from tracetui.importers import homes
    from tracetui.model.text import neutralize_line

    try:
        session = homes.latest(agent)
    except homes.NoSession as exc:
        raise UsageError(str(exc)) from None
    # The TUI takes the screen next: this line stays behind it, and in `summary`'s stderr.
    print(f"tracetui: latest session: {neutralize_line(homes.describe(session))}", file=sys.stderr)
    return [session.path]
