"""A one-line question: a small modal with an input. Enter accepts what it holds, Esc cancels.

Used where a key needs one more word from the user: where to write the postmortem (``P``) and
which row or id to go to (``:``). The answer is the text as typed (stripped); Esc gives None.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class AskScreen(ModalScreen[str | None]):
    """Asks one question; dismisses with the answer, or None on Esc or an empty answer."""

    DEFAULT_CSS = """
    AskScreen { align: center middle; }
    #ask-box {
        width: 90; max-width: 95%; height: auto;
        border: round $accent; background: $surface; padding: 0 1;
    }
    #ask-hint { color: $tt-faint; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="ask.cancel", tooltip="Close, doing nothing"),
    ]

    def __init__(self, question: str, value: str = "", hint: str = "") -> None:
        super().__init__()
        self.question = question
        self.value = value
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical(id="ask-box"):
            yield Static(Text(self.question, style="bold"), id="ask-question")
            yield Input(value=self.value, id="ask-input")
            yield Static(Text(self.hint or "Enter: accept · Esc: cancel"), id="ask-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
