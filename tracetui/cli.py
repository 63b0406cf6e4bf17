"""The ``tracetui`` command line: one sub-command per module in ``tracetui.commands``.

Each command module exposes ``register(subparsers)`` which adds its parser and sets
``func=main(args) -> int``. Modules keep heavy imports (Textual above all) inside their
``main`` so that ``tracetui lint`` never pays for the UI. A bare ``tracetui PATH…`` means
``tracetui view PATH…``.

No traceback ever reaches a user: unexpected errors become one line on stderr and exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

# Order here is the order in ``tracetui --help``.
COMMANDS = ("view", "run", "lint", "summary", "tail", "rerun", "report", "export", "demo")


class UsageError(Exception):
    """Raised by commands for bad input the user can fix; printed without a traceback, exit 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tracetui",
        description="Record, lint and review AI agents' tool calls whose output was capped.",
        epilog="A bare `tracetui PATH…` opens the viewer.",
    )
    from tracetui import __version__

    parser.add_argument("--version", action="version", version=f"tracetui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"tracetui.commands.{name}_cmd")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # `tracetui [--no-follow] PATH…` → `tracetui view …`: the first word that is not an option
    # names no command. (`tracetui --help` and `tracetui --version` have no such word.)
    first = next((a for a in args_list if not a.startswith("-")), None)
    if first is not None and first not in COMMANDS:
        args_list.insert(0, "view")
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"tracetui: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `tracetui tail … | head`: the reader went away; that is not an error.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 0
    except Exception as exc:
        if os.environ.get("TRACETUI_DEBUG"):
            raise
        print(f"tracetui: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("tracetui: set TRACETUI_DEBUG=1 to see the traceback", file=sys.stderr)
        return 2
