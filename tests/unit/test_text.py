"""The one neutraliser (tracetui/model/text.py): every class of control, in text and in JSON."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tracetui.model.text import (
    MAX_DEPTH,
    UNSAFE,
    dump_json,
    neutralize,
    neutralize_line,
    pretty_json,
    quote_argv,
)

# (id, raw text, neutralize(), the JSON string dump_json() writes for it)
CLASSES = [
    ("esc", "a\x1bb", "a␛b", '"a\\u001bb"'),
    ("bel", "\x07", "␇", '"\\u0007"'),
    ("nul", "\x00", "␀", '"\\u0000"'),
    ("cr", "a\rb", "a␍b", '"a\\rb"'),
    ("backspace", "\x08", "␈", '"\\b"'),
    ("vertical-tab", "\x0b", "␋", '"\\u000b"'),
    ("unit-separator", "\x1f", "␟", '"\\u001f"'),
    ("del", "\x7f", "␡", '"\\u007f"'),
    ("osc-0-title", "\x1b]0;pwned\x07", "␛]0;pwned␇", '"\\u001b]0;pwned\\u0007"'),
    ("osc-52-clipboard", "\x1b]52;c;aGk=\x07", "␛]52;c;aGk=␇", '"\\u001b]52;c;aGk=\\u0007"'),
    ("csi-clear", "\x1b[2J", "␛[2J", '"\\u001b[2J"'),
    ("c1-csi", "\x9b2J", "\\x9b2J", '"\\u009b2J"'),
    ("c1-nel", "\x85", "\\x85", '"\\u0085"'),
    ("c1-osc", "\x9d0;t\x9c", "\\x9d0;t\\x9c", '"\\u009d0;t\\u009c"'),
    ("c1-first", "\x80", "\\x80", '"\\u0080"'),
    ("rlo", "\u202e", "\\u202e", '"\\u202e"'),
    ("lre", "\u202a", "\\u202a", '"\\u202a"'),
    ("pdf", "\u202c", "\\u202c", '"\\u202c"'),
    ("lri", "\u2066", "\\u2066", '"\\u2066"'),
    ("pdi", "\u2069", "\\u2069", '"\\u2069"'),
    ("lrm", "\u200e", "\\u200e", '"\\u200e"'),
    ("rlm", "\u200f", "\\u200f", '"\\u200f"'),
    ("arabic-letter-mark", "\u061c", "\\u061c", '"\\u061c"'),
    ("zwsp", "\u200b", "\\u200b", '"\\u200b"'),
    ("zwnj", "\u200c", "\\u200c", '"\\u200c"'),
    ("zwj", "\u200d", "\\u200d", '"\\u200d"'),
    ("word-joiner", "\u2060", "\\u2060", '"\\u2060"'),
    ("invisible-times", "\u2062", "\\u2062", '"\\u2062"'),
    ("bom", "\ufeff", "\\ufeff", '"\\ufeff"'),
    ("mongolian-vowel-separator", "\u180e", "\\u180e", '"\\u180e"'),
    ("interlinear-anchor", "\ufff9", "\\ufff9", '"\\ufff9"'),
    ("line-separator", "\u2028", "\\u2028", '"\\u2028"'),
    ("paragraph-separator", "\u2029", "\\u2029", '"\\u2029"'),
    ("tag-a", "\U000e0041", "\\U000e0041", '"\\udb40\\udc41"'),
    ("tab-kept", "a\tb", "a\tb", '"a\\tb"'),
    ("newline-kept", "a\nb", "a\nb", '"a\\nb"'),
    ("safe-accents", "é ñ ü", "é ñ ü", '"é ñ ü"'),
    ("safe-cjk-emoji", "中文 😀", "中文 😀", '"中文 😀"'),
    ("safe-nbsp", "a\u00a0b", "a\u00a0b", '"a\u00a0b"'),
    ("safe-symbols", "✂ ─ — “x”", "✂ ─ — “x”", '"✂ ─ — “x”"'),
    ("safe-markup-looking", "[/] [bold]x", "[/] [bold]x", '"[/] [bold]x"'),
]
IDS = [c[0] for c in CLASSES]


@pytest.mark.parametrize(("raw", "shown"), [(c[1], c[2]) for c in CLASSES], ids=IDS)
def test_neutralize(raw: str, shown: str) -> None:
    assert neutralize(raw) == shown


@pytest.mark.parametrize(("raw", "want"), [(c[1], c[3]) for c in CLASSES], ids=IDS)
def test_dump_json(raw: str, want: str) -> None:
    data = dump_json(raw)
    assert data == want.encode("utf-8")
    assert orjson.loads(data) == raw  # the same data, only spelled inertly


LINES = [
    ("newline", "a\nb", "a⏎b"),
    ("tab", "a\tb", "a→b"),
    ("crlf", "a\r\nb", "a␍⏎b"),
    ("mixed", "x\x1b[2J\n\u202e", "x␛[2J⏎\\u202e"),
]


@pytest.mark.parametrize(("raw", "shown"), [c[1:] for c in LINES], ids=[c[0] for c in LINES])
def test_neutralize_line(raw: str, shown: str) -> None:
    assert neutralize_line(raw) == shown


FILE_NAMES = [
    # os.fsdecode() keeps an undecodable byte as a surrogate: it is shown as that byte.
    ("surrogateescape-c1", "B\udc9b.jsonl", "B\\x9b.jsonl"),
    ("surrogateescape-high", "B\udcff", "B\\xff"),
    ("lone-surrogate", "a\ud800b", "a\\ud800b"),
]


@pytest.mark.parametrize(
    ("raw", "shown"), [c[1:] for c in FILE_NAMES], ids=[c[0] for c in FILE_NAMES]
)
def test_undecodable_file_names(raw: str, shown: str) -> None:
    assert neutralize(raw) == shown
    shown.encode("utf-8")  # printable on any UTF-8 stream (a surrogate would raise here)


def _unsafe_chars() -> list[str]:
    return [chr(c) for a, b in UNSAFE for c in range(a, b + 1)]


def test_no_unsafe_character_survives_anywhere() -> None:
    # Exhaustive over the set: every one is escaped in text, one-line text and JSON.
    unsafe = set(_unsafe_chars())
    left = {}
    for ch in unsafe:
        outs = [neutralize(ch), neutralize_line(ch)]
        if not 0xD800 <= ord(ch) <= 0xDFFF:
            data = dump_json({"k": ch, ch: [ch]})
            outs.append(data.decode("utf-8"))
            if orjson.loads(data) != {"k": ch, ch: [ch]}:
                left[hex(ord(ch))] = "json differs"
        if any(c in unsafe for out in outs for c in out):
            left[hex(ord(ch))] = outs
    assert left == {}


DUMPS: list[tuple[str, Any, bool, bytes]] = [
    ("plain-compact", {"a": [1, "x"]}, False, b'{"a":[1,"x"]}'),
    ("plain-indented", {"a": [1]}, True, b'{\n  "a": [\n    1\n  ]\n}'),
    ("key-escaped", {"k\x9b\u202e": 1}, False, b'{"k\\u009b\\u202e":1}'),
    ("surrogate-file-name", {"file": "B\udc9b"}, False, b'{"file":"B\xef\xbf\xbd"}'),
    ("huge-integer", {"n": 3 * 2**64}, False, b'{"n":55340232221128654848}'),
    ("huge-integer-indented", [3 * 2**64], True, b"[\n  55340232221128654848\n]"),
    ("not-json-value", {"p": {1, 2} and "set"}, False, b'{"p":"set"}'),
]


@pytest.mark.parametrize(
    ("obj", "indent", "want"), [c[1:] for c in DUMPS], ids=[c[0] for c in DUMPS]
)
def test_dump_json_documents(obj: Any, indent: bool, want: bytes) -> None:
    assert dump_json(obj, indent=indent) == want


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["echo", "\x1b]0;x\x07"], "echo '␛]0;x␇'"),
        (["printf", "a\nb"], "printf 'a⏎b'"),
        (["rm", "\u202etxt.exe"], "rm '\\u202etxt.exe'"),
    ],
    ids=["osc", "newline", "rlo"],
)
def test_quote_argv(argv: list[str], shown: str) -> None:
    assert quote_argv(argv) == shown


def _nested(depth: int) -> Any:
    """``{"a": [[[…[ "bottom" ]…]]], "z": "after"}`` with ``depth`` levels in all."""
    inner: Any = "bottom"
    for _ in range(depth - 1):
        inner = [inner]
    return {"a": inner, "z": "after\x1b"}


@pytest.mark.parametrize(
    "value",
    [{"a": 1, "b": [True, None, 1.5, "x\x9b"], "c": {}, "d": []}, [], {}, "s", 7, _nested(20)],
    ids=["record", "empty-list", "empty-object", "string", "number", "nested-20"],
)
def test_pretty_json_matches_the_indented_dump(value: Any) -> None:
    assert pretty_json(value) == dump_json(value, indent=True).decode("utf-8")


@pytest.mark.parametrize("depth", [300, 1000, 5000], ids=["300", "1000", "5000"])
def test_pretty_json_draws_a_deep_record_without_recursion(depth: int) -> None:
    text = pretty_json(_nested(depth))
    lines = text.split("\n")
    pad = "  " * MAX_DEPTH
    assert lines[:3] == ["{", '  "a": [', "    ["]
    assert f"{pad}… nested deeper than {MAX_DEPTH} levels: not drawn" in lines
    assert lines[-3:] == ["  ],", '  "z": "after\\u001b"', "}"]  # the rest of the record is there
    assert len(lines) == 2 * MAX_DEPTH + 2  # { and "z" and }, 31 levels open and shut, the marker


def test_pretty_json_cut_is_where_the_depth_is() -> None:
    text = pretty_json({"a": [[[{"b": [1]}]]], "c": 2}, max_depth=3)
    assert text == (
        '{\n  "a": [\n    [\n      … nested deeper than 3 levels: not drawn\n    ]\n  ],\n'
        '  "c": 2\n}'
    )
