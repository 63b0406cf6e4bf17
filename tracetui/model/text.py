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
  paragraph separators U+2028/U+2029: ``\\u202e``-style escapes;
- a surrogate left by an undecodable file name (``os.fsdecode``'s ``surrogateescape``): the byte it
  stands for as ``\\xNN``; any other lone surrogate as ``\\udXXX`` (it could not even be encoded).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
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
    return f"\\u{code:04x}"


def neutralize(text: str) -> str:
    """Make untrusted text safe to print: nothing in ``UNSAFE`` survives; tab and newline do."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_visible, text)


def neutralize_line(text: str) -> str:
    """Like :func:`neutralize` for one-line contexts: newlines and tabs become visible too."""
    return neutralize(text).replace("\n", "⏎").replace("\t", "→")


def quote_argv(argv: Sequence[str]) -> str:
    """Shell-quoted argv for copying (neutralised: a quoted escape is still an escape)."""
    return neutralize_line(shlex.join(list(argv)))


# ------------------------------------------------------------------------------------- JSON
def _utf8_class(codes: Iterable[int]) -> re.Pattern[bytes]:
    """A bytes pattern matching the UTF-8 encoding of any of ``codes`` (surrogates excluded).

    Grouped by leading bytes, one byte class for the last byte: UTF-8 is self-synchronising, so a
    match can never start inside another character.
    """
    groups: dict[bytes, list[int]] = {}
    for c in codes:
        enc = chr(c).encode("utf-8")
        groups.setdefault(enc[:-1], []).append(enc[-1])
    parts = []
    for prefix, lasts in groups.items():
        last = b"".join(b"\\x%02x" % x for x in sorted(lasts))
        parts.append(re.escape(prefix) + b"[" + last + b"]")
    return re.compile(b"|".join(parts))


# orjson escapes C0 itself (as \u00XX, with \n \t \r \b \f short forms); the rest of UNSAFE is
# valid raw in JSON, so it is escaped here. Surrogates never reach this point (see dump_json).
_JSON_UNSAFE = _utf8_class(
    c for a, b in UNSAFE for c in range(a, b + 1) if c >= 0x7F and not 0xD800 <= c <= 0xDFFF
)


def _json_escape(m: re.Match[bytes]) -> bytes:
    return b"\\u%04x" % ord(m.group().decode("utf-8"))


def _clean_surrogates(value: Any) -> Any:
    """``value`` with lone surrogates in its strings replaced (U+FFFD): JSON cannot carry them."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    if isinstance(value, dict):
        return {_clean_surrogates(k): _clean_surrogates(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean_surrogates(v) for v in value]
    return value


def dump_json(obj: Any, *, indent: bool = False) -> bytes:
    """``obj`` as JSON bytes in which no character of ``UNSAFE`` appears raw (all ``\\uXXXX``).

    The same data as plain ``orjson.dumps`` (any JSON parser reads back identical values), but
    inert on a terminal. A string holding a lone surrogate (an undecodable file name) is written
    with U+FFFD in its place rather than failing the whole document. Values orjson cannot
    serialise are written as ``str(value)``. No trailing newline.
    """
    option = orjson.OPT_INDENT_2 if indent else 0
    try:
        data = orjson.dumps(obj, option=option, default=str)
    except orjson.JSONEncodeError:
        data = orjson.dumps(_clean_surrogates(obj), option=option, default=str)
    if _JSON_UNSAFE.search(data) is None:
        return data
    return _JSON_UNSAFE.sub(_json_escape, data)
