"""The C scanner's word searches find a word wherever it sits in a text.

Both searches (the marker hints that send a line to Python, the secret words behind the SECRET
mark) look at every few pairs of bytes only, not at every byte (tracetui/store/_scan.c,
``has_hint`` and ``may_hold_secret``): these tests move each word across every position and
alignment of a text, in every case, and hold the scanner to the plain search
(``marks.line_may_hold_secret`` over the value as written; ``markers._HINTS`` in the text).
"""

from __future__ import annotations

import json

import pytest

from tracetui.model import markers, marks
from tracetui.store import fastindex

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="no C scanner")

FILLERS = ["", "x", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "q w e r t y u"]
"""Text put before and after the word: every alignment against the walk's stride."""

SPELLERS = [
    ("u-escape", '"\\u0041"'),
    ("slash-escape", '"a\\/b"'),
    ("escaped-backslash-then-u", '"a\\\\u"'),
    ("escaped-backslash-then-slash", '"a\\\\/b"'),
    ("escaped-backslash-then-n", '"a\\\\n"'),
    ("newline-escape", '"a\\nb"'),
    ("dotted-capital-i", '"\u0130"'),
    ("dotless-i", '"\u0131"'),
    ("long-s", '"\u017f"'),
    ("kelvin-sign", '"\u212a"'),
    ("letterlike-block-end", '"\u213f"'),
    ("e-acute", '"\u00e9"'),
    ("plain", '"plain text"'),
]


def _row(fields: str) -> tuple[int, bool]:
    """(marks, slow) of one tracetui/1 row with the given raw JSON fields added."""
    line = (
        '{"schema":"tracetui/1","span_type":"tool","command_id":"c1","exit_code":0,'
        '"stdout_bytes":5,"stdout_cap":100000,"stdout_truncated":false,'
        '"stderr_bytes":0,"stderr_cap":100000,"stderr_truncated":false,' + fields + "}\n"
    ).encode()
    res = fastindex._scan.scan(line, 0, 1)  # type: ignore[attr-defined]
    return res[16][0], len(res[8]) > 0


def _texts(word: str) -> list[str]:
    cases = {word, word.upper(), word.title(), word.swapcase()}
    return [f"{a}{w}{b}" for w in sorted(cases) for a in FILLERS for b in FILLERS[:4]]


@pytest.mark.parametrize("word", [w.decode() for w in marks.secret_words()])
def test_secret_words_found_at_every_position(word: str) -> None:
    for text in [*_texts(word), word[:-1], word[1:], f"{word[:-1]} {word[-1]}"]:
        raw = json.dumps(text)
        got, slow = _row('"tool_name":' + raw)
        assert not slow, text
        assert bool(got & marks.SECRET) == marks.line_may_hold_secret(raw.encode()), text


@pytest.mark.parametrize(("name", "raw"), SPELLERS, ids=[s[0] for s in SPELLERS])
def test_what_may_spell_a_word_is_marked_as_written(name: str, raw: str) -> None:
    for field in ("tool_name", "argv"):
        value = raw if field == "tool_name" else f'["x",{raw}]'
        got, slow = _row(f'"{field}":{value}')
        assert not slow, name
        assert bool(got & marks.SECRET) == marks.line_may_hold_secret(value.encode()), name


@pytest.mark.parametrize("hint", markers._HINTS)
def test_marker_hints_found_at_every_position(hint: str) -> None:
    """A hint word in a preview sends the line to Python (the marker may decide the cut)."""
    for text in [*(f"{a}{hint}{b}" for a in FILLERS for b in FILLERS[:4]), hint[:-1], hint[1:]]:
        _marks, slow = _row('"preview_stdout":' + json.dumps(text))
        assert slow == (hint in text), text
