"""The re-run confirmation: the exact argv and cwd of a span, before anything runs (SPEC §6).

A trace file is untrusted input, and ``r`` would run whatever its argv says. This modal shows
the whole argv shell-quoted (so what you read is what runs, one word per argument), wrapped, with
its size, and the resolved cwd, all neutralised and drawn as Text (never markup). Warnings on
top name an inline script (``sh -c``, ``python -c``, ``perl -e``…) and a long argv
(:mod:`tracetui.rerun.review`).

Nothing runs that could not be seen: the facts scroll (arrows, PgUp/PgDn, Home/End), and until
they have been scrolled to their end (or fit in the window) the Run button is disabled and
``y`` only says "scroll to the end first". It returns True only for an explicit
"Run" (``y`` or the Run button); Cancel has the focus, so a stray Enter runs nothing.
:func:`start_rerun` is the guard in front of it: rows that cannot be re-run get a notice and
no modal. It is handed the app as a :class:`~tracetui.ui.host.ViewerHost` (this module never
imports the app).
"""

from __future__ import annotations

import os
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.errors import NoWidget
from textual.events import Resize
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from tracetui.model.text import neutralize_line, quote_argv
from tracetui.rerun import review
from tracetui.rerun import runner as rerun
from tracetui.rerun.runner import Target
from tracetui.store.runset import sidecar_path
from tracetui.ui.host import ViewerHost
from tracetui.ui.palette import theme_style
from tracetui.ui.widgets.rerun_pane import DEFAULT_TIMEOUT, current_pane, open_pane

NOT_SEEN = "scroll to the end first: not all of it was on screen"
"""What ``y`` says while part of the facts (the argv, or what follows it: at 80×24 the argv may
be in sight and the note on where the re-run is recorded below it) has not been on screen."""
_CHROME_ROWS = 11
"""Rows of the modal around the facts and warnings: border 2, title 2, hint 2, buttons 4, 1 spare
(tracetui.tcss; the box is at most 90% of the window high, 90 columns or 95% wide)."""


LABEL = 6
"""Columns of a fact's label (``argv  ``); a wrapped value keeps this indent."""


def hanging(label: str, value: str, width: int) -> list[str]:
    """``label`` then ``value`` cut into lines of at most ``width`` columns, each line after the
    first indented under the value. A line breaks after a space where it can, else mid-word;
    no character is dropped (a space at a break stays at the end of its line)."""
    room = max(8, width - LABEL)
    lines: list[str] = []
    rest = value
    while len(rest) > room:
        cut = rest.rfind(" ", 0, room) + 1 or room  # after the last space that fits
        lines.append(rest[:cut])
        rest = rest[cut:]
    lines.append(rest)
    return [f"{label:<{LABEL}}{lines[0]}", *(" " * LABEL + line for line in lines[1:])]


def describe(target: Target, timeout: float, width: int = 80, faint: str = "") -> Text:
    """The facts a person needs to decide (every trace string neutralised, never markup),
    wrapped to ``width`` columns with values indented under their labels; ``faint`` is the
    style of the labels and asides (the theme's readable faint colour, ui/palette.py)."""
    span = target.span
    shown = quote_argv(target.argv)
    t = Text(overflow="fold")  # a long word is folded, never cut: every character is drawn
    t.append("This command comes from a trace file: untrusted input.\n", "bold")
    t.append(
        "Read it before running it. It runs uncapped, without a shell, with stdin closed, in its"
        f" own process group, killed after {timeout:g} s or when you press Esc.\n\n"
    )
    argv = hanging("argv", shown, width)
    t.append(argv[0][:LABEL], faint)
    t.append("\n".join([argv[0][LABEL:], *argv[1:]]) + "\n", "bold")
    t.append(f"{'':<{LABEL}}{review.size_line(target.argv, len(shown))}\n", faint)
    cwd = neutralize_line(target.cwd)
    if not span.cwd:
        cwd += "   (not recorded: the run's folder)"
    elif span.cwd != target.cwd:
        cwd += f"   (recorded: {neutralize_line(span.cwd)})"
    where = hanging("cwd", cwd, width)
    t.append(where[0][:LABEL], faint)
    t.append("\n".join([where[0][LABEL:], *where[1:]]) + "\n")
    ident = f"{neutralize_line(span.command_id or '(no id)')}   {target.index.run.name}"
    which = hanging("span", neutralize_line(ident), width)
    t.append(which[0][:LABEL], faint)
    t.append("\n".join([which[0][LABEL:], *which[1:]]))
    base = target.index.run.base
    sidecar = sidecar_path(base)
    if os.path.dirname(sidecar) == os.path.dirname(base):
        t.append("\n\nThe re-run is recorded next to the run, in ", faint)
        t.append(neutralize_line(os.path.basename(sidecar)), f"{faint} italic")
    else:  # a bundled sample or a folder not writable: store/sidecars.py
        t.append("\n\nThis run's folder is left as it is: the re-run is recorded in ", faint)
        t.append(neutralize_line(sidecar), f"{faint} italic")
    t.append("; the trace itself is not changed.", faint)
    return t


def warning_text(target: Target) -> Text:
    """The warnings shown above the facts (empty Text when there are none)."""
    lines = review.warnings(target.argv, len(quote_argv(target.argv)))
    return Text("\n".join(f"⚠ {line}" for line in lines), "bold")


_SCROLL_KEYS = (
    ("up", "line_up", "Scroll the argv up one line"),
    ("down", "line_down", "Scroll the argv down one line"),
    ("pageup", "page_up", "Scroll the argv up one page"),
    ("pagedown", "page_down", "Scroll the argv down one page"),
    ("home", "home", "Scroll to the start of the argv"),
    ("end", "end", "Scroll to the end"),
)


