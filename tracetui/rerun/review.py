"""What a person must be told about an argv before confirming its re-run.

The argv comes from a trace, so the confirmation (the viewer's modal, ``tracetui rerun``'s
announcement) shows all of it. Two shapes deserve a warning on top: an inline script handed to a
shell or an interpreter (``sh -c '…'``, ``python3 -c``, ``perl -e``, ``node -e``…), where one
argument can hold a whole program, and an argv too long to take in at a glance
(:data:`LONG_ARGV` characters and more), where the dangerous part may sit at the very end.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

LONG_ARGV = 300
"""An argv of this many characters (shell-quoted, as shown) and more gets a warning."""

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"})
# Interpreter → pattern of the option that takes the program text as an argument.
_INTERPRETERS: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"-[A-Za-z]*c[A-Za-z]*"),
    "perl": re.compile(r"-[A-Za-z]*[eE][A-Za-z]*"),
    "ruby": re.compile(r"-[A-Za-z]*e[A-Za-z]*"),
    "node": re.compile(r"-e|-p|--eval(=.*)?|--print(=.*)?"),
}
_SHELL_SCRIPT = re.compile(r"-[A-Za-z]*c[A-Za-z]*|--command(=.*)?")
_VERSIONED = re.compile(r"(python|perl|ruby|node)[0-9.]*")


def _program(argv: Sequence[str]) -> tuple[str, int]:
    """The program's plain name (``python3.12`` → ``python``) and its index, past any ``env``."""
    i = 0
    while i < len(argv):
        name = os.path.basename(argv[i])
        if name != "env":
            m = _VERSIONED.fullmatch(name)
            return (m.group(1) if m else name), i
        i += 1
        # env's own options and NAME=value assignments come before the program.
        while i < len(argv) and (argv[i].startswith("-") or "=" in argv[i]):
            i += 1
    return "", len(argv)


def inline_script(argv: Sequence[str]) -> tuple[str, str] | None:
    """``(program, option)`` when ``argv`` hands a program text to a shell or an interpreter."""
    name, at = _program(argv)
    if name in _SHELLS:
        pattern = _SHELL_SCRIPT
    elif name in _INTERPRETERS:
        pattern = _INTERPRETERS[name]
    else:
        return None
    for arg in argv[at + 1 :]:
        if pattern.fullmatch(arg):
            return name, arg.split("=", 1)[0]
    return None


def warnings(argv: Sequence[str], shown_chars: int) -> list[str]:
    """One short line per reason to read this argv with care (empty when there is none)."""
    out: list[str] = []
    script = inline_script(argv)
    if script is not None:
        name, option = script
        out.append(f"runs a {name} script given inline ({option}): it can do anything {name} can")
    if shown_chars >= LONG_ARGV:
        out.append(f"a long argv ({shown_chars:,} characters): read it to its end")
    return out


def size_line(argv: Sequence[str], shown_chars: int) -> str:
    """``3 arguments · 1,234 characters`` (the characters of the argv as shown)."""
    n = len(argv)
    return f"{n} argument{'s' if n != 1 else ''} · {shown_chars:,} character{'s' if shown_chars != 1 else ''}"
