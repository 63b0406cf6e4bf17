"""The scanner's TT019 and TT022 verdicts (row marks HEAD_CUT and SAYS_PASS), which let summary's
suspicion count skip reading most failed or cut rows: the C reading of a note against
``notes.predicted_success`` (a table, hostile bytes, random notes written both ways), the marks
of a table of rows, and the count against lint's and against the count without marks.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, imported, tool

from tracetui.analysis import notes, raw_lines
from tracetui.analysis.lint import lint_index
from tracetui.analysis.suspicions import CODES, count_suspicions, suspicious_rows
from tracetui.model import marks
from tracetui.store import fastindex
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="C scanner not built")
scan = fastindex._scan


@pytest.fixture(autouse=True)
def _cold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")


def test_marks_are_the_scanners() -> None:
    assert (scan.M_HEAD_CUT, scan.M_SAYS_PASS) == (marks.HEAD_CUT, marks.SAYS_PASS)
    judged = marks.SECRET | marks.CONTRACT | marks.TYPES | marks.NOTE | marks.UNSIZED
    assert judged | marks.HEAD_CUT | marks.SAYS_PASS != marks.ALL  # never read as "not judged"


def test_note_words_are_notes_lists() -> None:
    want = (notes.CUES, notes.SUCCESS, notes.FAILURE, notes.NEGATIONS, notes.SUBJECTS)
    got = scan.note_words()
    assert [set(w) for w in got] == [set(w) for w in want]
    assert all(len(w) == len(set(w)) for w in got)


def _judged(note: str, ascii_only: bool) -> int:
    written = json.dumps(note, ensure_ascii=ascii_only)
    return int(scan.judge_note(written[1:-1].encode()))


NOTE_CASES = [
    ("plain", "expect the refund path to pass"),
    ("failure-predicted", "expect it to fail"),
    ("negated-success", "not fixed yet"),
    ("negated-failure", "should not fail"),
    ("subject", "expect the failing test to pass"),
    ("subject-only", "the failing test"),
    ("cued-failure-later", "all green. should fail"),
    ("clauses", "expect red; the rest passes"),
    ("upper", "EXPECT GREEN"),
    ("apostrophe", "doesn't fail"),
    ("curly-apostrophe", "doesn\u2019t fail"),
    ("apostrophe-digit", "don't9 pass"),
    ("apostrophes-twice", "it''s fixed"),
    ("dotless-i-capital", "PASS\u0130NG"),
    ("i-dot-word", "\u0130s fixed"),
    ("kelvin", "wor\u212as"),
    ("kelvin-negation", "\u212a no pass"),
    ("accents", "\u00e9chec: pass\u00e9"),
    ("emoji", "\U0001f600pass\U0001f600"),
    ("brackets", "[green](link)"),
    ("newline", "expect fail\nall green"),
    ("tab", "green\tfail"),
    ("quote-backslash", 'say "pass" \\ fail'),
    ("empty", ""),
    ("spaces", "   "),
    ("long-word", "pass" * 10),
    ("digits", "2 tests pass 100%"),
    ("three-back", "not the build passes"),
    ("no-longer", "no longer fails"),
    ("many-clauses", "green, " * 2000),
]


@pytest.mark.parametrize(
    ("note",), [(n,) for _id, n in NOTE_CASES], ids=[i for i, _n in NOTE_CASES]
)
@pytest.mark.parametrize("ascii_only", [False, True], ids=["utf8", "escaped"])
def test_note_cases(note: str, ascii_only: bool) -> None:
    assert _judged(note, ascii_only) == (notes.predicted_success(note) is not None)


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        (b"\\u0070ass", 1),  # an escaped letter
        (b"\\u0050ASS", 1),
        (b"\\ud83d\\ude00 pass", 1),  # a surrogate pair
        (b"\\ud800 pass", 1),  # a lone surrogate: a separator, as its character is
        (b"fail \\", -1),  # bytes no JSON string holds
        (b"\\x pass", -1),
        (b"\\u12", -1),
        (b"\\u12zz pass", -1),
        (b"\xff pass", -1),
        (b"\xe2\x80 pass", -1),
        (b"pass \xc3", -1),
        (b" ".join([b"w"] * 600) + b" pass", -1),  # one clause longer than the scanner reads
        (b", ".join([b"w"] * 600) + b" pass", 1),  # as many words in short clauses
    ],
    ids=[
        "escaped-p",
        "escaped-upper",
        "pair",
        "lone",
        "trailing-backslash",
        "bad-escape",
        "short-u",
        "bad-hex",
        "bad-utf8",
        "short-utf8",
        "cut-utf8",
        "long-clause",
        "short-clauses",
    ],
)
def test_note_bytes(raw: bytes, want: int) -> None:
    assert scan.judge_note(raw) == want


VOCAB = sorted(notes.CUES | notes.SUCCESS | notes.FAILURE | notes.NEGATIONS | notes.SUBJECTS)
BITS = [" ", ".", ",", ";", ":", "!", "?", "(", ")", "[", "]", "\n", "'", "-", "\t", "\u00e9"]
BITS += ["\u2019", "\u0130", "\u212a", "\U0001f600", '"', "\\", "/", "0", "the", "it", "x9"]


def test_random_notes() -> None:
    rng = random.Random(7)
    for _ in range(20000):
        parts = []
        for _ in range(rng.randint(0, 12)):
            word = rng.choice(VOCAB) if rng.random() < 0.6 else rng.choice(BITS)
            parts.append(word.upper() if rng.random() < 0.1 else word)
            if rng.random() < 0.5:
                parts.append(" ")
        note = "".join(parts)
        want = notes.predicted_success(note) is not None
        assert _judged(note, False) == want, note
        assert _judged(note, True) == want, note


# ------------------------------------------------------------------ the marks of rows
def cut(cid: str, **fields: Any) -> dict[str, Any]:
    """A tracetui/1 record whose stdout was cut, that breaks no contract rule."""
    rec = tool(
        cid,
        exit_code=1,
        stdout_bytes=9000,
        stdout_truncated=True,
        stdout_clip="head",
        stdout_sha256=None,
        preview_stdout="x" * 100 + "\n",
        ok_preview=False,
    )
    rec.update(fields)
    return rec


OWN = "\n…[truncated 8900 bytes]…\n"
# id → (record, HEAD_CUT, SAYS_PASS, ALL expected)
ROW_CASES: dict[str, tuple[dict[str, Any], bool, bool, bool]] = {
    "failed-head": (cut("a"), True, False, False),
    "failed-tail": (cut("a", stdout_clip="tail"), False, False, False),
    "failed-no-clip": (cut("a", stdout_clip=None), False, False, False),
    "own-marker": (cut("a", preview_stdout="x" * 50 + OWN), True, False, False),
    "other-marker": (cut("a", preview_stdout="x <response clipped> y"), False, False, True),
    "marker-word-only": (cut("a", preview_stdout="x truncated y"), False, False, True),
    "own-marker-no-digits": (cut("a", preview_stdout="…[truncated  bytes]…"), False, False, True),
    "passed-head": (cut("a", exit_code=0), False, False, False),
    "null-exit-head": (cut("a", exit_code=None, error="boom"), False, False, False),
    "stderr-head": (
        cut(
            "a",
            stdout_clip="tail",
            stderr_bytes=9000,
            stderr_truncated=True,
            stderr_clip="head",
            stderr_sha256=None,
            preview_stderr="e\n",
        ),
        True,
        False,
        False,
    ),
    "note-pass-failed": (cut("a", agent_note="expect green"), True, True, False),
    "note-fail-failed": (cut("a", agent_note="expect it to fail"), True, False, False),
    "note-pass-cut-only": (cut("a", exit_code=0, agent_note="should pass"), False, True, False),
    "note-pass-plain": (tool("a", agent_note="should pass"), False, False, False),
    "note-pass-exit": (tool("a", exit_code=2, agent_note="should pass"), False, True, False),
    "note-escaped": (tool("a", exit_code=2, agent_note="\u00e9 pass \u2019"), False, True, False),
    "note-long-clause": (
        tool("a", exit_code=2, agent_note="w " * 600 + "pass"),
        False,
        False,
        True,
    ),
    "imported": (imported("a", exit_code=1, agent_note="should pass"), False, False, False),
}
ESCAPED_UNJUDGED = {"own-marker"}
"""Cases whose marker, written with its ellipsis escaped, the scanner does not look for."""


def write(tmp_path: Path, recs: list[dict[str, Any]], ascii_only: bool = False) -> Path:
    path = tmp_path / "B.jsonl"
    path.write_bytes(
        b"".join((json.dumps(r, ensure_ascii=ascii_only) + "\n").encode() for r in recs)
    )
    return path


def lint_counts(ix: RunIndex) -> dict[str, int]:
    fired = {(i.file, i.line, i.code) for i in lint_index(ix, every_row=True) if i.code in CODES}
    counts = dict.fromkeys(CODES, 0)
    for _file, _line, code in fired:
        counts[code] += 1
    return counts


@pytest.mark.parametrize("ascii_only", [False, True], ids=["utf8", "escaped"])
@pytest.mark.parametrize("case", list(ROW_CASES))
def test_row_marks(tmp_path: Path, case: str, ascii_only: bool) -> None:
    rec, head_cut, says_pass, unjudged = ROW_CASES[case]
    ix = build_index(open_path(str(write(tmp_path, [rec], ascii_only)))[0])
    m = ix.marks[0]
    assert (m == marks.ALL) == (unjudged or (ascii_only and case in ESCAPED_UNJUDGED))
    if m != marks.ALL:
        assert (bool(m & marks.HEAD_CUT), bool(m & marks.SAYS_PASS)) == (head_cut, says_pass)
    assert count_suspicions(ix) == lint_counts(ix)


def test_row_table_counts_as_lint(tmp_path: Path) -> None:
    ix = build_index(open_path(str(write(tmp_path, [r for r, *_ in ROW_CASES.values()])))[0])
    assert count_suspicions(ix) == lint_counts(ix)


MARKERS = ["", OWN, "\n…[truncated 5 bytes]…", "...truncated 3 lines...", "<response clipped>"]
NOTE_TEXTS = [None, "expect green", "should fail", "not fixed", "pass\u2019s", "\u0130 pass", 7]


def random_record(rng: random.Random, i: int) -> dict[str, Any]:
    rec = cut(
        f"c{i}",
        exit_code=rng.choice([0, 1, 2, None]),
        error=rng.choice([None, "boom"]),
        stdout_clip=rng.choice(["head", "tail", "head_tail", None]),
        preview_stdout="x" * rng.choice([1, 50]) + rng.choice(MARKERS),
        stdout_truncated=rng.random() < 0.8,
        stdout_bytes=rng.choice([9000, 100, None]),
        agent_note=rng.choice(NOTE_TEXTS),
    )
    if rng.random() < 0.3 and i:
        rec["parent_command_id"] = f"c{rng.randrange(i)}"
        rec["argv"] = rng.choice([["echo", "hi"], ["make", "test"]])  # a retry, or another command
    if rng.random() < 0.1:
        rec["stdout_sha256"] = "ab" * 32  # TT004: the contract may stop nothing, rules decide
    if rng.random() < 0.05:
        rec.pop("stderr_cap")  # TT001 stops the record
    return rec


@pytest.mark.parametrize("sparse", [0, 10**9], ids=["chunked", "sparse"])
def test_random_set_counts_as_lint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sparse: int
) -> None:
    """Every verdict path at once (marks, the byte looks, the rules), read chunked or line by
    line; the same count without marks (every row read), and the rows as suspicious_rows has
    them."""
    monkeypatch.setattr(raw_lines, "SPARSE", sparse)
    rng = random.Random(11)
    recs = [random_record(rng, i) for i in range(1500)]
    path = tmp_path / "B.jsonl"
    path.write_bytes(b"".join(encode_line(r) for r in recs))
    ix = build_index(open_path(str(path))[0])
    want = lint_counts(ix)
    assert want["TT019"] and want["TT020"] and want["TT021"] and want["TT022"]
    assert count_suspicions(ix) == want
    judged = suspicious_rows(ix)
    assert sorted(judged) == list(judged)  # in row order
    del ix.marks[:]
    assert count_suspicions(ix) == want
    assert suspicious_rows(ix) == judged


@pytest.mark.parametrize("sparse", [0, 10**9], ids=["chunked", "sparse"])
def test_member_cut_short_after_indexing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sparse: int
) -> None:
    """A member truncated after it was indexed: the rows past its new end are not read (they
    count nothing), in either reading, and nothing raises."""
    monkeypatch.setattr(raw_lines, "SPARSE", sparse)
    recs = [cut(f"c{i}", preview_stdout="x truncated") for i in range(40)]  # read: marked ALL
    path = write(tmp_path, recs)
    ix = build_index(open_path(str(path))[0])
    whole = count_suspicions(ix)
    assert whole["TT019"] == 40
    with path.open("r+b") as fh:
        fh.truncate(path.stat().st_size // 2)
    half = count_suspicions(ix)
    assert 0 < half["TT019"] < 40
