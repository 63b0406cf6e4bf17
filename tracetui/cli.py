"""The ``tracetui`` command line: one sub-command per module in ``tracetui.commands``.

Each command module exposes ``register(subparsers)`` which adds its parser and sets
``func=main(args) -> int``. Modules keep heavy imports (Textual above all) inside their
``main`` so that ``tracetui lint`` never pays for the UI. A bare ``tracetui PATH…`` means
``tracetui view PATH…``.

No traceback ever reaches a user, and a crash never exits 0. Exit statuses of every command:
2 for a usage error or a file the user can fix (one line on stderr), 130 for Ctrl-C, and 3 for a
bug, in a batch command or in the viewer: one line naming a crash report, which holds the
traceback (tracetui/crash.py). ``TRACETUI_DEBUG=1`` lets a bug's traceback through instead.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import sys

from tracetui.errors import UsageError, ViewerCrashed
from tracetui.model.text import neutralize_line
from tracetui.streams import to_null

# Order here is the order in ``tracetui --help``.
COMMANDS = ("view", "run", "show", "lint", "summary", "tail", "rerun", "report", "export", "demo")
_INDEXED = ("view", "lint", "summary", "rerun", "report", "export")
"""Commands that index runs, and so take ``--no-cache`` (tracetui/store/cache.py)."""

# An OSError with one of these and no file name is about the machine, not a bug.
_MACHINE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EIO, errno.EROFS})
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; ``only``: with that one command's parser alone (what parses a
    command line naming it: the other nine modules and their imports, ~10 ms of a cold
    summary's start, are not needed; its help and errors read the same)."""
    parser = argparse.ArgumentParser(
        prog="tracetui",
        description="Record, lint and review AI agents' tool calls whose output was capped.",
        epilog="A bare `tracetui PATH…` opens the viewer.",
    )
    from tracetui import __version__

    parser.add_argument("--version", action="version", version=f"tracetui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = COMMANDS if only is None else (only,)
    for name in names:
        module = importlib.import_module(f"tracetui.commands.{name}_cmd")
        module.register(sub)
    for name in (n for n in _INDEXED if n in names):
        sub.choices[name].add_argument(
            "--no-cache",
            action="store_true",
            help="index the run afresh: neither read nor write the index cache (docs/performance.md)",
        )
    return parser


def run() -> None:
    """The ``tracetui`` program (its console script and ``python -m tracetui``): :func:`main`,
    then the exit with its status, without the interpreter's teardown where the command allows
    it (tracetui/quick_exit.py)."""
    from tracetui import quick_exit

    quick_exit.leave(main())


def main(argv: list[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    try:
        code = _dispatch(list(given))
        try:
            _flush_stdout()
        except BrokenPipeError:  # the reader went away after the command ended: its status stands
            _drop_stdout()
        return code
    except UsageError as exc:
        # The message may name a file or quote a trace: neutralised here, once for every command.
        _say(f"tracetui: {neutralize_line(str(exc))}")
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `tracetui tail … | head`: the reader went away; that is not an error.
        _drop_stdout()
        return 0
    except Exception as exc:
        if os.environ.get("TRACETUI_DEBUG"):
            raise
        line = _user_os_error(exc)
        if line is not None:
            _say(f"tracetui: {line}")
            _flush_or_drop_stdout()
            return 2
        return _crashed(exc, [sys.argv[0], *given])


def _flush_stdout() -> None:
    """Write what is still in stdout's buffer (a pipe or a file: a short output) now, so that
    a reader gone or a full disk is told as for a long output, not by the interpreter's
    teardown ("Exception ignored in ...", status 120). Any other trouble is left to the exit,
    as before."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError as exc:
        if isinstance(exc, BrokenPipeError) or exc.errno in _MACHINE_ERRNOS:
            raise
    except ValueError:  # closed by the command: nothing left in it
        pass


def _flush_or_drop_stdout() -> None:
    """Write what stdout still holds, or drop it when it cannot be written (a full disk)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (OSError, ValueError):
        _drop_stdout()


def _drop_stdout() -> None:
    to_null(sys.stdout)


def _dispatch(args_list: list[str]) -> int:
    # `tracetui [--no-follow] PATH…` → `tracetui view …`: the first word that is not an option
    # names no command. (`tracetui --help` and `tracetui --version` have no such word.)
    first = next((a for a in args_list if not a.startswith("-")), None)
    # `tracetui --latest` names no command either: it views the newest agent session.
    if (first not in COMMANDS) if first is not None else ("--latest" in args_list):
        args_list.insert(0, "view")
        first = "view"
    # The command's parser alone only when its name comes first: an option before it
    # (`tracetui -h summary`, `tracetui - lint`) is the top-level parser's to judge, and its
    # help and errors list every command.
    parser = build_parser(args_list[0] if args_list and args_list[0] in COMMANDS else None)
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    if getattr(args, "no_cache", False):
        from tracetui.store import cache

        cache.disable()
    if args.command in _INDEXED:
        from tracetui.store import temp_files

        temp_files.sweep_stale()  # what a killed tracetui left in its private temp folder
    return int(args.func(args) or 0)


def _user_os_error(exc: BaseException) -> str | None:
    """The line for an OSError about the user's files or machine (no bug), else None.

    A file of tracetui's own package (a stylesheet, a sample) that cannot be read is a broken
    install or a bug, and so is an OSError that names no file and no machine trouble.
    """
    if not isinstance(exc, OSError) or exc.errno is None or not exc.strerror:
        return None
    if exc.filename is None:
        return exc.strerror if exc.errno in _MACHINE_ERRNOS else None
    name = os.fsdecode(exc.filename)
    if os.path.abspath(name).startswith(_PACKAGE_DIR + os.sep):
        return None
    return f"{neutralize_line(name)}: {exc.strerror}"


def _crashed(exc: Exception, argv: list[str]) -> int:
    """A bug: one line on stderr naming the crash report, exit 3."""
    from tracetui.crash import write_report  # only a crash pays for its imports

    if isinstance(exc, ViewerCrashed):
        what = f"the viewer crashed ({type(exc.error).__name__})"
    else:
        what = f"internal error ({type(exc).__name__})"
    try:
        path = write_report(exc, argv)
    except Exception as problem:  # the report is a courtesy; the exit status is not
        _say(f"tracetui: {what}; no crash report could be written: {neutralize_line(str(problem))}")
    else:
        _say(f"tracetui: {what}, a bug; the crash report is {neutralize_line(path)}")
    return 3


def _say(line: str) -> None:
    with contextlib.suppress(OSError, ValueError):  # stderr closed: the exit status still tells
        print(line, file=sys.stderr)
