"""Turning untrusted trace text into something safe to print or render.

Every string in a trace is untrusted. Control characters and escape sequences (OSC 52 clipboard
writes, OSC 0/2 titles, cursor moves, screen clears) must never reach a terminal, and Rich/Textual
do not strip them for us. :func:`neutralize` is the one place where trace text becomes displayable:
C0/C1 controls become visible ``␛``-style symbols or ``\\xNN`` escapes; tabs and newlines survive.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence

# C0 controls except \t and \n, DEL, C1 controls, and the Unicode bidi overrides that can make
# text read differently from what it is.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _visible(m: re.Match[str]) -> str:
    ch = m.group()
    code = ord(ch)
    if code == 0x1B:
        return "␛"
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␀ ␁ … ␟
    if code == 0x7F:
        return "␡"
    return f"\\u{code:04x}" if code > 0xFF else f"\\x{code:02x}"


def neutralize(text: str) -> str:
    """Make untrusted text safe to print: no control character survives except tab and newline."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_visible, text)


def neutralize_line(text: str) -> str:
    """Like :func:`neutralize` for one-line contexts: newlines and tabs become visible too."""
    return neutralize(text).replace("\n", "⏎").replace("\t", "→")


def quote_argv(argv: Sequence[str]) -> str:
    """Shell-quoted argv for copying (neutralised: a quoted escape is still an escape)."""
    return neutralize_line(shlex.join(list(argv)))
