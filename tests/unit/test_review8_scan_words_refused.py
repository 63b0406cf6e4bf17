"""Review (session 8): a word list the scanner refuses leaves its words as they were.

``set_secret_hints`` and ``set_hints`` copied each word over the one in its slot before they
had looked at the next; a list refused part way (a word in capitals, a hint of one byte) had
already written its first words over the words in use, while the tables that find them were
still the old words'. A secret word the tables pointed at was then compared with another
word: "-----begin" (the first secret word) went unmarked after a refused call whose first word
was longer, on both roads of the search."""

from __future__ import annotations

import json
from array import array
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
HINTS = [h.encode() for h in markers._HINTS]


def _line(field: str, text: str) -> bytes:
    return (BASE + f'"{field}":' + json.dumps(text) + "}\n").encode()


def _secret_marked(text: str) -> bool:
    res = SCAN.scan(_line("agent_note", text), 0, 1)
    return bool(res[16][0] & marks.SECRET)


def _sent_to_python(text: str) -> bool:
    res = SCAN.scan(_line("preview_stdout", text), 0, 1)
    return 0 in set(array("i", res[8]))


@pytest.mark.parametrize("shuffle", [True, False], ids=["shuffle", "walk"])
def test_a_refused_secret_list_changes_nothing(shuffle: bool) -> None:
    words = marks.secret_words()
    texts = [f"key {w.decode()} here, long enough for the sixteen-start search" for w in words]
    try:
        SCAN.set_secret_hints(words, shuffle)
        before = [_secret_marked(t) for t in texts]
        assert all(before)
        with pytest.raises(ValueError):
            SCAN.set_secret_hints([b"tokenzzzzzzz", b"zzzzzzzzzzzzz", b"Capital"], shuffle)
        assert [_secret_marked(t) for t in texts] == before
    finally:
        SCAN.set_secret_hints(marks.secret_words())


@pytest.mark.parametrize("shuffle", [True, False], ids=["shuffle", "walk"])
def test_a_refused_hint_list_changes_nothing(shuffle: bool) -> None:
    texts = [f"output {h.decode()} at the end of a long enough preview" for h in HINTS]
    try:
        SCAN.set_hints(HINTS, shuffle)
        before = [_sent_to_python(t) for t in texts]
        assert all(before)
        with pytest.raises(ValueError):
            SCAN.set_hints([b"truncatedzzzzz", b"clippedzzzzzzz", b"x"], shuffle)
        assert [_sent_to_python(t) for t in texts] == before
    finally:
        SCAN.set_hints(HINTS)
