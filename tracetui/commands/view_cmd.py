"""`tracetui [view] PATH…`: the terminal UI (SPEC §5).

Paths are opened before the app starts, so a missing or unreadable path is one clear line on
stderr and exit 2, never a traceback inside a half-drawn screen. A crash inside the running app
restores the terminal and ends as a crash report and exit 3 (tracetui/ui/launch.py). The UI is
imported here, in ``main``: other commands never pay for Textual.
"""

from __future__ import annotations

import argparse

from tracetui.commands.latest import add_latest_options, session_paths


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("view", help="the terminal UI: spans, detail, retry chains")
    p.add_argument("paths", nargs="*", metavar="PATH", help="run file, rotated member or directory")
    add_latest_options(p)
    p.add_argument(
        "--no-follow",
        action="store_true",
        help="a frozen postmortem view: do not tail the files for new spans",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from tracetui.errors import UsageError
    from tracetui.store.runset import RunSetError, open_paths

    args.paths = session_paths(args, args.paths, "view")
    try:
        runs = open_paths(args.paths)
    except RunSetError as exc:
        raise UsageError(str(exc)) from None
    if not runs:
        raise UsageError("nothing to view")
    for path in args.paths:
        if _is_empty_file(path) and all(
            _is_empty_file(m.path) for m in open_paths([path])[0].members
        ):
            # docs/viewer.md: an empty path is one line and exit 2, before any screen is drawn.
            # `tracetui tail` still follows an empty base that a writer is about to fill.
            raise UsageError(f"{path}: empty file (0 bytes): nothing to view yet")

    from tracetui.ui.app import TraceApp
    from tracetui.ui.launch import run_app

    # A crash inside the app comes out of run_app as ViewerCrashed: a crash report, exit 3.
    return run_app(TraceApp(runs, follow=not args.no_follow))


def _is_empty_file(path: str) -> bool:
    """Whether ``path`` names a regular file of 0 bytes (a directory never does)."""
    import os

    try:
        return os.path.isfile(path) and os.path.getsize(path) == 0
    except OSError:
        return False
