"""Pure comparison logic: normalisation rules, hash verdicts, windows, diffs, unseen excerpts."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from tracetui.model.markers import marker_line
from tracetui.model.spans import normalize
from tracetui.rerun import diff
from tracetui.rerun.normalize import RULE_NAMES, normalize_text, parse_rules


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ------------------------------------------------------------------ normalisation
NORMALIZE = [
    ("ansi", "\x1b[31mFAILED\x1b[0m x", "FAILED x"),
    ("ansi-osc-title", "\x1b]0;title\x07ok", "ok"),
    ("iso-datetime", "at 2026-11-01T00:30:00.123+01:00 done", "at <TIME> done"),
    ("iso-space-utc", "2026-11-01 00:30:00Z start", "<TIME> start"),
    ("syslog", "Nov 29 22:20:48 host x", "<TIME> host x"),
    ("rfc2822", "Date: Sun, 29 Nov 2026 22:20:48 +0000", "Date: <TIME>"),
    ("bare-date", "rate table for 2026-11-01 missing", "rate table for <DATE> missing"),
    ("bare-time", "[12:30:05.5] tick", "[<TIME>] tick"),
    ("duration-s", "=== 3 passed in 0.42s ===", "=== 3 passed in <DURATION> ==="),
    ("duration-ms-space", "took 12 ms", "took <DURATION>"),
    ("duration-compound", "elapsed 1m30.5s", "elapsed <DURATION>"),
    ("duration-words", "in 3.5 seconds", "in <DURATION>"),
    ("not-a-duration", "test_case_003s v1.2s 5 items", "test_case_003s v1.2s 5 items"),
    ("hex", "<Obj at 0x7f3a2b1c>", "<Obj at <HEX>>"),
    ("short-hex-kept", "flags 0x1f", "flags 0x1f"),
    ("tmp", "File /tmp/pytest-of-u/pytest-3/t0/x.py:12: err", "File <TMP>:12: err"),
    ("var-folders", "'/var/folders/ab/T/tmpq1'", "'<TMP>'"),
]


@pytest.mark.parametrize(("name", "text", "want"), NORMALIZE, ids=[c[0] for c in NORMALIZE])
def test_normalize_each_rule(name: str, text: str, want: str) -> None:
    assert normalize_text(text) == want


def test_each_rule_can_be_switched_off() -> None:
    text = "\x1b[1m2026-11-01T00:30:00Z 0.5s 0xdeadbeef /tmp/a\x1b[0m"
    assert normalize_text(text) == "<TIME> <DURATION> <HEX> <TMP>"
    assert normalize_text(text, ()) == text
    for rule in RULE_NAMES:
        kept = normalize_text(text, [r for r in RULE_NAMES if r != rule])
        assert kept != normalize_text(text), rule


PARSE = [
    ("one", ["ansi"], {"ansi"}),
    ("aliases-and-case", ["Timestamp", "TEMP"], {"timestamps", "tmp"}),
    ("comma-list", ["hex,durations"], {"hex", "durations"}),
    ("all", ["all"], set(RULE_NAMES)),
]


@pytest.mark.parametrize(("name", "given", "want"), PARSE, ids=[c[0] for c in PARSE])
def test_parse_rules(name: str, given: list[str], want: set[str]) -> None:
    assert parse_rules(given) == want


def test_parse_rules_rejects_unknown() -> None:
    with pytest.raises(ValueError, match="unknown normalisation rule 'colours'"):
        parse_rules(["colours"])


# ------------------------------------------------------------------ verdicts
OLD = b"".join(b"line %03d\n" % i for i in range(100))  # 900 bytes


def tt1(stream: bytes, cap: int | None, clip: str = "head", **over: Any) -> dict[str, Any]:
    """A tracetui/1 stdout as the recorder would write it (windows cut at the byte, ASCII data)."""
    rec: dict[str, Any] = {
        "schema": "tracetui/1",
        "span_type": "tool",
        "argv": ["x"],
        "exit_code": 0,
        "stdout_bytes": len(stream),
        "stdout_cap": cap,
        "stdout_full_sha256": sha(stream),
    }
    if cap is None or len(stream) <= cap:
        rec.update(
            stdout_truncated=False, stdout_sha256=sha(stream), preview_stdout=stream.decode()
        )
    else:
        head_n = cap if clip == "head" else 0 if clip == "tail" else cap - cap // 2
        tail_n = cap - head_n
        head, tail = stream[:head_n], stream[len(stream) - tail_n :] if tail_n else b""
        rec.update(
            stdout_truncated=True,
            stdout_sha256=None,
            stdout_clip=clip,
            preview_stdout=head.decode()
            + marker_line(len(stream) - head_n - tail_n)
            + tail.decode(),
        )
        if head_n:
            rec.update(stdout_head_sha256=sha(head), stdout_head_bytes=head_n)
        if tail_n:
            rec.update(stdout_tail_sha256=sha(tail), stdout_tail_bytes=tail_n)
    rec.update(over)
    return rec


def changed(at: int) -> bytes:
    return OLD[:at] + b"X" + OLD[at + 1 :]


VERDICT_CASES = [
    ("identical-full-hash", tt1(OLD, 200), OLD, diff.IDENTICAL),
    ("identical-untruncated", tt1(OLD, None, stdout_full_sha256=None), OLD, diff.IDENTICAL),
    ("head-matches", tt1(OLD, 200), changed(500), diff.HEAD_MATCHES),
    ("tail-matches", tt1(OLD, 200, "tail"), changed(10), diff.TAIL_MATCHES),
    ("head-and-tail-match", tt1(OLD, 200, "head_tail"), changed(450), diff.BOTH_MATCH),
    ("head-tail-only-tail", tt1(OLD, 200, "head_tail"), changed(10), diff.TAIL_MATCHES),
    ("differs-full", tt1(OLD, None), changed(450), diff.DIFFERS),
    ("differs-window", tt1(OLD, 200), changed(10), diff.DIFFERS),
    ("differs-shorter-than-window", tt1(OLD, 200), OLD[:50], diff.DIFFERS),
    (
        "truncation-span-head-256",
        {
            "span_type": "tool",
            "argv": ["x"],
            "returncode": 0,
            "stdout_bytes": 900,
            "stdout_cap": 300,
            "stdout_truncated": True,
            "stdout_sha256": None,
            "stdout_head_sha256": sha(OLD[:256]),
            "stdout_tail_sha256": sha(OLD[-256:]),
            "preview_stdout": OLD[:100].decode(),
        },
        changed(450),
        diff.BOTH_MATCH,
    ),
    (
        "truncation-span-short-stream",
        {
            "span_type": "tool",
            "argv": ["x"],
            "returncode": 0,
            "stdout_bytes": 90,
            "stdout_cap": 300,
            "stdout_truncated": False,
            "stdout_sha256": "0" * 64,
            "stdout_head_sha256": sha(OLD[:90]),
            "preview_stdout": OLD[:90].decode(),
        },
        OLD[:90] + b"more",
        diff.HEAD_MATCHES,
    ),
    (
        "unknown-feedback",
        {"command": ["x"], "stdout_tail": "line 099\n", "exit_code": 0},
        OLD,
        diff.UNKNOWN,
    ),
    ("uppercase-hash", tt1(OLD, None, stdout_full_sha256=sha(OLD).upper()), OLD, diff.IDENTICAL),
    # A {s}_sha256 is the whole stream's hash only when the stream was not cut: on a stream judged
    # truncated (by flag, by bytes over the cap, or by a marker) it proves nothing, even if it
    # happens to equal the new output's hash.
    (
        "sha256-on-flagged-clip-is-no-proof",
        tt1(OLD, 200, stdout_sha256=sha(OLD), stdout_full_sha256=None, stdout_head_sha256=None),
        OLD,
        diff.UNKNOWN,
    ),
    (
        "sha256-on-clip-by-bytes-is-no-proof",
        tt1(
            OLD,
            200,
            stdout_truncated=False,
            stdout_sha256=sha(OLD),
            stdout_full_sha256=None,
            stdout_head_sha256=None,
        ),
        OLD,
        diff.UNKNOWN,
    ),
    (
        "sha256-on-clip-by-marker-is-no-proof",
        {
            "schema": "tracetui/1",
            "argv": ["x"],
            "exit_code": 0,
            "stdout_sha256": sha(OLD),
            "preview_stdout": OLD[:100].decode() + marker_line(800),
        },
        OLD,
        diff.UNKNOWN,
    ),
    (
        "sha256-on-clip-mismatch-is-not-differs",
        tt1(OLD, 200, stdout_sha256="0" * 64, stdout_full_sha256=None, stdout_head_sha256=None),
        OLD,
        diff.UNKNOWN,
    ),
    (
        "sha256-on-clip-falls-back-to-dialect-head",
        {
            "span_type": "tool",
            "argv": ["x"],
            "returncode": 0,
            "stdout_bytes": 900,
            "stdout_cap": 300,
            "stdout_truncated": True,
            "stdout_sha256": sha(OLD),
            "stdout_head_sha256": sha(OLD[:256]),
            "preview_stdout": OLD[:100].decode(),
        },
        OLD,
        diff.HEAD_MATCHES,
    ),
    # The near-miss twins: the same hash on a stream that was not cut is the whole stream's.
    (
        "sha256-uncut-matches",
        {
            "span_type": "tool",
            "argv": ["x"],
            "returncode": 0,
            "stdout_bytes": 900,
            "stdout_cap": 8192,
            "stdout_truncated": False,
            "stdout_sha256": sha(OLD),
            "preview_stdout": OLD.decode(),
        },
        OLD,
        diff.IDENTICAL,
    ),
    (
        "sha256-uncut-mismatch",
        {
            "span_type": "tool",
            "argv": ["x"],
            "returncode": 0,
            "stdout_bytes": 900,
            "stdout_cap": 8192,
            "stdout_truncated": False,
            "stdout_sha256": sha(OLD),
            "preview_stdout": OLD.decode(),
        },
        changed(450),
        diff.DIFFERS,
    ),
    # Truncation unknown (no byte count, no flag, no marker): the hash is not trusted either.
    (
        "sha256-truncation-unknown",
        {"schema": "tracetui/1", "argv": ["x"], "exit_code": 0, "stdout_sha256": sha(OLD)},
        OLD,
        diff.UNKNOWN,
    ),
]


@pytest.mark.parametrize(
    ("name", "rec", "new", "want"), VERDICT_CASES, ids=[c[0] for c in VERDICT_CASES]
)
def test_verdict(name: str, rec: dict[str, Any], new: bytes, want: str) -> None:
    assert diff.verdict(normalize(rec).stdout, diff.BytesOutput(new)) == want


# ------------------------------------------------------------------ windows
def windows(rec: dict[str, Any], new: bytes) -> diff.Windows:
    span = normalize(rec)
    return diff.plan_windows(span.stdout, span.dialect, len(new))


def test_head_window_and_unseen_part() -> None:
    w = windows(tt1(OLD, 200), OLD + b"extra\n")
    assert (w.clip, w.head_bytes, w.tail_bytes, w.unseen_start, w.unseen_bytes) == (
        "head",
        200,
        0,
        200,
        706,
    )
    assert w.head_text == OLD[:200].decode() and w.tail_text is None


def test_tail_window_unseen_part_is_the_start() -> None:
    w = windows(tt1(OLD, 200, "tail"), OLD)
    assert (w.clip, w.head_text, w.tail_text, w.tail_bytes, w.unseen_start, w.unseen_bytes) == (
        "tail",
        None,
        OLD[-200:].decode(),
        200,
        0,
        700,
    )


def test_head_tail_window_unseen_part_is_the_middle() -> None:
    w = windows(tt1(OLD, 200, "head_tail"), OLD)
    assert (w.head_bytes, w.tail_bytes, w.unseen_start, w.unseen_bytes) == (100, 100, 100, 700)


def test_uncut_stream_is_one_whole_window() -> None:
    w = windows(tt1(OLD, None), OLD + b"new\n")
    assert (w.clip, w.head_text, w.head_bytes, w.unseen_bytes) == ("whole", OLD.decode(), 904, 0)


def test_uncut_stream_beyond_the_whole_window_is_unseen() -> None:
    big = OLD * 100  # 90,000 bytes, more than WHOLE_MIN
    w = windows(tt1(OLD, None), big)
    assert (w.head_bytes, w.unseen_start, w.unseen_bytes) == (
        diff.WHOLE_MIN,
        diff.WHOLE_MIN,
        90000 - diff.WHOLE_MIN,
    )


def test_truncation_span_preview_shorter_than_what_was_seen() -> None:
    # The dialect stores the first 100 chars of a 300-byte view: compare 100, count 300 as seen.
    rec = {
        "span_type": "tool",
        "argv": ["x"],
        "returncode": 0,
        "stdout_bytes": 900,
        "stdout_cap": 300,
        "stdout_truncated": True,
        "stdout_sha256": None,
        "preview_stdout": OLD[:100].decode(),
    }
    w = windows(rec, OLD)
    assert (w.clip, w.head_bytes, w.unseen_start, w.unseen_bytes) == ("head", 100, 300, 600)


def test_feedback_tail_after_its_marker() -> None:
    rec = {
        "command": ["x"],
        "stdout_tail": "...truncated 98 lines...\nline 098\nline 099\n",
        "exit_code": 0,
    }
    w = windows(rec, OLD)
    assert (w.clip, w.tail_text, w.tail_bytes, w.unseen_start, w.unseen_bytes) == (
        "tail",
        "line 098\nline 099\n",
        18,
        0,
        882,
    )


# ------------------------------------------------------------------ diffs
def test_window_diff_ignores_what_normalisation_hides() -> None:
    old = "start 2026-11-01T10:00:00Z\nresult 42\n"
    new = b"start 2026-11-02T11:30:00Z\nresult 42\n"
    rec = tt1(old.encode(), None)
    c = diff.compare(normalize(rec).stdout, "tracetui/1", diff.BytesOutput(new))
    assert (c.verdict, c.changed_raw, c.changed) == (diff.DIFFERS, True, False)
    assert diff.diff_lines(c.texts) == []
    assert diff.diff_lines(
        c.texts, [r for r in RULE_NAMES if r != "timestamps"], name="stdout"
    ) == [
        "--- then: stdout whole (stored preview)",
        "+++ now: stdout whole (same window of the re-run)",
        "@@ -1,3 +1,3 @@",
        "-start 2026-11-01T10:00:00Z",
        "+start 2026-11-02T11:30:00Z",
        " result 42",
        " ",
    ]


def test_window_diff_shows_a_real_change() -> None:
    rec = tt1(OLD, 200)
    c = diff.compare(normalize(rec).stdout, "tracetui/1", diff.BytesOutput(changed(100)))
    assert (c.verdict, c.changed_raw, c.changed) == (diff.DIFFERS, True, True)
    lines = diff.diff_lines(c.texts, name="stdout")
    assert lines[:2] == [
        "--- then: stdout head (stored preview)",
        "+++ now: stdout head (same window of the re-run)",
    ]
    assert [x for x in lines if x[:1] in "+-" and x[:3] not in ("---", "+++")] == [
        "-line 011",
        "+lXne 011",
    ]


# ------------------------------------------------------------------ unseen part
def test_unseen_excerpt_small_part_is_whole() -> None:
    w = windows(tt1(OLD, 800), OLD)
    ex = diff.unseen_excerpt(diff.BytesOutput(OLD), w, limit=64)
    assert ex == diff.Excerpt(OLD[800:].decode(), 0, "")


def test_unseen_excerpt_large_part_gives_start_and_end_on_line_boundaries() -> None:
    w = windows(tt1(OLD, 90), OLD)  # unseen: lines 010..099, 810 bytes
    ex = diff.unseen_excerpt(diff.BytesOutput(OLD), w, limit=100)
    assert ex.start == "".join(
        f"line {i:03d}\n" for i in range(10, 21)
    )  # 99 bytes, cut at a line end
    assert ex.end == "".join(f"line {i:03d}\n" for i in range(89, 100))  # from a line start
    assert len(ex.start) + ex.skipped + len(ex.end) == 810


def test_read_unseen_pages_through_the_part() -> None:
    w = windows(tt1(OLD, 90), OLD)
    new = diff.BytesOutput(OLD)
    assert diff.read_unseen(new, w, 0, 9) == b"line 010\n"
    assert diff.read_unseen(new, w, 801, 100) == b"line 099\n"
    assert diff.read_unseen(new, w, 810, 100) == b""
