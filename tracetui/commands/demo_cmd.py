"""`tracetui demo [--keep DIR] [--speed X] [--no-ui]`: a live demo (SPEC §4).

A scripted agent session (:mod:`tracetui.demo.session`) records real commands through the
recorder into a run folder that rotates every few KB, while the viewer follows it. The session
runs in a thread beside the viewer; leaving the viewer stops it (killing the command running).
The folder is a temporary one, removed on exit, unless ``--keep DIR`` names where to keep it.
``--no-ui`` only writes the run (for tests and scripts). The viewer part lives in
tracetui/ui/demo.py: only ``tracetui.ui`` imports Textual.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("demo", help="a live demo: real commands recorded while the viewer follows")
    p.add_argument(
        "--keep",
        metavar="DIR",
        help="write the run into DIR and keep it (default: a temporary folder, removed)",
    )
    p.add_argument(
        "--speed",
        type=float,
        default=None,
        metavar="X",
        help="pace of the session: 2 is twice as fast, 0 no pauses (default 1, or 0 with --no-ui)",
    )
    p.add_argument("--no-ui", action="store_true", help="only write the run, without the viewer")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from tracetui.demo.session import BASE, prepare, run_session
    from tracetui.errors import UsageError

    speed = args.speed if args.speed is not None else (0.0 if args.no_ui else 1.0)
    if not speed >= 0 or speed == float("inf"):
        raise UsageError("--speed must be a number >= 0")
    if args.keep:
        folder = os.path.abspath(args.keep)
        if os.path.exists(os.path.join(folder, BASE)):
            raise UsageError(f"{args.keep} already holds a run ({BASE}): choose another folder")
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise UsageError(f"{args.keep}: not a directory")
    else:
        folder = tempfile.mkdtemp(prefix="tracetui-demo-")
    try:
        try:
            prepare(folder)
        except OSError as exc:
            raise UsageError(f"cannot write the demo run in {folder}: {exc.strerror}") from None
        if args.no_ui:
            n = run_session(folder, speed=speed)
            if args.keep:
                print(f"tracetui demo: {n} spans recorded in {folder}", file=sys.stderr)
            else:  # the temporary folder goes in the finally below: do not name it as if it stayed
                print(
                    f"tracetui demo: recorded {n} spans in a temporary run"
                    " (removed; --keep DIR keeps it)",
                    file=sys.stderr,
                )
            return 0
        return _with_viewer(folder, speed)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        elif not args.no_ui:
            print(f"tracetui demo: the run is kept in {folder}", file=sys.stderr)


def _with_viewer(folder: str, speed: float) -> int:
    from tracetui.demo.session import STEPS, run_session
    from tracetui.store.runset import open_paths
    from tracetui.ui.demo import DemoApp
    from tracetui.ui.launch import run_app

    stop = threading.Event()

    def work() -> None:
        try:
            n = run_session(folder, speed=speed, stop=stop)
        except Exception as exc:
            app.session_ended(0, f"{type(exc).__name__}: {exc}")
            return
        if not stop.is_set():
            app.session_ended(n)

    session = threading.Thread(target=work, name="tracetui-demo", daemon=True)
    app = DemoApp(open_paths([folder]), folder=folder, steps=len(STEPS), start=session.start)
    try:
        return run_app(app)  # a crash in the viewer: ViewerCrashed, a crash report and exit 3
    finally:
        stop.set()  # kills the command running, ends the session between steps
        if session.is_alive():
            session.join(timeout=5)
