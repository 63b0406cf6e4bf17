"""The redactor's hint words (Rule.hints) only skip work: they never change what is redacted."""

from __future__ import annotations

import dataclasses
import re
import sys

import pytest
from secret_shapes import NEAR_MISSES, SHAPES

from tracetui.record.redact import Redactor, _fold
from tracetui.record.redact_rules import DEFAULT_RULES

UNHINTED = Redactor(tuple(dataclasses.replace(r, hints=()) for r in DEFAULT_RULES))
TEXTS = [case[1] for case in SHAPES] + [case[1] for case in NEAR_MISSES]
ODD_CASES = [
    "PASSWORD=hunter2",  # upper case keyword
    "pa\u017f\u017fword=hunter2",  # long s: (?i) matches it as s
    "ap\u0131_key=abc123def",  # dotless i: (?i) matches it as i
    "TOKEN: ab12cd34ef56",
    "Authorization: BASIC dXNlcjpwYXNz",
    "\uff21\uff30\uff29_KEY=x1",  # full-width letters: no match either way
]


@pytest.mark.parametrize("text", TEXTS + ODD_CASES, ids=range(len(TEXTS) + len(ODD_CASES)))
def test_hints_change_nothing(text: str) -> None:
    assert Redactor().spans(text) == UNHINTED.spans(text)


def test_every_character_a_hint_letter_matches_folds_to_it() -> None:
    letters = sorted({c for rule in DEFAULT_RULES for h in rule.hints for c in h if c.isalpha()})
    any_letter = re.compile("(?i)[" + "".join(letters) + "]")
    missed = []
    for cp in range(sys.maxunicode + 1):
        c = chr(cp)
        if any_letter.fullmatch(c):
            matched = [x for x in letters if re.fullmatch(f"(?i){x}", c)]
            missed += [(x, hex(cp)) for x in matched if x not in _fold(c)]
    assert missed == []
