"""An adversarial review of lint's chosen reading (the scanner's verdicts, the quick reading of
the rows only TT019 and TT022 may fire on) and of summary's suspicion count: hostile records
where the scanner's marks, the byte looks and the rules could disagree, each held to the full
reading (every row, every rule), ``lint_index(ix, every_row=True)``.
"""

from __future__ import annotations

import json
import os
import random
import threading
from pathlib import Path
from typing import Any

import pytest
from records import tool

from tracetui.analysis.lint import Issue, lint_index
from tracetui.analysis.suspicions import CODES, count_suspicions, suspicious_rows
from tracetui.model import marks
from tracetui.store import fastindex
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="C scanner not built")


@pytest.fixture(autouse=True)
def _cold(monkeypatch: pytest.MonkeyPatch) -> None:
    """The marks come from the scanner, never from a cached index."""
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")


def index_of(path: Path) -> RunIndex:
    return build_index(open_path(str(path))[0])


def write_lines(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "R.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def per_code_rows(found: list[Issue]) -> dict[str, int]:
    """Rows firing each incident code, as ``count_suspicions`` counts them."""
    counts = dict.fromkeys(CODES, 0)
    for _file, _line, code in {(i.file, i.line, i.code) for i in found if i.code in CODES}:
        counts[code] += 1
    return counts


def assert_agree(path: Path) -> list[Issue]:
    """Lint's chosen reading, its full reading and summary's count agree on ``path``."""
    full = lint_index(index_of(path), every_row=True)
    assert lint_index(index_of(path)) == full
    ix = index_of(path)
    assert count_suspicions(ix) == per_code_rows(full)
    by_row = {(ix.location(r)[1], c) for r, codes in suspicious_rows(ix).items() for c in codes}
    assert by_row == {(i.line, i.code) for i in full if i.code in CODES}
    return full


def cut(cid: str, **fields: Any) -> dict[str, Any]:
    """A tracetui/1 record whose stdout was cut (its tail kept), that breaks no contract rule."""
    defaults: dict[str, Any] = {
        "exit_code": 0,
        "stdout_bytes": 9000,
        "stdout_truncated": True,
        "stdout_clip": "tail",
        "stdout_sha256": None,
        "ok_preview": False,
        "preview_stdout": "x" * 10,
    }
    return tool(cid, **(defaults | fields))


def line(rec: dict[str, Any]) -> str:
    return json.dumps(rec, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------ a note only nested
def test_nested_note_of_a_retry_is_no_note(tmp_path: Path) -> None:
    """A cut retry of a cut parent (another command: no blind retry) with a field of an odd type
    and no note of its own, whose only ``agent_note`` is inside another object: nothing
    predicted success, lint says so, and summary's count must not take the nested note for the
    record's (its byte look trusted the one occurrence of the key on a row the scanner judged)."""
    parent = cut("a", agent_note="expect it to fail")
    retry = cut("b", parent_command_id="a", argv=["echo", "other"], duration_ms="slow")
    del retry["agent_note"]
    retry["meta"] = {"agent_note": "expect green"}
    path = write_lines(tmp_path, [line(parent), line(retry)])
    ix = index_of(path)
    assert ix.marks[1] == marks.TYPES  # judged by the scanner, no note of its own
    found = assert_agree(path)
    assert [i.code for i in found] == ["TT014"]


# ------------------------------------------------------------------ byte counts only nested
def test_cut_of_unknown_size_with_a_nested_byte_count(tmp_path: Path) -> None:
    """A cut stream with no byte count of its own (TT020 fires), on a line the scanner leaves to
    Python (its preview holds a marker's word, no marker), whose only ``stdout_bytes`` is inside
    another object: summary's byte look took the nested count for the record's and skipped
    TT020. (Not a tool span: TT001 would stop it.)"""
    rec = cut("a", span_type="llm", preview_stdout="the word truncated, and no marker")
    del rec["stdout_bytes"]
    rec["meta"] = {"stdout_bytes": 5}
    path = write_lines(tmp_path, [line(rec)])
    assert index_of(path).marks[0] == marks.ALL
    found = assert_agree(path)
    assert [i.code for i in found] == ["TT020"]


# ------------------------------------------------------------------ a generated hostile set
OWN = "\n\u2026[truncated {} bytes]\u2026\n"
PREVIEWS = [
    "x" * 20,
    "x" * 20 + OWN.format(808),
    "x\n...truncated 12 lines...\n",  # another agent's marker, naming a clip
    "head <response clipped><NOTE>To save on context",
    "the word truncated, and no marker",
    "x" + OWN.format(5) + "... [30 characters truncated] ...",
    "... [30 characters truncated] ..." + OWN.format(5),
    "",
]
WORDS = ["expect", "green", "should", "pass", "fail", "not", "no", "tests", "fixed", "will"]
WORDS += ["red", "still", "it", "the", "works", "error", "isn't", "won\u2019t", "PASS"]
SEPARATORS = [" ", ". ", ", ", "\n", "; ", " (", ") ", "\t", "\r\n", "\u0130", "\u212a", "\u00e9"]
ODD: list[Any] = [1.0, True, 2**70, -0.0, "1", [1], {"a": 1}, None, "head", "HEAD", 2**63, 2**31]
ODD_KEYS = ["exit_code", "returncode", "stdout_clip", "stdout_bytes", "agent_note", "cwd"]
ODD_KEYS += ["schema", "span_type", "stdout_truncated", "preview_stdout", "stdout_tail", "error"]
NESTED = {"agent_note": "expect green", "stdout_clip": "head", "exit_code": 1, "stdout_bytes": 5}
NESTED |= {"stderr_bytes": 0, "schema": "import/x", "argv": ["make"], "cwd": "/w"}


class Raw(str):
    """A value written as these characters (escapes, numbers spelled oddly)."""


def escaped(text: str, rng: random.Random) -> Raw:
    """``text`` as a JSON string with some letters written as \\u escapes."""
    out = [f"\\u{ord(c):04x}" if c.isalpha() and rng.random() < 0.3 else c for c in text]
    return Raw(json.dumps("".join(out), ensure_ascii=False).replace("\\\\u", "\\u"))


def hostile_note(rng: random.Random) -> str:
    words = [rng.choice(WORDS) + rng.choice(SEPARATORS) for _ in range(rng.randint(1, 6))]
    if rng.random() < 0.03:  # a clause longer than the scanner reads
        words = [rng.choice(WORDS) + " " for _ in range(600)] + words
    return "".join(words)


def hostile_fields(rng: random.Random, i: int) -> list[tuple[str, Any]]:
    """One record's fields, in one of the dialects, failed or cut more often than not."""
    code = rng.choice([0, 1, 2, None, -1, 255])
    fields: list[tuple[str, Any]] = [("command_id", f"c{i}")]
    roll = rng.random()
    if roll < 0.75:
        fields += [("schema", "tracetui/1")] if roll < 0.5 else []
        fields += [("span_type", rng.choice(["tool", "tool", "llm"])), ("argv", ["make", "t"])]
        fields += [("cwd", "/w"), (rng.choice(["exit_code", "returncode"]), code)]
        for s in ("stdout", "stderr"):
            over = rng.random() < 0.6
            fields += [(f"{s}_bytes", 500 if over else 5), (f"{s}_cap", rng.choice([100, 200]))]
            fields += [(f"{s}_truncated", over), ("ok_preview", False)]
            fields += [(f"{s}_clip", rng.choice(["head", "tail", "head_tail", None]))]
            fields += [(f"preview_{s}", rng.choice(PREVIEWS) if over else "x")]
            if over and rng.random() < 0.2:
                fields.append((f"{s}_head_bytes", 60))
    else:
        fields += [("command", rng.choice([["make"], "make t"])), ("exit_code", code)]
        tails = ["", "ok", "x" + OWN.format(12), OWN.format(7) + "...truncated 3 lines..."]
        fields += [("stdout_tail", rng.choice(tails)), ("stderr_tail", rng.choice(tails))]
        fields += [("stdout_clip", rng.choice(["head", None]))]
    if code is None:
        fields.append(("error", rng.choice(["", "killed"])))
    if i and rng.random() < 0.4:
        fields.append(("parent_command_id", rng.choice([f"c{rng.randrange(i)}", f"c{i}", "gone"])))
    if rng.random() < 0.6:
        said = hostile_note(rng)
        fields.append(("agent_note", escaped(said, rng) if rng.random() < 0.2 else said))
    return fields


def hostile_text(rng: random.Random, i: int) -> str:
    """A line: the fields made hostile (odd values, a key twice, keys nested, shuffled)."""
    fields = hostile_fields(rng, i)
    if rng.random() < 0.2:  # a field of another type, or spelt with escapes
        key = rng.choice(ODD_KEYS)
        value = rng.choice([*ODD, Raw("-0"), Raw("1E0"), escaped("head", rng)])
        fields = [(k, v) for k, v in fields if k != key] + [(key, value)]
    roll = rng.random()
    if roll < 0.1:  # a key twice: the last one counts
        fields.insert(0, (rng.choice(fields)[0], rng.choice(["head", 1, "expect green", None])))
    elif roll < 0.3:  # keys of the record inside another object, some not in the record
        nest = {k: NESTED[k] for k in rng.sample(sorted(NESTED), rng.randint(1, 4))}
        fields = [(k, v) for k, v in fields if k not in nest or rng.random() < 0.6]
        fields.insert(rng.randrange(len(fields) + 1), ("meta", nest))
    if rng.random() < 0.3:
        rng.shuffle(fields)
    ascii_only = rng.random() < 0.2
    body = ", ".join(
        f"{json.dumps(k)}: {v if isinstance(v, Raw) else json.dumps(v, ensure_ascii=ascii_only)}"
        for k, v in fields
    )
    return "{" + body + "}" + ("\r\n" if rng.random() < 0.1 else "\n")


@pytest.mark.parametrize("seed", range(6))
def test_generated_hostile_sets_agree(tmp_path: Path, seed: int) -> None:
    """Lint's chosen reading, its full reading and summary's count agree on generated sets of
    hostile rows (both byte-look bugs above were found so)."""
    rng = random.Random(seed)
    path = write_lines(tmp_path, [hostile_text(rng, i) for i in range(500)])
    ix = index_of(path)
    row_marks = ix.marks.tobytes()
    judged = sum(1 for m in row_marks if m != marks.ALL and not m & marks.FULL_READ)
    assert judged > 50 and row_marks.count(marks.ALL) > 50  # both roads are taken
    found = assert_agree(path)
    assert {"TT019", "TT020", "TT022", "TT014"} <= {i.code for i in found}


# ------------------------------------------------------------------ members changed after indexing
def _swap(kind: str, path: Path, lines: list[str]) -> None:
    if kind == "cut-short":
        os.truncate(path, path.stat().st_size // 2)
    elif kind == "grown":
        with path.open("a", encoding="utf-8") as fh:
            fh.write(lines[0])
    elif kind == "fifo":
        path.unlink()
        os.mkfifo(path)
    elif kind == "symlink":  # to another file: other rows where the index says
        other = path.with_name("other.jsonl")
        other.write_text("".join(reversed(lines)), encoding="utf-8")
        path.unlink()
        path.symlink_to(other)
    elif kind == "directory":
        path.unlink()
        path.mkdir()
    else:
        path.unlink()


@pytest.mark.parametrize("kind", ["cut-short", "grown", "fifo", "symlink", "directory", "gone"])
def test_member_changed_after_indexing(tmp_path: Path, kind: str) -> None:
    """Rows lint judges quickly (failed, cut, a note), their member changed between indexing and
    lint: the quick reading and the full one agree on what is there now, and neither lint nor
    summary's count hangs or raises."""
    lines = [line(cut("c0", exit_code=1, stdout_clip="head", agent_note="expect green"))]
    lines += [line(cut(f"c{i}", exit_code=2, agent_note="should pass")) for i in range(1, 40)]
    path = write_lines(tmp_path, lines)
    chosen_ix, full_ix, count_ix = index_of(path), index_of(path), index_of(path)
    assert all(m != marks.ALL and not m & marks.FULL_READ for m in chosen_ix.marks)
    _swap(kind, path, lines)
    got: list[Any] = []

    def both() -> None:
        got.append((lint_index(chosen_ix), lint_index(full_ix, every_row=True)))
        got.append(count_suspicions(count_ix))

    worker = threading.Thread(target=both, daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():
        if kind == "fifo":  # let the blocked open end, then fail
            with path.open("wb"):
                pass
        pytest.fail(f"{kind}: lint or summary blocked")
    assert len(got) == 2
    chosen, full = got[0]
    assert chosen == full


@pytest.mark.parametrize("quick", [True, False], ids=["quick-row", "unread-row"])
def test_member_rewritten_in_place_after_indexing(tmp_path: Path, quick: bool) -> None:
    """The marks that chose the rows are of the bytes indexed: a member rewritten in place
    since (same size) sends lint to the full reading, which judges what is there now."""
    said, now = ("expect green", "pwd=hunter2x") if quick else ("all done", "pwd=hunt")
    lines = [line(cut(f"c{i}", exit_code=1 if quick else 0, agent_note=said)) for i in range(5)]
    path = write_lines(tmp_path, lines)
    chosen_ix, full_ix = index_of(path), index_of(path)
    assert len(said) == len(now)
    path.write_text("".join(x.replace(said, now) for x in lines), encoding="utf-8")
    full = lint_index(full_ix, every_row=True)
    assert [i.code for i in full] == ["TT015"] * 5  # the secret written since
    assert lint_index(chosen_ix) == full
