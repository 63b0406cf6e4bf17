"""The viewer's keys: one :class:`~textual.binding.Binding` per action of the app.

Every binding has an id (``view.<action>``, so a keymap can remap it) and a tooltip; the help
screen and the command palette read this same list, so they never drift from the keys. Vim
aliases ride on the same binding; rarely used keys are kept out of the footer (``show=False``).
The actions themselves are methods of :class:`tracetui.ui.app.TraceApp`.
"""

from __future__ import annotations

from textual.binding import Binding


def _b(
    key: str,
    action: str,
    description: str,
    tooltip: str,
    *,
    show: bool = True,
    key_display: str | None = None,
) -> Binding:
    """One key of the viewer: its id is ``view.<action>``."""
    return Binding(
        key,
        action,
        description,
        show=show,
        key_display=key_display,
        id=f"view.{action}",
        tooltip=tooltip,
    )


VIEW_BINDINGS: list[Binding] = [
    _b(
        "r",
        "rerun",
        "Re-run",
        "Re-run this argv uncapped (after a confirmation) and diff it against the stored preview",
    ),
    _b("down,j", "cursor_down", "Next row", "Move the cursor down one row", show=False),
    _b("up,k", "cursor_up", "Previous row", "Move the cursor up one row", show=False),
    _b(
        "pagedown,space,ctrl+f",
        "page_down",
        "Page down",
        "Move the cursor down one page",
        show=False,
    ),
    _b("pageup,b,ctrl+b", "page_up", "Page up", "Move the cursor up one page", show=False),
    _b("ctrl+d", "half_page_down", "Half page down", "Move down half a page", show=False),
    _b("ctrl+u", "half_page_up", "Half page up", "Move up half a page", show=False),
    _b("g,home", "first", "First row", "Go to the first row", show=False),
    _b("G,end", "last", "Last row", "Go to the last row", show=False),
    _b(
        "colon,ctrl+g",
        "goto",
        "Go to",
        "Go to a row number or a span id (a unique prefix will do)",
        show=False,
        key_display=":",
    ),
    _b(
        "n",
        "next_match",
        "Next match",
        "Next search match; with no search active, the next failure",
    ),
    _b(
        "N",
        "prev_match",
        "Previous match",
        "Previous search match; with no search active, the previous failure",
        show=False,
    ),
    _b("e", "next_failure", "Next failure", "Next span with a nonzero or missing exit"),
    _b(
        "E",
        "prev_failure",
        "Previous failure",
        "Previous span with a nonzero or missing exit",
        show=False,
    ),
    _b(
        "w",
        "next_suspicion",
        "Next suspicion",
        "Next span an incident rule (TT019-TT025) flags: the agent may have acted on a part",
        show=False,
    ),
    _b(
        "W",
        "prev_suspicion",
        "Previous suspicion",
        "Previous span an incident rule (TT019-TT025) flags",
        show=False,
    ),
    _b("t", "next_truncated", "Next truncated", "Next span whose output was cut", show=False),
    _b(
        "T",
        "prev_truncated",
        "Previous truncated",
        "Previous span whose output was cut",
        show=False,
    ),
    _b(
        "L", "latest_failure", "Latest failure", "Jump to the latest failure in the run", show=False
    ),
    _b(
        "slash",
        "search",
        "Search",
        "Search argv, notes and previews; Enter finds the first match, then n / N",
        key_display="/",
    ),
    _b(
        "F",
        "filter_failed",
        "Failures only",
        "Show only failed spans (again: show all)",
        show=False,
    ),
    _b(
        "X",
        "filter_truncated",
        "Truncated only",
        "Show only truncated spans (again: show all)",
        show=False,
    ),
    _b("R", "toggle_raw", "Raw JSON", "Show the record as JSON instead of the detail", show=False),
    _b(
        "u",
        "unseen",
        "Unseen part",
        "Show the kept bytes of a cut stream that the agent never saw (no re-run needed)",
        show=False,
    ),
    _b("y", "copy_argv", "Copy argv", "Copy the shell-quoted argv to the clipboard", show=False),
    _b(
        "left_square_bracket",
        "chain_prev",
        "Previous attempt",
        "Step to the previous node of the retry chain",
        show=False,
        key_display="[",
    ),
    _b(
        "right_square_bracket",
        "chain_next",
        "Next attempt",
        "Step to the next node of the retry chain",
        show=False,
        key_display="]",
    ),
    _b("z", "zoom", "Zoom pane", "Show the focused pane full screen (again: back)", show=False),
    _b(
        "escape",
        "clear",
        "Close / clear",
        "Close the search bar or re-run pane; else end the search; else clear the filter",
        show=False,
    ),
    _b("f", "toggle_follow", "Follow", "Follow new spans on/off (LIVE / PAUSED)", show=False),
    _b(
        "o",
        "open_run",
        "Open run",
        "Open another run of this folder (new ones included)",
        show=False,
    ),
    _b(
        "P",
        "export_report",
        "Postmortem",
        "Write the Markdown postmortem of this span's retry chain (asks where)",
    ),
    _b(
        "s",
        "stats",
        "Trends",
        "Hidden share, failures and response sizes over the run's course",
        show=False,
    ),
    _b("question_mark", "help", "Help", "Every key and pane", key_display="?"),
    _b("q", "quit_app", "Quit", "Close the zoom or re-run pane; on the bare list, leave tracetui"),
]
"""The app's bindings, in the order the help screen lists them.

The footer shows those with ``show`` (re-run first), chosen to fit 100 columns."""

PRETTY = {
    "question_mark": "?",
    "slash": "/",
    "colon": ":",
    "space": "Space",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "up": "↑",
    "down": "↓",
    "home": "Home",
    "end": "End",
    "escape": "Esc",
}
"""How a key is written for people (help screen, palette, docs)."""


def key_label(key: str) -> str:
    """``ctrl+f`` → ``Ctrl+F``, ``question_mark`` → ``?``; letters as they are."""
    if key in PRETTY:
        return PRETTY[key]
    if key.startswith("ctrl+"):
        return "Ctrl+" + key_label(key[5:]).upper()
    return key


def keys_label(keys: str) -> str:
    """Every key of a binding's comma-separated list, as people write them."""
    return ", ".join(key_label(k.strip()) for k in keys.split(",") if k.strip())
