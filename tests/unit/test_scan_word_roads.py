"""The word searches' two roads in the C scanner give the plain search's answer.

Where the CPU has SSSE3 the scanner looks at sixteen starts at a time, each word's first three
bytes matched by nibble tables of eight groups of words (tracetui/store/_scan_shuffle.h);
elsewhere it walks the byte pairs (_scan_words.h). For the secret words both must say exactly
what ``marks.line_may_hold_secret`` says of a value as written, and for the marker hints whether
a preview's text holds one (its line then goes to Python): these tests put words at every offset
of texts long enough for several turns of sixteen (and at their ends, where the last turn
overlaps the one before), in every case, on both roads, with the real words and with word lists
made to strain the grouping (more than eight first bytes, two-byte words, punctuation).
"""

from __future__ import annotations

import json
import random
from array import array
from collections.abc import Iterator
from typing import Any

import pytest

from tracetui.model import markers, marks
from tracetui.store import fastindex

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="no C scanner")

SCAN: Any = getattr(fastindex, "_scan", None)
BASE = (
    '{"schema":"tracetui/1","span_type":"tool","command_id":"c1","exit_code":0,'
    '"stdout_bytes":5,"stdout_cap":100000,"stdout_truncated":false,'
    '"stderr_bytes":0,"stderr_cap":100000,"stderr_truncated":false,'
)
FILLER = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt "
ROADS = ["shuffle", "walk"]

WORD_LISTS: list[tuple[str, list[bytes]]] = [
    ("real", marks.secret_words()),
    ("two-byte", [b"qz", b"x9", b"ab", b"token"]),
    ("many-firsts", [bytes([c]) + b"zq" for c in b"abcdefghijklmnop"]),
    ("punctuation", [b"://", b"-----begin", b"a_b", b"k-", b"#!x", b"{{", b"90"]),
    ("shared-starts", [b"ghp_", b"ghx", b"gh", b"github", b"g1"]),
    # A value's last two bytes as written (a string's closing quote, a number's last digits) are
    # a start only a two-byte word can have: the search's last look.
    ("ending-two-byte", [b'z"', b"90", b"qq"]),
]


@pytest.fixture
def words_of(request: pytest.FixtureRequest) -> Iterator[tuple[str, list[bytes]]]:
    """Sets the scanner's words and road; puts the real ones back after."""
    road, (name, words) = request.param
    try:
        taken = SCAN.set_secret_hints(words, road == "shuffle")
        if road == "shuffle" and taken != "shuffle":
            pytest.skip("this CPU has no SSSE3: only the walk is taken")
        assert taken == road
        yield name, words
    finally:
        SCAN.set_secret_hints(marks.secret_words())


def _on_both_roads(fixture: str, lists: list[tuple[str, list[bytes]]]) -> Any:
    """The test once for every word list on each road (``fixture`` sets them)."""
    params = [(r, w) for r in ROADS for w in lists]
    ids = [f"{r}-{w[0]}" for r in ROADS for w in lists]
    return pytest.mark.parametrize(fixture, params, ids=ids, indirect=True)


EVERY_LIST = _on_both_roads("words_of", WORD_LISTS)


