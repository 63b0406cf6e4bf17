"""Redaction on write: previews only, hashes over raw bytes, secrets cut by the cap."""

from __future__ import annotations

import hashlib

import pytest

from tracetui.record.capture import StreamTap
from tracetui.record.recorder import build_view, tap_limits
from tracetui.record.redact import REPLACEMENT, Redactor

AWS = "AKIAIOSFODNN7EXAMPLE"


def cut(text: str, cap: int, clip: str, redactor: Redactor | None = None):
    data = text.encode()
    tap = StreamTap(*tap_limits(cap, clip))
    tap.feed(data)
    return build_view(tap.finish(), cap, clip, redactor or Redactor()), data


# (id, text, cap, clip, must not appear in the preview, replacements)
SPLIT = [
    ("aws-key-cut-by-head", "id " + AWS + " tail", 11, "head", ["AKIA", "IOSF"], 1),
    ("aws-key-cut-by-tail", "head " + AWS + " end", 14, "tail", ["DNN7", "EXAMPLE"], 1),
    ("aws-key-prefix-only", "x " + AWS, 6, "head", ["AKIA"], 1),
    ("password-cut-by-head", "login password=hunter2secret done", 20, "head", ["hun"], 1),
    ("password-cut-by-tail", "login password=hunter2secret done", 16, "tail", ["2secret"], 1),
    (
        "password-head_tail",
        "password=hunter2secret " + "." * 40 + " api_key=abcdefgh",
        24,
        "head_tail",
        ["hunter", "abcd", "defgh"],
        2,
    ),
    ("bearer-cut", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz", 27, "head", ["abcde"], 1),
    ("slack-cut", "token xoxb-1234567890-abcdef", 14, "head", ["xoxb-12"], 1),
    (
        "private-key-tail",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nQWERTYUIOPASDFGH\n"
        "-----END RSA PRIVATE KEY-----\nafter",
        52,
        "tail",
        ["QWERTY"],
        1,
    ),
]


@pytest.mark.parametrize(
    ("text", "cap", "clip", "hidden", "count"), [c[1:] for c in SPLIT], ids=[c[0] for c in SPLIT]
)
def test_secret_split_by_the_cap_does_not_leak(text, cap, clip, hidden, count):
    v, data = cut(text, cap, clip)
    assert v.fields["truncated"] is True
    for part in hidden:
        assert part not in v.preview
    assert REPLACEMENT in v.preview
    assert v.redacted == count
    assert v.fields["full_sha256"] == hashlib.sha256(data).hexdigest()  # raw bytes, not redacted


def test_whole_secret_redacted_and_keyword_kept():
    v, data = cut("password=hunter2 and " + AWS, 1000, "head")
    assert v.preview == "password=[REDACTED] and [REDACTED]"
    assert v.redacted == 2
    assert v.fields["sha256"] == hashlib.sha256(data).hexdigest()


def test_custom_pattern():
    v, _ = cut("ticket SECRET-1234 open", 1000, "head", Redactor.with_patterns([r"SECRET-\d+"]))
    assert v.preview == "ticket [REDACTED] open"
    assert v.redacted == 1


def test_custom_pattern_split_across_cut_uses_context():
    v, _ = cut("ticket SECRET-1234 open", 12, "head", Redactor.with_patterns([r"SECRET-\d+"]))
    assert v.preview.startswith("ticket [REDACTED]\n")
    assert "SECR" not in v.preview


def test_keyword_alone_at_the_cut_is_not_counted():
    # The window shows `password=` and nothing of the value: nothing to replace.
    v, _ = cut("password=hunter2", 9, "head")
    assert v.preview.startswith("password=\n")
    assert v.redacted == 0


# (id, window, before, after, cut_before, cut_after, expected)
WINDOWS = [
    ("no-context-aws-prefix", "key AKIAIOSF", "", "", False, True, "key [REDACTED]"),
    ("no-context-short-prefix-kept", "grade AKI", "", "", False, True, "grade AKI"),
    ("no-cut-no-partial", "key AKIAIOSF", "", "", False, False, "key AKIAIOSF"),
    ("context-after", "pass password=hun", "", "ter2 x", False, True, "pass password=[REDACTED]"),
    ("context-before", "ter2 x", "pass password=hun", "", True, False, "[REDACTED] x"),
    ("bearer-short-prefix", "Bearer ab", "", "", False, True, "Bearer [REDACTED]"),
    (
        "key-end-without-context",
        "QUJD\n-----END PRIVATE KEY-----\nok",
        "",
        "",
        True,
        False,
        "[REDACTED]\nok",
    ),
]


@pytest.mark.parametrize(
    ("window", "before", "after", "cut_before", "cut_after", "expected"),
    [c[1:] for c in WINDOWS],
    ids=[c[0] for c in WINDOWS],
)
def test_redact_window(window, before, after, cut_before, cut_after, expected):
    text, _ = Redactor().redact_window(
        window, before=before, after=after, cut_before=cut_before, cut_after=cut_after
    )
    assert text == expected
