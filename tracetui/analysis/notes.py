"""What an agent's note predicted: success, an expected failure, or nothing (lint TT022).

An ``agent_note`` is written before the result is read ("expect green after fixing tz"). TT022
fires when a note predicted success while the exit was nonzero or a stream was cut. The word
lists below are the whole of the judgement, kept here and only here (docs/lint.md quotes them).

How a note is read, clause by clause (clauses end at ``. ; : , ! ? ( )``):

- An **outcome word** says how the run ends: a :data:`SUCCESS` word or a :data:`FAILURE` word.
- A :data:`NEGATIONS` word up to two words before an outcome word turns it around: "not fixed
  yet" is no success, "should not fail" and "no errors" are.
- An outcome word followed by a :data:`SUBJECTS` word describes a thing, not the outcome:
  "expect the failing test to pass" is about "pass".
- A :data:`CUES` word ("expect", "should", "reproduce"…) makes the next outcome word of its
  clause a *prediction*.

The note predicts success when some outcome word (predicted or plain) is a success and no
prediction in the note is a failure: "expect the BILL-4412 failure", "should fail", "reproduce
the failure", "expect it to fail" and "expect red" never fire, while "expect green: deselect the
test, it only fails in the Berlin variant" does (its failure word is no prediction).
"""

from __future__ import annotations

import re

SUCCESS = frozenset(
    {
        "pass",
        "passes",
        "passing",
        "green",
        "fixed",
        "fixes",
        "resolved",
        "works",
        "succeed",
        "succeeds",
        "success",
        "successful",
        "successfully",
    }
)
"""Words that say the run will end well. ("work" and "working" are left out: "working tree",
"work on the parser"; "clean" too: "clean the build folder".)"""

FAILURE = frozenset(
    {
        "fail",
        "fails",
        "failing",
        "failed",
        "failure",
        "failures",
        "red",
        "error",
        "errors",
        "broken",
        "break",
        "breaks",
        "crash",
        "crashes",
        "flake",
        "flaky",
    }
)
"""Words that say the run will end badly."""

CUES = frozenset(
    {
        "expect",
        "expects",
        "expected",
        "expecting",
        "should",
        "will",
        "must",
        "reproduce",
        "reproduces",
        "reproducing",
        "repro",
        "confirm",
        "confirms",
        "still",
    }
)
"""Words that make the next outcome word of their clause a prediction."""

NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "none",
        "nor",
        "without",
        "cannot",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "doesn't",
        "don't",
        "didn't",
        "won't",
        "can't",
        "couldn't",
        "shouldn't",
        "wouldn't",
        "hasn't",
        "haven't",
    }
)
"""Words that turn the outcome word right after them (up to two words on) around."""

SUBJECTS = frozenset(
    {"test", "tests", "case", "cases", "build", "builds", "job", "jobs", "check", "checks"}
)
"""Nouns that make the outcome word before them a description ("the failing test")."""

_CLAUSES = re.compile(r"[.;:,!?()\[\]\n]+")
_WORDS = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_NEGATION_REACH = 2


def predicted_success(note: str | None) -> str | None:
    """The success word a note predicts, or None when it predicts no success (or a failure)."""
    if not note:
        return None
    found: str | None = None
    text = note.lower().replace("\u2019", "'")
    for clause in _CLAUSES.split(text):
        words = _WORDS.findall(clause)
        cued = False
        for i, word in enumerate(words):
            if word in CUES:
                cued = True
                continue
            good = word in SUCCESS
            if not good and word not in FAILURE:
                continue
            if i + 1 < len(words) and words[i + 1] in SUBJECTS:
                continue  # "the failing test": a thing, not the outcome
            start = i
            for j in range(max(0, i - _NEGATION_REACH), i):
                if words[j] in NEGATIONS:
                    start = j
                    break
            good = good != (start < i)
            if cued and not good:
                return None  # the note expects a failure: the agent knew
            cued = False
            if good and found is None:
                found = " ".join(words[start : i + 1])  # the words as written: "no longer fails"
    return found
