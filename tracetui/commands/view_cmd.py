"""`tracetui [view] PATH…`: the terminal UI (SPEC §5).

Paths are opened before the app starts, so a missing or unreadable path is one clear line on
stderr and exit 2, never a traceback inside a half-drawn screen. Textual is imported here, in
``main``, and nowhere else outside ``tracetui.ui``: other commands never pay for it.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("view", help="the terminal UI: spans, detail, retry chains")
    p.add_argument("paths", nargs="+", metavar="PATH", help="run file, rotated member or directory")
    p.add_argument(
        "--no-follow",
        action="store_true",
        help="a frozen postmortem view: do not tail the files for new spans",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from tracetui.cli import UsageError
    from tracetui.store.runset import RunSetError, open_paths

    try:
        runs = open_paths(args.paths)
    except RunSetError as exc:
        raise UsageError(str(exc)) from None
    if not runs:
        raise UsageError("nothing to view")

    from tracetui.ui.app import TraceApp

    app = TraceApp(runs, follow=not args.no_follow)
    code = app.run()
    return int(code or 0)
