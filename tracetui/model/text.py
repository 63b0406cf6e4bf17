"""Turning untrusted trace text into something safe to print, render or emit as JSON.

Every string in a trace, and every file name, is untrusted. Control characters and escape
sequences (OSC 52 clipboard writes, OSC 0/2 titles, cursor moves, screen clears, 8-bit C1 CSI)
must never reach a terminal, and bidi or zero-width characters must not make text read
differently from what it is; Rich/Textual do not strip any of them for us. This module is the one
place where such text becomes safe:

- :func:`neutralize` (text blocks) and :func:`neutralize_line` (one-line contexts) for text;
- :func:`dump_json` for every JSON document a command prints or writes;
- :func:`quote_argv` for an argv shown to be copied.

What is escaped, and as what (``UNSAFE`` below is the whole set):

- C0 controls other than tab and newline: the Control Pictures symbol (``␛`` for ESC, ``␇`` for
  BEL, ``␍`` for CR …); DEL: ``␡``;
- C1 controls U+0080–U+009F: ``\\x9b``-style escapes;
- bidi controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), zero-width and invisible
  characters (U+180E, U+200B–U+200D, U+2060–U+2064, U+FEFF, U+FFF9–U+FFFB) and the line and
  paragraph separators U+2028/U+2029: ``\\u202e``-style escapes; the invisible tag characters
  U+E0000–U+E007F: ``\\U000e0041``-style escapes;
- a surrogate left by an undecodable file name (``os.fsdecode``'s ``surrogateescape``): the byte it
  stands for as ``\\xNN``; any other lone surrogate as ``\\udXXX`` (it could not even be encoded).
"""

from __future__ import annotations

import json
import math
import re
import shlex
from collections.abc import Sequence
from typing import Any

import orjson

# Code points that never reach an output raw, as (first, last) ranges. Tab (0x09) and newline
# (0x0a) are kept apart: neutralize() keeps them, neutralize_line() makes them visible.
UNSAFE: tuple[tuple[int, int], ...] = (
    (0x00, 0x08),
    (0x0B, 0x1F),
    (0x7F, 0x9F),  # DEL and the C1 controls (0x9B is an 8-bit CSI on some terminals)
    (0x061C, 0x061C),  # ARABIC LETTER MARK (bidi)
    (0x180E, 0x180E),  # MONGOLIAN VOWEL SEPARATOR (invisible)
    (0x200B, 0x200F),  # zero-width space, non-joiner, joiner; LRM, RLM
    (0x2028, 0x202E),  # line and paragraph separators; bidi embeddings and overrides
    (0x2060, 0x2064),  # word joiner and invisible operators
    (0x2066, 0x2069),  # bidi isolates
    (0xD800, 0xDFFF),  # lone surrogates (undecodable file names)
    (0xFEFF, 0xFEFF),  # zero-width no-break space (BOM)
    (0xFFF9, 0xFFFB),  # interlinear annotation controls
    (0xE0000, 0xE007F),  # tag characters: invisible ASCII look-alikes ("ASCII smuggling")
)

_CONTROL = re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in UNSAFE) + "]")


