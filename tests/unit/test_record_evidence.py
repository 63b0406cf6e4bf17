"""The fields read straight from a record (analysis/record_evidence.py) are what ``normalize``
makes of them, and lint's quick reading (analysis/lint_marked.py) words TT019 and TT022 as the
rules do: on random records of every dialect with odd values in the fields they read, and on
runs where the quick reading judges most of the rows lint reads."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool
from test_cold_sum_notes import random_record
from test_lint_fast import hostile_record

from tracetui.analysis import lint_marked
from tracetui.analysis.lint import lint_index
from tracetui.analysis.lint_registry import RULES, rules_on
from tracetui.analysis.record_evidence import NotPlain, exit_code, note, stream_evidence
from tracetui.model.spans import (
    FEEDBACK,
    STREAMS,
    TRUNCATION_SPAN,
    NotASpan,
    detect_dialect,
    normalize,
)
from tracetui.store import fastindex
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

READ = [
    "exit_code",
    "returncode",
    "agent_note",
    "stdout_bytes",
    "stdout_cap",
    "stdout_head_bytes",
    "stdout_tail_bytes",
    "stdout_truncated",
    "preview_stdout",
    "stderr_bytes",
    "stderr_truncated",
    "stdout_tail",
]
"""Fields the evidence reads, given odd values below."""
ODD: list[Any] = [1.0, 2.5, True, False, "1", [1], {"a": 1}, -1, 0, 2**63, 2**64 - 1, 1e300, None]


def records(seed: int, n: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        rec = hostile_record(rng, i) if rng.random() < 0.5 else random_record(rng, i)
        for _ in range(rng.choice([0, 0, 1, 2])):
            rec[rng.choice(READ)] = rng.choice(ODD)
        out.append(rec)
    return out


def spans(seed: int, n: int) -> list[tuple[dict[str, Any], Any]]:
    out = []
    for rec in records(seed, n):
        try:
            out.append((rec, normalize(rec)))
        except NotASpan:
            continue
    return out


def test_evidence_is_what_normalize_reads() -> None:
    judged = declined = 0
    for rec, span in spans(1, 4000):
        dialect = detect_dialect(rec)
        for name in STREAMS:
            st = span.stream(name)
            try:
                got = stream_evidence(rec, name, dialect == FEEDBACK)
            except NotPlain:
                declined += 1
                continue
            judged += 1
            assert got == (st.truncated, st.bytes, st.hidden_bytes, st.marker), (rec, name)
        try:
            assert exit_code(rec, dialect) == span.exit_code, rec
        except NotPlain:  # another type (an exit of 1.0 the span reads as 1 included)
            own = dialect == TRUNCATION_SPAN and "returncode" in rec
            key = "returncode" if own else "exit_code"
            assert type(rec[key]) is not int, rec
        try:
            assert note(rec) == span.agent_note, rec
        except NotPlain:
            assert span.problems, rec
    assert judged > 2000 and declined > 100  # both roads are taken


def quick_rules() -> tuple[Any, ...]:
    return tuple(RULES[code] for code in lint_marked.QUICK_RULES)


def test_quick_findings_are_the_rules() -> None:
    """Where the quick reading answers, it answers as TT019 and TT022 themselves do."""
    from tracetui.analysis.lint import check_record

    answered = fired = 0
    codes: set[str] = set()
    for rec, span in spans(2, 4000):
        got = lint_marked.quick_findings(rec)
        if got is None:
            continue
        answered += 1
        want = [f for f in check_record(rec, span, quick_rules()) if f[0] in ("TT019", "TT022")]
        assert got == want, rec
        fired += bool(got)
        codes.update(code for code, _ in got)
    assert answered > 1000 and fired > 300 and codes == {"TT019", "TT022"}


def test_quick_rules_run_in_registration_order() -> None:
    order = [r.code for r in RULES.values() if r.code in lint_marked.QUICK_RULES]
    assert tuple(order) == lint_marked.QUICK_RULES
    assert not any(r.gate for r in quick_rules())
    assert all(r.code not in lint_marked.QUICK_RULES for r in rules_on("run"))


@pytest.mark.parametrize("value", [[], "x", 3, 1.5, True, None])
def test_not_a_plain_record(value: Any) -> None:
    assert lint_marked.quick_findings(value) is None
    assert lint_marked.quick_findings({"neither": value}) is None  # no dialect
    assert lint_marked.quick_findings(tool("a", stdout_cap=None) | {"x": value}) is not None
    rec = tool("a")
    del rec["stdout_cap"]
    assert lint_marked.quick_findings(rec) is None  # TT001 stops it: the rules say so


needs_scanner = pytest.mark.skipif(not fastindex.available(), reason="C scanner not built")


def failed_cut(i: int, **fields: Any) -> dict[str, Any]:
    return tool(
        f"c{i}",
        exit_code=1 + i % 3,
        stdout_bytes=9000 + i,
        stdout_truncated=True,
        stdout_clip="head",
        stdout_sha256=None,  # a full hash on a cut stream is TT004's (the full reading)
        ok_preview=False,  # and a cut preview called whole TT005's
        preview_stdout="x" * 40,
        agent_note="expect green" if i % 2 else None,
        **fields,
    )


@needs_scanner
@pytest.mark.parametrize("sparse", [0, 10**9], ids=["chunked", "sparse"])
def test_quick_reading_in_lint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sparse: int
) -> None:
    """On a run of failed, cut rows with notes, lint judges nearly every row it reads quickly,
    and finds what the full reading finds."""
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    from tracetui.analysis import raw_lines

    monkeypatch.setattr(raw_lines, "SPARSE", sparse)
    quick = []
    real = lint_marked.read_quick
    monkeypatch.setattr(
        "tracetui.analysis.lint.read_quick",
        lambda raw, row: quick.append(row) or real(raw, row),
    )
    recs = [failed_cut(i) if i % 4 else tool(f"c{i}") for i in range(400)]
    recs[9]["stdout_cap"] = 8.5  # TYPES: the full reading
    path = tmp_path / "B.jsonl"
    path.write_bytes(b"".join(encode_line(r) for r in recs))
    ix = build_index(open_path(str(path))[0])
    found = lint_index(ix)
    assert found == lint_index(ix, every_row=True)
    assert 9 not in quick and len(quick) == 299
    assert sum(i.code == "TT019" for i in found) == 300
    assert sum(i.code == "TT022" for i in found) == 200  # the odd rows have a note


@needs_scanner
def test_member_cut_short_after_indexing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows past a member's new end are not where the index says: the full reading reports
    them, as it always has."""
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    path = tmp_path / "B.jsonl"
    path.write_bytes(b"".join(encode_line(failed_cut(i)) for i in range(30)))
    ix = build_index(open_path(str(path))[0])
    with open(path, "r+b") as fh:
        fh.truncate(path.stat().st_size // 2)
    found = lint_index(ix)
    assert found == lint_index(ix, every_row=True)
    assert {i.code for i in found} >= {"TT019", "TT013"}


# ------------------------------------------------------------------ TT021's look at raw records
ARGVS: list[Any] = [["make"], "make", ["make", "test"], [], None, ["make", 1], {"a": 1}, 7]
CWDS: list[Any] = [".", "/src", None, ["."], "['.']", 3]


def retry_pair(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """A cut parent and its cut retry, in any dialect, argv and cwd drawn from odd values."""

    def one(cid: str) -> dict[str, Any]:
        if rng.random() < 0.25:
            rec: dict[str, Any] = {
                "command": rng.choice(ARGVS),
                "stdout_tail": "…[truncated 5 bytes]…",
            }
            rec["command_id"] = cid
        else:
            rec = failed_cut(0)
            rec["command_id"] = cid
            rec["argv"] = rng.choice(ARGVS)
            if rng.random() < 0.2:
                rec["command"] = rng.choice(ARGVS)  # a stray key the dialect does not read
        rec["cwd"] = rng.choice(CWDS)
        return rec

    parent, retry = one("p"), one("r")
    retry["parent_command_id"] = "p"
    if rng.random() < 0.4:  # the same command again, as a blind retry runs it
        for key in ("argv", "command", "cwd"):
            if key in parent:
                retry[key] = parent[key]
    return retry, parent


def test_may_retry_blind_never_rules_out_a_blind_retry() -> None:
    from tracetui.analysis.lint_incidents import blind_retry, may_retry_blind

    rng = random.Random(21)
    ruled_out = blind = 0
    for _ in range(3000):
        retry, parent = retry_pair(rng)
        try:
            why = blind_retry(normalize(retry), normalize(parent))
        except NotASpan:
            continue
        blind += why is not None
        if not may_retry_blind(retry, parent):
            ruled_out += 1
            assert why is None, (retry, parent)
    assert ruled_out > 300 and blind > 50, (ruled_out, blind)


@needs_scanner
@pytest.mark.parametrize(
    ("retry_argv", "parent_argv", "cwd"),
    [("make", ["make"], "."), (["make"], "make", "."), (["make"], ["make"], ["."])],
    ids=["shell-string-retry", "shell-string-parent", "cwd-a-list"],
)
def test_blind_retry_of_odd_fields_is_found_by_lint_and_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, retry_argv: Any, parent_argv: Any, cwd: Any
) -> None:
    """The span reads a shell string as one word and a list cwd as its text: the same command
    as its parent's, so TT021 fires, and summary counts it as lint does."""
    from tracetui.analysis.suspicions import count_suspicions

    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    parent = failed_cut(0) | {"command_id": "p", "argv": parent_argv, "cwd": cwd}
    retry = failed_cut(1, parent_command_id="p") | {"command_id": "r", "argv": retry_argv}
    retry["cwd"] = str(cwd) if isinstance(cwd, list) else cwd
    path = tmp_path / "B.jsonl"
    path.write_bytes(encode_line(parent) + encode_line(retry))
    ix = build_index(open_path(str(path))[0])
    found = lint_index(ix)
    assert found == lint_index(ix, every_row=True)
    assert [i.code for i in found if i.code == "TT021"] == ["TT021"]
    assert count_suspicions(ix)["TT021"] == 1
