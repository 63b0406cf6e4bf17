"""The help screen: every key (read from the app's bindings, so it never drifts) and the panes."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from tracetui.ui.keys import keys_label
from tracetui.ui.palette import theme_style

PANES = [
    (
        "Header",
        "run name, files, spans, failed, truncated, bytes hidden from the agent, bad lines.",
    ),
    (
        "Spans",
        "one row per span (or bad line): time, id, exit, duration, stdout and stderr bytes/cap,"
        " ✂ when truncated (? when the dialect cannot tell), argv. Red exit = failure; ERR = no"
        " exit captured; LATEST FAILURE marks the newest failure.",
    ),
    (
        "Detail",
        "argv (shell-quoted), cwd, time, exit, note; per stream the bytes never shown and their"
        " share, hashes, item counts, and the preview with a banner at the clip point. On 80"
        " columns the bytes never shown and the banner are pinned at the top.",
    ),
    ("Chain", "the retry tree of the selected span: root, attempts, branches, missing parents."),
]
"""Each pane and what it shows: drawn as a table, so a wrapped line stays under its text."""

MOVING = (
    "Tab moves focus between panes; arrow keys then scroll the focused pane; z zooms it. Esc"
    " closes or clears; q closes a zoom, a re-run pane or this screen, and quits from the list."
)
PICKER = (
    "In the run picker (o), typing filters the runs, so q is a letter there: Esc empties the"
    " filter, then leaves the picker."
)
"""The one place q is not "close": said here and in docs/viewer.md (issue 16)."""


def panes_table() -> Table:
    table = Table(box=None, show_header=False, expand=True, padding=(0, 1, 0, 0))
    table.add_column("pane", no_wrap=True, style="bold")
    table.add_column("shows", ratio=1)
    for name, shows in PANES:
        table.add_row(Text(name), Text(shows))
    return table


def key_table(
    bindings: list[Binding], keymap: dict[str, str] | None = None, faint: str = ""
) -> Table:
    """Keys (as remapped by ``keymap``), what they do, and the longer tooltip.

    Text cells, so nothing is read as markup.
    """
    keymap = keymap or {}
    table = Table(box=None, show_header=False, expand=True, padding=(0, 1))
    table.add_column("key", no_wrap=True, style="bold")
    table.add_column("action", no_wrap=True)
    table.add_column("more", style=faint, ratio=1)
    for b in bindings:
        keys = keymap.get(b.id or "", b.key)
        table.add_row(Text(keys_label(keys)), Text(b.description), Text(b.tooltip))
    return table


class HelpScreen(ModalScreen[None]):
    """Keys and panes; any of Esc, q or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "escape,q,question_mark",
            "close",
            "Close help",
            id="help.close",
            tooltip="Back to the run",
        ),
    ]

    def __init__(self, bindings: list[Binding], keymap: dict[str, str] | None = None) -> None:
        super().__init__()
        self.key_bindings = bindings
        self.keymap = keymap or {}

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static(Text("Keys", style="bold underline"))
            faint = theme_style(self.app.theme_variables, "$tt-faint")  # readable (ui/palette.py)
            yield Static(key_table(self.key_bindings, self.keymap, faint), id="help-keys")
            yield Static(Text(PICKER), id="help-picker")  # under the keys it names
            yield Static(Text("Panes", style="bold underline"))
            yield Static(panes_table(), id="help-panes")
            yield Static(Text(MOVING))
            yield Static(Text("Ctrl+P opens the command palette: every action by name.", faint))

    def action_close(self) -> None:
        self.dismiss(None)
