"""The viewer of ``tracetui demo``: TraceApp following the demo's run while a session writes it.

The session itself (tracetui/demo/session.py) knows nothing of Textual; it runs on a thread that
``tracetui.commands.demo_cmd`` owns, which starts it from here (``start``) once the viewer is up
and reports back through :meth:`DemoApp.session_ended`, safe to call from that thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.message import Message

from tracetui.store.runset import Run
from tracetui.ui.app import TraceApp


@dataclass
class DemoEnded(Message):
    """The session finished (``spans`` recorded), or stopped with ``error``."""

    spans: int
    error: str | None = None


class DemoApp(TraceApp):
    """The viewer, following the demo's run while the session writes it."""

    def __init__(
        self, runs: list[Run], *, folder: str, steps: int, start: Callable[[], None]
    ) -> None:
        super().__init__(runs, follow=True)
        self.folder = folder
        self.steps = steps
        self.start_session = start

    def on_mount(self) -> None:
        super().on_mount()
        self.sub_title = "demo"
        self.notify(
            f"a scripted agent session runs {self.steps} real commands into "
            f"{self.folder}; watch them arrive (q quits)",
            title="tracetui demo",
            timeout=8,
            markup=False,
        )
        self.start_session()

    def session_ended(self, spans: int, error: str | None = None) -> None:
        """Called from the session's thread when it is over."""
        self.post_message(DemoEnded(spans, error))

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