class ConfirmRerun(ModalScreen[bool]):
    """Returns True to run the target, False otherwise."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Run it", id="rerun_confirm.run", tooltip="Run this argv now"),
        Binding(
            "n,escape", "answer(False)", "Cancel", id="rerun_confirm.cancel", tooltip="Run nothing"
        ),
        *[
            Binding(
                key,
                f"scroll_facts('{how}')",
                tip,
                show=False,
                id=f"rerun_confirm.{how}",
                tooltip=tip,
            )
            for key, how, tip in _SCROLL_KEYS
        ],
    ]

    def __init__(self, target: Target, timeout: float) -> None:
        super().__init__()
        self.target = target
        self.timeout = timeout
        self.seen_end = False
        """True once the end of the facts has been on screen (it stays True)."""
        self._warnings = bool(warning_text(target).plain)

    def compose(self) -> ComposeResult:
        warning = warning_text(self.target)
        with Vertical(id="confirm-box"):
            yield Static(Text("Re-run this command?", style="bold"), id="confirm-title")
            box = Static(warning, id="confirm-warning")
            box.display = bool(warning.plain)
            yield box
            with VerticalScroll(id="confirm-scroll"):
                yield Static(self._facts(), id="confirm-facts")
            yield Static("", id="confirm-hint")
            with Horizontal(id="confirm-buttons"):
                yield Button("Run it (y)", variant="warning", id="confirm-run", disabled=True)
                yield Button("Cancel (n, Esc)", variant="primary", id="confirm-cancel")

    @property
    def facts_scroll(self) -> VerticalScroll:
        return self.query_one("#confirm-scroll", VerticalScroll)

    def on_mount(self) -> None:
        self.query_one("#confirm-cancel", Button).focus()
        self._fit()
        self._show_hint()
        self.watch(self.facts_scroll, "scroll_y", self._check_end, init=False)
        self.call_after_refresh(self._check_end)

    def _text_width(self) -> int:
        """Columns the facts are wrapped to: the box's inside, less its scrollbar."""
        width = self.app.size.width
        return max(20, min(90, width * 95 // 100) - 4 - 2)

    def _faint(self) -> str:
        return theme_style(self.app.theme_variables, "$tt-faint")  # ui/palette.py

    def _facts(self) -> Text:
        return describe(self.target, self.timeout, self._text_width(), self._faint())

    def on_resize(self, _event: Resize) -> None:
        self.query_one("#confirm-facts", Static).update(self._facts())
        self._fit()
        self.call_after_refresh(self._check_end)

    def _fit(self) -> None:
        # The facts get what the window leaves: the buttons and the hint stay on screen and the
        # facts scroll inside their own region, so "at the end" means "seen to the end".
        width, height = self.app.size
        inner = max(1, min(90, width * 95 // 100) - 4)  # less the box's border and padding
        lines = warning_text(self.target).plain.split("\n") if self._warnings else []
        warning_rows = sum(-(-max(1, len(line)) // inner) for line in lines)
        room = height * 9 // 10 - _CHROME_ROWS - warning_rows
        self.facts_scroll.styles.max_height = max(3, room)

    # ------------------------------------------------------------------ seen to the end?
    def _fully_visible(self) -> bool:
        """True when the facts' region is laid out and drawn whole (not clipped by the box)."""
        scroll = self.facts_scroll
        if scroll.size.height <= 0:
            return False
        try:
            geometry = self.find_widget(scroll)
        except NoWidget:
            return False
        return geometry.clip.contains_region(geometry.region)

    def _at_end(self) -> bool:
        scroll = self.facts_scroll
        return self._fully_visible() and scroll.scroll_y >= scroll.max_scroll_y

    def _check_end(self) -> None:
        if not self.seen_end and self._at_end():
            self.seen_end = True
            self.query_one("#confirm-run", Button).disabled = False
            self._show_hint()

    def _show_hint(self, refused: bool = False) -> None:
        hint = self.query_one("#confirm-hint", Static)
        if self.seen_end:
            hint.update(
                Text("You have seen all of it: y runs it, n or Esc cancels.", self._faint())
            )
        elif refused:
            hint.update(Text(f"{NOT_SEEN.capitalize()} (↓ PgDn End).", "bold"))
        else:
            hint.update(
                Text("↓ PgDn End: read it to its end; Run is enabled there.", self._faint())
            )

    # ------------------------------------------------------------------ keys
    def action_scroll_facts(self, how: str) -> None:
        scroll = self.facts_scroll
        {
            "line_up": lambda: scroll.scroll_up(animate=False),
            "line_down": lambda: scroll.scroll_down(animate=False),
            "page_up": lambda: scroll.scroll_page_up(animate=False),
            "page_down": lambda: scroll.scroll_page_down(animate=False),
            "home": lambda: scroll.scroll_home(animate=False),
            "end": lambda: scroll.scroll_end(animate=False),
        }[how]()
        self._check_end()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id == "confirm-run")

    def action_answer(self, run: bool) -> None:
        if not run:
            self.dismiss(False)
            return
        self._check_end()
        if self.seen_end:
            self.dismiss(True)
        elif not self._fully_visible():
            # Asked before the first layout (keys typed ahead): decide once it is drawn.
            self.call_after_refresh(self._answer_when_drawn)
        else:
            self._refuse()

    def _answer_when_drawn(self) -> None:
        self._check_end()
        if self.seen_end:
            self.dismiss(True)
        else:
            self._refuse()

    def _refuse(self) -> None:
        self._show_hint(refused=True)
        self.app.notify(NOT_SEEN, title="not run", severity="warning", timeout=4, markup=False)


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
