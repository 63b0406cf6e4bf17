"""`tracetui demo [--keep DIR] [--speed X] [--no-ui]`: a live demo (SPEC §4).

A scripted agent session (:mod:`tracetui.demo.session`) records real commands through the
recorder into a run folder that rotates every few KB, while the viewer follows it. The session
runs in a thread beside the viewer; leaving the viewer stops it (killing the command running).
The folder is a temporary one, removed on exit, unless ``--keep DIR`` names where to keep it.
``--no-ui`` only writes the run (for tests and scripts).
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
    from tracetui.cli import UsageError
    from tracetui.demo.session import BASE, prepare, run_session

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
            print(f"tracetui demo: {n} spans recorded in {folder}", file=sys.stderr)
            return 0
        return _with_viewer(folder, speed)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
        elif not args.no_ui:
            print(f"tracetui demo: the run is kept in {folder}", file=sys.stderr)


def _with_viewer(folder: str, speed: float) -> int:
    from dataclasses import dataclass

    from textual.message import Message

    from tracetui.demo.session import STEPS, run_session
    from tracetui.store.runset import open_paths
    from tracetui.ui import app as app_module
    from tracetui.ui.app import TraceApp

    @dataclass
    class DemoEnded(Message):
        """The session finished (``spans`` recorded), or stopped with ``error``."""

        spans: int
        error: str | None = None

    class DemoApp(TraceApp):
        """The viewer, following the demo's run while the session writes it."""

        # A relative CSS_PATH is taken from the subclass's module: name the viewer's own file.
        CSS_PATH = os.path.join(
            os.path.dirname(os.path.abspath(app_module.__file__)), TraceApp.CSS_PATH
        )

        def on_mount(self) -> None:
            super().on_mount()
            self.sub_title = "demo"
            self.notify(
                f"a scripted agent session runs {len(STEPS)} real commands into "
                f"{folder}; watch them arrive (q quits)",
                title="tracetui demo",
                timeout=8,
                markup=False,
            )
            session.start()

        def on_demo_ended(self, msg: DemoEnded) -> None:
            if msg.error:
                self.notify(
                    f"the demo session stopped: {msg.error}",
                    severity="error",
                    timeout=15,
                    markup=False,
                )
            else:
                self.notify(
                    f"demo finished: {msg.spans} spans recorded. Try L, t, [ ], R, / — q to quit",
                    title="tracetui demo",
                    timeout=20,
                )

    stop = threading.Event()

    def work() -> None:
        try:
            n = run_session(folder, speed=speed, stop=stop)
        except Exception as exc:
            app.post_message(DemoEnded(0, f"{type(exc).__name__}: {exc}"))
            return
        if not stop.is_set():
            app.post_message(DemoEnded(n))

    session = threading.Thread(target=work, name="tracetui-demo", daemon=True)
    app = DemoApp(open_paths([folder]), follow=True)
    try:
        code = app.run()
    finally:
        stop.set()  # kills the command running, ends the session between steps
        if session.is_alive():
            session.join(timeout=5)
    return int(code or 0)