def _visible(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code == 0x1B:
        return "␛"
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: ␀ ␁ … ␟
    if code == 0x7F:
        return "␡"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the raw byte of an undecodable name
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def neutralize(text: str) -> str:
    """Make untrusted text safe to print: nothing in ``UNSAFE`` survives; tab and newline do."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_visible, text)


def neutralize_line(text: str) -> str:
    """Like :func:`neutralize` for one-line contexts: newlines and tabs become visible too."""
    return neutralize(text).replace("\n", "⏎").replace("\t", "→")


def is_plain_line(text: str) -> bool:
    """Whether :func:`neutralize_line` gives ``text`` back unchanged. All-ASCII text (the usual
    case) is checked at C speed: the ASCII it changes is exactly what is not printable."""
    if text.isascii():
        return text.isprintable()
    return neutralize_line(text) == text


def quote_argv(argv: Sequence[str]) -> str:
    """Shell-quoted argv for copying (neutralised: a quoted escape is still an escape)."""
    return neutralize_line(shlex.join(list(argv)))


# ------------------------------------------------------------------------------------- JSON
# orjson escapes C0 itself (as \u00XX, with \n \t \r \b \f short forms); the rest of UNSAFE is
# valid raw in JSON, so it is escaped here. Surrogates never reach this point (see dump_json).
_JSON_UNSAFE = re.compile(
    "["
    + "".join(f"\\U{max(a, 0x7F):08x}-\\U{b:08x}" for a, b in UNSAFE if b >= 0x7F and a != 0xD800)
    + "]"
)
_BELOW_DEL = bytes(range(0x7F))
"""The bytes no character :data:`_JSON_UNSAFE` matches is made of (ASCII below DEL)."""


def _json_escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON spells a code point past the BMP as a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _plain(value: Any) -> Any:
    """``value`` made writable by any JSON encoder: lone surrogates in strings become U+FFFD
    (JSON cannot carry them), NaN and infinities become null (as orjson writes them)."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def dump_json(obj: Any, *, indent: bool = False) -> bytes:
    """``obj`` as JSON bytes in which no character of ``UNSAFE`` appears raw (all ``\\uXXXX``).

    The same data as plain ``orjson.dumps`` (any JSON parser reads back identical values), but
    inert on a terminal. What orjson refuses is still written: a string holding a lone surrogate
    (an undecodable file name) with U+FFFD in its place, an integer past 64 bits in full (by the
    standard library's encoder). Values no encoder knows are written as ``str(value)``. No
    trailing newline.
    """
    option = orjson.OPT_INDENT_2 if indent else 0
    try:
        data = orjson.dumps(obj, option=option, default=str)
    except orjson.JSONEncodeError:
        seps = (",", ": ") if indent else (",", ":")
        text = json.dumps(
            _plain(obj),
            ensure_ascii=False,
            indent=2 if indent else None,
            separators=seps,
            default=str,
        )
        data = text.encode("utf-8")
    if data.isascii() and b"\x7f" not in data:
        return data  # the common case, checked at memory speed: nothing to escape
    # Only characters from U+007F up can match, and their UTF-8 bytes are all 0x7F and up:
    # those bytes alone, still whole characters, are searched (a summary's few sparkline bars
    # in 2 MB of ASCII: the search over all the text cost 20 ms).
    if _JSON_UNSAFE.search(data.translate(None, _BELOW_DEL).decode("utf-8")) is None:
        return data
    return _JSON_UNSAFE.sub(_json_escape, data.decode("utf-8")).encode("utf-8")


# ------------------------------------------------------------------------------------- raw view
MAX_DEPTH = 32
"""Containers nested deeper than this are not drawn by :func:`pretty_json` (a marker says so)."""


def _too_deep(value: Any, limit: int) -> bool:
    """True when ``value`` nests containers more than ``limit`` deep (walked without recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
        if items is None:
            continue
        if depth > limit:
            return True
        stack.extend((x, depth + 1) for x in items if isinstance(x, (dict, list)))
    return False


def pretty_json(value: Any, max_depth: int = MAX_DEPTH) -> str:
    """``value`` as indented JSON for reading, safe to show (like ``dump_json(…, indent=True)``).

    A record nested deeper than ``max_depth`` (orjson refuses past 255 levels, and Python's
    recursion limit is near 1,000) is drawn without recursion: each container below that depth
    is one visible marker line, and everything around it stays visible.
    """
    if not _too_deep(value, max_depth):
        return dump_json(value, indent=True).decode("utf-8")
    marker = f"… nested deeper than {max_depth} levels: not drawn"
    out: list[str] = []
    # A stack of pending pieces: ("v", value, depth, suffix) draws a value, ("s", text) appends
    # literal text. Children are pushed in reverse so they come off the stack in order.
    stack: list[tuple[Any, ...]] = [("v", value, 0, "")]
    while stack:
        piece = stack.pop()
        if piece[0] == "s":
            out.append(piece[1])
            continue
        _, v, depth, suffix = piece
        pad = "  " * depth
        if isinstance(v, (dict, list)) and depth >= max_depth:
            out.append(marker + suffix)
        elif isinstance(v, dict) and v:
            out.append("{")
            stack.append(("s", "\n" + pad + "}" + suffix))
            entries = list(v.items())
            for k, (key, child) in reversed(list(enumerate(entries))):
                comma = "," if k < len(entries) - 1 else ""
                stack.append(("v", child, depth + 1, comma))
                stack.append(("s", "\n" + pad + "  " + dump_json(str(key)).decode() + ": "))
        elif isinstance(v, list) and v:
            out.append("[")
            stack.append(("s", "\n" + pad + "]" + suffix))
            for k in range(len(v) - 1, -1, -1):
                stack.append(("v", v[k], depth + 1, "," if k < len(v) - 1 else ""))
                stack.append(("s", "\n" + pad + "  "))
        else:
            out.append(dump_json(v).decode("utf-8") + suffix)
    return "".join(out)
