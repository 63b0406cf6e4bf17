"""Every secret shape the redactor knows, one case each, and the near-miss twins it must leave.

The same table runs through every place a secret is written: a text (previews, notes, errors),
an argv item, a recorded preview and the recorded note. The near misses are counted as false
positives: there must be none, and every shape must be caught.
"""

from __future__ import annotations

import hashlib

import pytest
from secret_shapes import NEAR_MISSES, SHAPES, R

from tracetui.record.capture import ProcessOutcome, StreamTap
from tracetui.record.recorder import build_record, tap_limits
from tracetui.record.redact import Redactor


def ids(table):
    return [c[0] for c in table]


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in SHAPES], ids=ids(SHAPES))
def test_shape_is_redacted(text, expected):
    assert Redactor().redact(text) == (expected, expected.count(R))


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in SHAPES], ids=ids(SHAPES))
def test_redacting_twice_changes_nothing(text, expected):
    # Lint runs these rules over redacted previews: the replacement itself is never a finding.
    assert Redactor().redact(expected) == (expected, 0)
    assert Redactor().findings(expected) == []


@pytest.mark.parametrize("text", [c[1] for c in NEAR_MISSES], ids=ids(NEAR_MISSES))
def test_near_miss_is_left_alone(text):
    assert Redactor().redact(text) == (text, 0)
    assert Redactor().findings(text) == []


def test_every_shape_caught_and_no_false_positive():
    r = Redactor()
    caught = sum(1 for _id, text, _ in SHAPES if r.redact(text)[1] > 0)
    false_positives = [name for name, text in NEAR_MISSES if r.redact(text)[1]]
    assert (caught, false_positives) == (len(SHAPES), [])


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in SHAPES], ids=ids(SHAPES))
def test_shape_in_an_argv_item(text, expected):
    argv, n = Redactor().redact_argv(["cmd", text, "--next"])
    assert (argv, n) == (["cmd", expected, "--next"], expected.count(R))


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in SHAPES], ids=ids(SHAPES))
def test_shape_in_a_recorded_preview_note_and_argv(text, expected):
    data = text.encode()
    tap = StreamTap(*tap_limits(8192, "head"))
    tap.feed(data)
    out = tap.finish()
    empty = StreamTap(*tap_limits(8192, "head")).finish()
    outcome = ProcessOutcome(out, empty, 0, None, None, 0.0, 1, False, False)
    rec, view, _ = build_record(
        outcome,
        argv=["cmd", text],
        cwd="/tmp",
        cap=8192,
        clip="head",
        redactor=Redactor(),
        note=f"expect {text}",
    )
    n = expected.count(R)
    assert view.preview == rec["preview_stdout"] == expected
    assert (rec["redacted"], rec["argv"], rec["argv_redacted"]) == (n, ["cmd", expected], n)
    assert rec["agent_note"] == f"expect {expected}"
    assert rec["stdout_full_sha256"] == hashlib.sha256(data).hexdigest()  # of the raw bytes


# (id, argv, expected argv, replacements): a flag and its value are two argv items.
ARGV = [
    (
        "password-flag-split",
        ["mysql", "--password", "hunter2", "-h", "db"],
        ["mysql", "--password", R, "-h", "db"],
        1,
    ),
    ("api-key-flag-split", ["tool", "--api-key", "abc123"], ["tool", "--api-key", R], 1),
    ("token-flag-split", ["gh", "--token", "x1y2z3"], ["gh", "--token", R], 1),
    ("flag-then-flag", ["mysql", "--password", "-h", "db"], ["mysql", "--password", "-h", "db"], 0),
    (
        "keyword-item-then-path",
        ["grep", "-r", "token:", "src/"],
        ["grep", "-r", "token:", "src/"],
        0,
    ),
    ("password-eq-item-then-word", ["env", "password=", "ls"], ["env", "password=", "ls"], 0),
    (
        "curl-header-and-url",
        ["curl", "-H", "Authorization: Bearer abcdefgh1234", "https://u:pw@h/x"],
        ["curl", "-H", f"Authorization: Bearer {R}", f"https://u:{R}@h/x"],
        2,
    ),
    (
        "key-block-then-item",
        ["ssh-add", "-----BEGIN PRIVATE KEY-----\nQUJD", "next"],
        ["ssh-add", R, "next"],
        1,
    ),
    ("nothing", ["ls", "-la", "/tmp"], ["ls", "-la", "/tmp"], 0),
]


@pytest.mark.parametrize(("argv", "expected", "count"), [c[1:] for c in ARGV], ids=ids(ARGV))
def test_redact_argv(argv, expected, count):
    assert Redactor().redact_argv(argv) == (expected, count)
    assert bool(Redactor().argv_findings(argv)) == bool(count)
