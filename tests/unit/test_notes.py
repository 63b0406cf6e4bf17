"""TT022's reading of an agent's note: which notes predict success, and the word that does."""

from __future__ import annotations

import pytest

from tracetui.analysis.notes import predicted_success

# (case id, note, the success word it predicts or None)
CASES = [
    ("seed-incident", "expect green after fixing tz", "green"),
    ("expect-pass", "run search tests; expect pass", "pass"),
    ("passes", "the parser test passes now", "passes"),
    ("all-tests-pass", "all tests pass", "pass"),
    ("fixed", "fixed the rounding, rerun", "fixed"),
    ("works", "works on my machine", "works"),
    ("should-succeed", "should succeed this time", "succeed"),
    ("expect-success", "expect success", "success"),
    ("failure-outside-prediction", "expect green: deselect it, it only fails in Berlin", "green"),
    ("fixed-a-failure", "fixed the failure; expect green", "fixed"),
    ("failing-test-described", "expect the failing test to pass now", "pass"),
    ("negated-failure", "should not fail", "not fail"),
    ("no-errors", "expect no errors", "no errors"),
    ("no-longer", "no longer fails", "no longer fails"),
    ("curly-apostrophe", "it doesn\u2019t fail any more", "doesn't fail"),
    ("expect-red", "expect red", None),
    ("should-fail", "should fail", None),
    ("reproduce", "reproduce the failure", None),
    ("expect-it-to-fail", "expect it to fail", None),
    ("expect-the-failure", "run the billing suite; expect the BILL-4412 failure", None),
    ("still-failing", "still failing after the fix", None),
    ("expect-a-flake", "run the integration suite; expect the webhook flake at most", None),
    ("not-fixed-yet", "not fixed yet", None),
    ("not-yet-green", "isn't green yet", None),
    ("expect-it-not-to-pass", "expect it not to pass", None),
    ("prediction-of-failure-wins", "expect it to fail, then pass after the fix", None),
    ("no-outcome", "lint billing before committing", None),
    ("working-tree", "check the working tree", None),
    ("clean", "build; expect a clean link", None),
    ("empty", "", None),
    ("none", None, None),
]


@pytest.mark.parametrize(("note", "word"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_predicted_success(note: str | None, word: str | None) -> None:
    assert predicted_success(note) == word
