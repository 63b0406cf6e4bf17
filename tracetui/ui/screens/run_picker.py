"""The run picker: a directory may hold several runs (one per base file); choose one."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tracetui.model.text import neutralize_line
from tracetui.store.runset import Run


class RunPicker(ModalScreen[int]):
    """Returns the position of the chosen run in the list it was given."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "quit_app", "Quit", id="picker.quit", tooltip="Leave tracetui")
    ]

    def __init__(self, runs: list[Run]) -> None:
        super().__init__()
        self.runs = runs

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Static(f"{len(self.runs)} runs here: choose one", id="picker-title")
            options = []
            for i, run in enumerate(self.runs):
                n = len(run.members)
                label = f"{neutralize_line(run.name)}   ({n} file{'s' if n != 1 else ''})"
                options.append(Option(Text(label), id=str(i)))  # Text: never markup
            yield OptionList(*options, id="picker-list")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))

    def action_quit_app(self) -> None:
        self.app.exit(0)