def _raw(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _secret(texts: list[str], *, raw: bool = False) -> list[bool]:
    """The SECRET bit the scanner gives a row whose ``agent_note`` is each text (``raw``: each
    text is the JSON value as written)."""
    lines = [(BASE + '"agent_note":' + (t if raw else _raw(t)) + "}\n").encode() for t in texts]
    res = SCAN.scan(b"".join(lines), 0, 1)
    assert not res[8], "no row went to Python"
    return [bool(res[16][i] & marks.SECRET) for i in range(len(lines))]


def _plain(text: str, words: list[bytes], *, raw: bool = False) -> bool:
    """The plain search over the value as written (ASCII case folded, as the scanner does)."""
    written = (text if raw else _raw(text)).encode().lower()
    return any(w in written for w in words)


def _variants(word: str) -> set[str]:
    return {word, word.upper(), word.title(), word.swapcase()}


def _texts(words: list[bytes]) -> list[str]:
    out = []
    for w in words:
        for v in _variants(w.decode()):
            out += [FILLER[:a] + v + FILLER[:5] for a in range(0, 70)]  # every start, 4 turns
            out += [FILLER[:a] + v for a in range(0, 70)]  # ending the text: the last turn
            out += [v, v[:-1], v[1:], FILLER[:3] + v[:-1] + " " + v[-1:]]
    return out


@EVERY_LIST
def test_every_place_matches_the_plain_search(words_of: tuple[str, list[bytes]]) -> None:
    _name, words = words_of
    texts = _texts(words)
    got = _secret(texts)
    for text, secret in zip(texts, got, strict=True):
        assert secret == _plain(text, words), text


@EVERY_LIST
def test_random_texts_match_the_plain_search(words_of: tuple[str, list[bytes]]) -> None:
    _name, words = words_of
    rng = random.Random(8)
    pieces = [w.decode() for w in words] + [FILLER, " ", "é", "😀", "-", "_", ":", "/", "Z"]
    texts = [
        "".join(rng.choice(pieces)[: rng.randint(1, 12)] for _ in range(rng.randint(1, 14)))
        for _ in range(3000)
    ]
    got = _secret(texts)
    for text, secret in zip(texts, got, strict=True):
        assert secret == _plain(text, words), text


@EVERY_LIST
def test_values_of_other_kinds_match_the_plain_search(words_of: tuple[str, list[bytes]]) -> None:
    """Numbers and arrays as written, of every length around the sixteen-start turns."""
    _name, words = words_of
    raws = []
    for n in range(1, 60):
        raws += ["1" * n + "90", "9" * n, "-" + "3" * n + ".90", json.dumps(["ab"] * n)]
        raws += [json.dumps([FILLER[:n] + w.decode("ascii", "replace")]) for w in words]
    got = _secret(raws, raw=True)
    for raw, secret in zip(raws, got, strict=True):
        assert secret == _plain(raw, words, raw=True), raw


def test_the_real_words_are_set_after_these_tests() -> None:
    """What the other tests and every index in this process rely on."""
    assert _secret(["a token here", "nothing here"]) == [True, False]


HINT_LISTS: list[tuple[str, list[bytes]]] = [
    ("real", [h.encode() for h in markers._HINTS]),
    ("two-byte", [b"qz", b"X9", b"truncated"]),
    ("many-firsts", [bytes([c]) + b"zq" for c in b"abcdefghijklmnop"]),
    ("cases-differ", [b"Cut", b"cut here", b"CUT", b"..."]),
]


@pytest.fixture
def hints_of(request: pytest.FixtureRequest) -> Iterator[list[bytes]]:
    """Sets the scanner's marker hints and road; puts the real ones back after."""
    road, (_name, words) = request.param
    try:
        taken = SCAN.set_hints(words, road == "shuffle")
        if road == "shuffle" and taken != "shuffle":
            pytest.skip("this CPU has no SSSE3: only the walk is taken")
        assert taken == road
        yield words
    finally:
        SCAN.set_hints([h.encode() for h in markers._HINTS])


def _sent_to_python(texts: list[str]) -> list[bool]:
    """Whether each text as a preview sends its row to Python (a hint word in it)."""
    lines = [(BASE + '"preview_stdout":' + _raw(t) + "}\n").encode() for t in texts]
    res = SCAN.scan(b"".join(lines), 0, 1)
    slow = set(array("i", res[8]))
    return [i in slow for i in range(len(lines))]


@_on_both_roads("hints_of", HINT_LISTS)
def test_hints_everywhere_match_the_plain_search(hints_of: list[bytes]) -> None:
    words = hints_of
    texts = []
    for w in words:
        v = w.decode()
        texts += [FILLER[:a] + v + FILLER[:5] for a in range(0, 70)]
        texts += [FILLER[:a] + v for a in range(0, 70)]
        texts += [v, v[:-1], v[1:], v.swapcase(), FILLER[:3] + v[:-1] + " " + v[-1:]]
    rng = random.Random(9)
    pieces = [w.decode() for w in words] + [FILLER, " ", "é", "😀", "-", "Z"]
    texts += [
        "".join(rng.choice(pieces)[: rng.randint(1, 12)] for _ in range(rng.randint(1, 14)))
        for _ in range(2000)
    ]
    for text, slow in zip(texts, _sent_to_python(texts), strict=True):
        content = _raw(text).encode()[1:-1]
        assert slow == any(w in content for w in words), text
