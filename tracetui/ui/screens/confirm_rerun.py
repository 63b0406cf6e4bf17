"""The re-run confirmation: the exact argv and cwd of a span, before anything runs (SPEC §6).

A trace file is untrusted input, and ``r`` would run whatever its argv says. This modal shows
the argv shell-quoted (so what you read is what runs, one word per argument) and the resolved
cwd, both neutralised, and returns True only for an explicit "Run" (``y`` or the Run button).
Cancel has the focus, so a stray Enter runs nothing. :func:`start_rerun` is the guard in front
of it: rows that cannot be re-run get a notice and no modal. It is handed the app as a
:class:`~tracetui.ui.host.ViewerHost` (this module never imports the app).
"""

from __future__ import annotations

import os
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tracetui.model.text import neutralize_line, quote_argv
from tracetui.rerun import runner as rerun
from tracetui.rerun.runner import Target
from tracetui.store.runset import sidecar_path
from tracetui.ui.host import ViewerHost
from tracetui.ui.widgets.rerun_pane import DEFAULT_TIMEOUT, current_pane, open_pane


def describe(target: Target, timeout: float) -> Text:
    """The facts a person needs to decide (every trace string neutralised, never markup)."""
    span = target.span
    t = Text()
    t.append("This command comes from a trace file: untrusted input.\n", "bold")
    t.append(
        "Read it before running it. It runs uncapped, without a shell, with stdin closed,\n"
        f"in its own process group, killed after {timeout:g} s or when you press Esc.\n\n"
    )
    t.append("argv  ", "dim")
    t.append(quote_argv(target.argv) + "\n", "bold")
    t.append("cwd   ", "dim")
    t.append(neutralize_line(target.cwd))
    if not span.cwd:
        t.append("   (not recorded: the run's folder)", "dim")
    elif span.cwd != target.cwd:
        t.append(f"   (recorded: {neutralize_line(span.cwd)})", "dim")
    t.append("\nspan  ", "dim")
    t.append(neutralize_line(span.command_id or "(no id)"))
    t.append(f"   {neutralize_line(target.index.run.name)}", "dim")
    sidecar = os.path.basename(sidecar_path(target.index.run.base))
    t.append("\n\nThe re-run is recorded next to the run, in ", "dim")
    t.append(neutralize_line(sidecar), "dim italic")
    t.append("; the trace itself is not changed.", "dim")
    return t


class ConfirmRerun(ModalScreen[bool]):
    """Returns True to run the target, False otherwise."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Run it", id="rerun_confirm.run", tooltip="Run this argv now"),
        Binding(
            "n,escape", "answer(False)", "Cancel", id="rerun_confirm.cancel", tooltip="Run nothing"
        ),
    ]

    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__()
        self.target = target
        self.timeout = timeout

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(Text("Re-run this command?", style="bold"), id="confirm-title")
            yield Static(describe(self.target, self.timeout), id="confirm-facts")
            with Horizontal(id="confirm-buttons"):
                yield Button("Run it (y)", variant="warning", id="confirm-run")
                yield Button("Cancel (n, Esc)", variant="primary", id="confirm-cancel")

    def on_mount(self) -> None:
        self.query_one("#confirm-cancel", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-run")

    def action_answer(self, run: bool) -> None:
        self.dismiss(run)


def start_rerun(
    app: ViewerHost,
    row: int | None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    write_sidecar: bool = True,
) -> None:
    """``r``: check the row, ask, and open the pane on a yes. Refusals are notices, no modal."""
    if isinstance(app.screen, ConfirmRerun):
        return  # already asking
    pane = current_pane(app)
    if pane is not None and pane.running:
        app.notify("a re-run is running: Esc cancels it", timeout=4)
        return
    if app.index is None or row is None:
        app.notify("no span selected", timeout=3)
        return
    try:
        target = rerun.target_for_row(app.index, row)
    except rerun.RerunError as exc:
        app.notify(
            neutralize_line(str(exc)),
            title="cannot re-run",
            severity="warning",
            timeout=8,
            markup=False,
        )
        return
    if not os.path.isdir(target.cwd):
        app.notify(
            f"its working directory is not there: {neutralize_line(target.cwd)}",
            title="cannot re-run",
            severity="warning",
            timeout=8,
            markup=False,
        )
        return
    try:  # a link, FIFO or someone else's file planted as the sidecar or its lock: refused now
        if write_sidecar:
            rerun.check_sidecar(target)
    except OSError as exc:
        app.notify(
            neutralize_line(str(exc)),
            title="cannot re-run",
            severity="warning",
            timeout=8,
            markup=False,
        )
        return

    async def answered(yes: bool | None) -> None:
        if yes:
            await open_pane(app, target, timeout, write_sidecar)

    app.push_screen(ConfirmRerun(target, timeout), answered)
