"""Redaction on write: hashes over raw bytes, secrets cut by the cap, whole outputs redacted in
chunks, and re-run refusing an argv whose secrets were replaced."""

from __future__ import annotations

import hashlib

import pytest
from records import tool

from tracetui.record.capture import StreamTap
from tracetui.record.recorder import build_view, run_with_feedback, tap_limits
from tracetui.record.redact import Redactor, redacted_argv_refusal
from tracetui.record.redact_rules import REPLACEMENT
from tracetui.record.redact_stream import StreamRedactor
from tracetui.rerun.runner import RerunError, find_target
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

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


# More secrets cut by the cap (issue 13's shapes): the context around the window finds them.
SPLIT_MORE = [
    ("github-token-cut", "push ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8" + " ok", 12, "head"),
    ("jwt-cut", "t eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMTIz end", 30, "head"),
    ("sk-key-cut-by-tail", "key sk-proj-Ab1Cd2Ef3Gh4Ij5Kl6Mn7 end", 12, "tail"),
    ("url-password-cut", "https://ann:hunter2secret@host/x", 16, "head"),
    ("db-password-cut", "DB_PASSWORD=hunter2secret\n", 16, "head"),
]


@pytest.mark.parametrize(
    ("text", "cap", "clip"), [c[1:] for c in SPLIT_MORE], ids=[c[0] for c in SPLIT_MORE]
)
def test_new_shapes_split_by_the_cap_do_not_leak(text, cap, clip):
    v, data = cut(text, cap, clip)
    whole, _ = Redactor().redact(text)
    shown = v.preview.replace(REPLACEMENT, "\x00")
    # Every visible character is either outside the secret or a replacement.
    for piece in shown.replace("\n", "\x00").split("\x00"):
        if "…[truncated" not in piece:
            assert piece in whole
    assert v.redacted == 1
    assert v.fields["full_sha256"] == hashlib.sha256(data).hexdigest()


# (id, record fields, argv, refusal or None)
MSG1 = "the argv holds 1 redacted secret ([REDACTED] in the record): re-run it yourself with the real values"
MSG2 = MSG1.replace("1 redacted secret ", "2 redacted secrets ")
REFUSALS = [
    ("marked-one", {"argv_redacted": 1}, ["mysql", "--password", REPLACEMENT], MSG1),
    ("marked-two", {"argv_redacted": 2}, ["x", REPLACEMENT, REPLACEMENT], MSG2),
    ("marked-float", {"argv_redacted": 2.0}, ["x"], MSG2),
    ("marked-zero-keeps-a-literal", {"argv_redacted": 0}, ["grep", REPLACEMENT, "log"], None),
    ("unmarked-literal", {}, ["mysql", "--password", REPLACEMENT], MSG1),
    ("unmarked-clean", {}, ["ls", "-la"], None),
    ("wrong-type-falls-back", {"argv_redacted": "3"}, ["ls"], None),
    ("bool-falls-back", {"argv_redacted": True}, [REPLACEMENT, f"a{REPLACEMENT}"], MSG2),
    ("huge-count-not-shown", {"argv_redacted": 10**30}, ["x"], MSG2.replace("2 ", "")),
    ("negative", {"argv_redacted": -4}, ["x"], None),
    ("argv-not-a-list", {}, "echo [REDACTED]", None),
]


@pytest.mark.parametrize(
    ("fields", "argv", "expected"), [c[1:] for c in REFUSALS], ids=[c[0] for c in REFUSALS]
)
def test_redacted_argv_refusal(fields, argv, expected):
    assert redacted_argv_refusal({"argv": argv, **fields}, argv) == expected


def test_rerun_target_refuses_a_redacted_argv(make_run):
    root = make_run(
        {"B.jsonl": [tool("c1", argv=["mysql", "--password", REPLACEMENT], argv_redacted=1)]}
    )
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    with pytest.raises(RerunError) as exc:
        find_target([ix], "c1")
    assert str(exc.value) == f"span 'c1' cannot be re-run: {MSG1}"


def test_recorded_argv_secret_is_refused_by_rerun(tmp_path):
    log = tmp_path / "B.jsonl"
    res = run_with_feedback(["echo", "--password", "hunter2"], log=log, note="password=hunter2")
    assert res.record["argv"] == ["echo", "--password", REPLACEMENT]
    assert res.record["argv_redacted"] == 1
    assert res.stdout_view == f"--password {REPLACEMENT}\n"
    assert b"hunter2" not in log.read_bytes()
    ix = build_index(open_path(str(log))[0])
    with pytest.raises(RerunError) as exc:
        find_target([ix], res.record["command_id"])
    assert str(exc.value).endswith(MSG1)


def test_redact_bytes_keeps_binary_bytes():
    data = b"\xff\xfe password=hunter2 \x80 AKIAIOSFODNN7EXAMPLE\n"
    assert Redactor().redact_bytes(data) == (
        b"\xff\xfe password=[REDACTED] \x80 [REDACTED]\n",
        2,
    )
    assert Redactor().redact_bytes(b"\xffnothing") == (b"\xffnothing", 0)


STREAM_TEXT = (
    (
        "x" * 5000
        + "\n"
        + "password=hunter2 "
        + "y" * 3000
        + " ghp_"
        + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    )
    + "\n-----BEGIN PRIVATE KEY-----\n"
    + "QUJD" * 300
    + "\n-----END PRIVATE KEY-----\n"
    + "é" * 2000
)


@pytest.mark.parametrize("chunk", [1, 7, 1000, 4096, 65536], ids=lambda n: f"chunks-of-{n}")
def test_stream_redactor_matches_whole_redaction(chunk):
    data = STREAM_TEXT.encode()
    sr = StreamRedactor(Redactor(), hold=512)
    out = b"".join(sr.feed(data[i : i + chunk]) for i in range(0, len(data), chunk)) + sr.finish()
    expected, count = Redactor().redact_bytes(data)
    assert (out, sr.count) == (expected, count)
    assert count == 3


KEY_BLOCK = b"-----BEGIN PRIVATE KEY-----\n" + b"QUJD\n" * 400
# (id, data): key blocks longer than max_hold, held no longer but still hidden whole.
LONG_KEYS = [
    ("closed", b"ok\n" + KEY_BLOCK + b"-----END PRIVATE KEY-----\nafter\n"),
    ("never-closed", b"ok\n" + KEY_BLOCK + b"tail\n"),
    ("end-line-split-across-chunks", b"ok " + KEY_BLOCK + b"-----END PRIVATE KEY-----" + b"z" * 99),
]


@pytest.mark.parametrize("data", [c[1] for c in LONG_KEYS], ids=[c[0] for c in LONG_KEYS])
def test_stream_redactor_hides_a_key_block_longer_than_max_hold(data):
    sr = StreamRedactor(Redactor(), hold=64, max_hold=256)
    out = b"".join(sr.feed(data[i : i + 100]) for i in range(0, len(data), 100)) + sr.finish()
    assert (out, sr.count) == Redactor().redact_bytes(data)
    assert b"QUJD" not in out


def test_stream_redactor_multibyte_text_is_held_by_characters():
    data = ("é" * 3000 + " password=hunter2 " + "ü" * 3000).encode()
    sr = StreamRedactor(Redactor(), hold=1000, max_hold=2000)
    out = b"".join(sr.feed(data[i : i + 999]) for i in range(0, len(data), 999)) + sr.finish()
    assert (out, sr.count) == Redactor().redact_bytes(data)
