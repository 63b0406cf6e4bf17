"""Lint's chosen reading (only the rows the scanner's marks send to the rules) finds exactly what
the full reading (every row, every rule) finds: on every fixture, every case table of the lint
tests, and a generated set with hostile rows mixed in. Then the marks themselves: the C values,
the secret words against every redaction shape, every field the span types.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from typing import Any

import pytest
import test_lint
import test_lint_contract
import test_lint_incidents
import test_lint_secrets
import test_scan
from records import Line, encode_line, imported, tool
from secret_shapes import NEAR_MISSES, SHAPES

from tracetui.analysis import lint_registry, lint_select, suspicion_scan
from tracetui.analysis.lint import lint_index
from tracetui.analysis.suspicions import CODES, count_suspicions
from tracetui.model import marks
from tracetui.model.flags import FAILED, TRUNCATED
from tracetui.model.spans import normalize
from tracetui.record.redact import Redactor
from tracetui.store import fastindex
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="C scanner not built")

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_runs"
AGENTS = ROOT / "tests" / "data" / "agents"


@pytest.fixture(autouse=True)
def _cold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every index here is built by the scanner (a cached one may come back without marks)."""
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")


def index_of(path: Path) -> RunIndex:
    return build_index(open_path(str(path))[0])


def assert_same(ix: RunIndex) -> list[Any]:
    chosen, full = lint_index(ix), lint_index(ix, every_row=True)
    assert chosen == full
    return chosen


def write(tmp_path: Path, lines: list[Line], name: str = "B.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"".join(encode_line(x) for x in lines))
    return path


# ------------------------------------------------------------------ fixtures and case tables
FIXTURE_PATHS = [SAMPLES / r for r in ("flaky-billing", "silent-json", "rotated")] + sorted(
    p for p in AGENTS.iterdir() if p.suffix not in (".py", ".txt")
)


@pytest.mark.parametrize("path", FIXTURE_PATHS, ids=[p.name for p in FIXTURE_PATHS])
def test_fixtures_same_findings(path: Path) -> None:
    assert_same(index_of(path))


def _tables() -> list[tuple[str, list[Any]]]:
    cases: list[tuple[str, list[Any]]] = []
    cases += [(f"lint-{c[0]}", c[1]) for c in test_lint.CASES]
    cases += [(f"incident-{c[0]}", c[1]) for c in test_lint_incidents.CASES]
    cases += [(f"contract-{c[0]}", [c[1]]) for c in test_lint_contract.CASES]
    cases += [(f"secret-field-{c[0]}", [c[1]]) for c in test_lint_secrets.FIELDS]
    for n, (rule, text, twin) in enumerate(test_lint_secrets.PAIRS):
        cases.append((f"secret-pair-{rule}-{n}", [test_lint_secrets.in_preview(text)]))
        cases.append((f"secret-twin-{rule}-{n}", [test_lint_secrets.in_preview(twin)]))
    cases.append(("scan-edge-lines", test_scan.EDGE_LINES))
    return cases


TABLES = _tables()


@pytest.mark.parametrize(("case", "lines"), TABLES, ids=[c[0] for c in TABLES])
def test_case_tables_same_findings(tmp_path: Path, case: str, lines: list[Any]) -> None:
    assert_same(index_of(write(tmp_path, lines)))


def test_without_the_scanner_every_row_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failed = tool("b", exit_code=1, ok_preview=False, agent_note="expect green")
    path = write(tmp_path, [tool("a"), failed])
    monkeypatch.setenv("TRACETUI_NO_C", "1")
    ix = index_of(path)
    assert list(ix.marks) == [marks.ALL, marks.ALL]
    assert [i.code for i in assert_same(ix)] == ["TT022"]


# ------------------------------------------------------------------ a generated hostile set
ODD = [None, 0, 1, -1, 2.5, 3.0, 2**63, True, False, "", "x", [], ["a", 1], {}, {"k": "v"}]
FIELDS = [
    "exit_code",
    "returncode",
    "error",
    "agent_note",
    "tool_name",
    "cwd",
    "started_at",
    "duration_ms",
    "encoding",
    "ok_preview",
    "redacted",
    "argv",
    "command",
    "command_id",
    "parent_command_id",
    "span_type",
    "schema",
    "stdout_bytes",
    "stdout_cap",
    "stdout_truncated",
    "stdout_clip",
    "stdout_sha256",
    "stdout_head_bytes",
    "stdout_tail_bytes",
    "stdout_items",
    "preview_stdout_items",
    "preview_stdout",
    "stdout_tail",
    "stderr_full_sha256",
    "stderr_truncated",
]
TEXTS = [
    "plain output\n",
    "a\n…[truncated 808 bytes]…\n",
    "a\n...truncated 3 lines...\n",
    'tab\there "quoted" back\\slash',
    "password=hunter2",
    "PASSWORD=hunter2",
    "pa\u017f\u017fword=hunter2",  # long s: matches (?i:s)
    "\u212aey",
    "ghp_" + "A1b2" * 9,
    "https://ann:pw@host/x",
    "expect green",
    "should fail",
    "é" * 40,
]
NOTES = ["expect green", "should pass", "expect it to fail", None, "reproduce the failure"]


def hostile_record(rng: random.Random, i: int) -> dict[str, Any]:
    """A record of one of the dialects, with a few fields given odd values or texts."""
    kind = rng.random()
    cut = rng.random() < 0.3
    if kind < 0.6:
        rec = tool(f"c{i}", exit_code=rng.choice([0, 0, 1, None, 2]))
        if cut:
            rec.update(
                stdout_bytes=9000,
                stdout_truncated=True,
                stdout_clip=rng.choice(["head", "tail", None]),
                preview_stdout="x" * rng.choice([10, 8192, 8200]) + "\n…[truncated 808 bytes]…\n",
            )
    elif kind < 0.75:
        rec = {
            "command": ["make", "test"],
            "stdout_tail": rng.choice(TEXTS),
            "stderr_tail": "",
            "exit_code": rng.choice([0, 1, None]),
            "command_id": f"c{i}",
        }
    elif kind < 0.85:
        rec = imported(f"c{i}", exit_code=rng.choice([0, 1, None]))
    else:
        rec = {
            "span_type": "tool",
            "argv": ["pytest"],
            "returncode": rng.choice([0, 3]),
            "stdout_bytes": rng.choice([10, 9000, None]),
            "stdout_cap": 8192,
            "stdout_truncated": cut,
            "stderr_bytes": 0,
            "stderr_cap": 8192,
            "stderr_truncated": False,
            "ok_preview": rng.choice([True, False]),
            "command_id": f"c{i}",
        }
    if rng.random() < 0.3:
        rec["agent_note"] = rng.choice(NOTES)
    if rng.random() < 0.2 and i:
        rec["parent_command_id"] = f"c{rng.randrange(i)}"
    for _ in range(rng.choice([0, 0, 0, 1, 2])):
        key = rng.choice(FIELDS)
        rec[key] = rng.choice(ODD + TEXTS) if rng.random() < 0.5 else rng.choice(TEXTS)
    if rng.random() < 0.05:
        rec.pop(rng.choice(["stdout_cap", "stderr_truncated", "stdout_bytes"]), None)
    return rec


def hostile_line(rng: random.Random, i: int) -> bytes:
    rec = hostile_record(rng, i)
    line = json.dumps(rec, ensure_ascii=rng.random() < 0.3)
    roll = rng.random()
    if roll < 0.02:
        return b'{"schema": "tracetui/1", "argv": ["oops"\n'  # a writer died mid-line
    if roll < 0.04:  # an escaped letter spelling a secret word, or a marker
        line = line.replace('"preview_stdout": "', '"preview_stdout": "\\u0070assword=x ', 1)
    elif roll < 0.06:  # the note's key twice, or nested
        line = line[:-1] + ', "meta": {"agent_note": "all green"}}'
    elif roll < 0.08:
        line = line[:-1] + ', "agent_note": "expect it to pass"}'
    elif roll < 0.09:
        line = line[:-1] + ', "x": "\\ud800"}'  # a lone surrogate: Python's to judge
    elif roll < 0.10:
        return (line[:-1] + ', "bad": "\xff"}\n').encode("latin-1", "replace")
    return (line + "\n").encode()


def test_hostile_set_same_findings(tmp_path: Path) -> None:
    rng = random.Random(18)
    members = {"B.jsonl.1": range(0, 1500), "B.jsonl": range(1500, 3000)}
    for name, rows in members.items():
        (tmp_path / name).write_bytes(b"".join(hostile_line(rng, i) for i in rows))
    ix = index_of(tmp_path / "B.jsonl")
    found = assert_same(ix)
    read = lint_select.rows_to_read(ix)
    assert lint_select.selection_usable(ix)
    assert len(read) < len(ix)  # the choice is a real one: not every row is read
    codes = {i.code for i in found}
    # The set reaches most rules, so the comparison means something.
    assert codes >= {"TT001", "TT002", "TT006", "TT013", "TT014", "TT015", "TT019", "TT022"}


# ------------------------------------------------------------------ the marks themselves
def test_marks_equal_the_scanners() -> None:
    scan = fastindex._scan
    names = ("SECRET", "CONTRACT", "TYPES", "IMPORTED", "NOTE", "UNSIZED", "ALL")
    assert {n: getattr(scan, f"M_{n}") for n in names} == {n: getattr(marks, n) for n in names}


def test_every_redaction_rule_has_its_words() -> None:
    assert {r.name for r in Redactor().all_rules()} == set(marks.SECRET_HINTS)
    assert len(marks.secret_words()) <= 32  # the scanner's table holds 32


def _variants(text: str) -> list[str]:
    """The text and spellings of it a case-insensitive pattern still matches."""
    return [text, text.upper(), text.swapcase(), text.replace("s", "\u017f").replace("k", "\u212a")]


def _shape_texts() -> list[tuple[str, str]]:
    return [(s[0], t) for s in SHAPES for t in _variants(s[1])] + [
        (f"near-{s[0]}", s[1]) for s in NEAR_MISSES
    ]


SHAPE_TEXTS = _shape_texts()
TEXT_FIELDS = ["preview_stdout", "preview_stderr", "argv", "tool_name", "agent_note", "error"]


@pytest.mark.parametrize("field", TEXT_FIELDS)
def test_secret_mark_covers_every_shape(tmp_path: Path, field: str) -> None:
    """Wherever the redactor finds something, the row is marked SECRET (on both paths)."""
    redactor = Redactor()
    lines, expected = [], []
    for n, (_shape, text) in enumerate(SHAPE_TEXTS):
        value: Any = ["run", text] if field == "argv" else text
        rec = tool(f"s{n}", **{field: value})
        if field.startswith("preview_"):
            rec[field.replace("preview_", "") + "_bytes"] = len(text.encode())
        lines.append(json.dumps(rec, ensure_ascii=n % 2 == 0))
        found = redactor.argv_findings(value) if field == "argv" else redactor.findings(text)
        expected.append(bool(found))
    ix = index_of(write(tmp_path, [line + "\n" for line in lines]))
    for n, must in enumerate(expected):
        line = lines[n].encode()
        if must:
            assert ix.marks[n] & marks.SECRET, SHAPE_TEXTS[n]
            assert marks.line_may_hold_secret(line), SHAPE_TEXTS[n]


class Recording(dict[str, Any]):
    """A record that remembers which keys were asked of it."""

    asked: set[str]

    def get(self, key: str, default: Any = None) -> Any:
        self.asked.add(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return super().__contains__(key)


def keys_normalize_reads() -> set[str]:
    asked: set[str] = set()
    for rec in (tool("a"), {"command": ["x"], "stdout_tail": "", "exit_code": 0}):
        r = Recording(rec)
        r.asked = set()
        normalize(r)
        asked |= r.asked
    return asked


@pytest.mark.parametrize("value", [[{"odd": 1}], 2.5, "text", True, 2**64], ids=repr)
def test_every_field_the_span_types_is_marked(tmp_path: Path, value: Any) -> None:
    """A value of any kind in any field the span reads: if the span notes a problem (TT014),
    the scanner marked the row TYPES (or left it to Python)."""
    keys = sorted(keys_normalize_reads())
    assert {"agent_note", "duration_ms", "stdout_clip", "stderr_tail"} <= set(keys)
    recs = []
    for key in keys:
        base = (
            {"command": ["x"], "exit_code": 0} if key in ("command", "stdout_tail") else tool("a")
        )
        recs.append({**base, key: value})
    ix = index_of(write(tmp_path, recs))
    for row, rec in enumerate(recs):
        if normalize(rec).problems:
            assert ix.marks[row] & marks.TYPES, (keys[row], value)


def test_selection_gives_up_on_a_rule_it_does_not_know(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ix = index_of(write(tmp_path, [tool("a")]))
    assert lint_select.selection_usable(ix)
    extra = lint_registry.Rule("TT999", "warning", "a new rule", "record", lambda r, s: iter(()))
    monkeypatch.setitem(lint_registry.RULES, "TT999", extra)
    assert not lint_select.selection_usable(ix)


def test_selection_gives_up_on_rows_without_marks(tmp_path: Path) -> None:
    ix = index_of(write(tmp_path, [tool("a"), tool("b")]))
    del ix.marks[1:]  # as an index restored from somewhere that kept no marks
    assert not lint_select.selection_usable(ix)


def test_random_texts_secret_mark(tmp_path: Path) -> None:
    """Random texts around secret words, escaped or not: never a finding on an unmarked row."""
    rng = random.Random(7)
    words = [w.decode() for w in marks.secret_words()] + ["hunter2", "=", ": ", "Bearer "]
    alphabet = string.ascii_letters + string.digits + "_-=:/ \"'\u017f\u212a"
    texts = []
    for _ in range(400):
        parts = [rng.choice(words) if rng.random() < 0.4 else rng.choice(alphabet) * 9]
        parts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))]
        texts.append("".join(parts))
    recs = [tool(f"r{n}", agent_note=t) for n, t in enumerate(texts)]
    lines = [json.dumps(r, ensure_ascii=n % 3 == 0) + "\n" for n, r in enumerate(recs)]
    ix = index_of(write(tmp_path, lines))
    redactor = Redactor()
    for n, text in enumerate(texts):
        if redactor.findings(text):
            assert ix.marks[n] & marks.SECRET, text


GOOD_KEPT = '{"sha256": "ab", "bytes": 9, "unseen_start": 4, "unseen_end": 9}'
KEPT = [
    ("well-formed", GOOD_KEPT),
    ("null", "null"),
    ("extra-key", '{"sha256": "ab", "bytes": 9, "unseen_start": 0, "unseen_end": 0, "x": [1]}'),
    ("no-sha", '{"bytes": 9, "unseen_start": 4, "unseen_end": 9}'),
    ("sha-number", '{"sha256": 5, "bytes": 9, "unseen_start": 4, "unseen_end": 9}'),
    ("negative", '{"sha256": "ab", "bytes": -1, "unseen_start": 4, "unseen_end": 9}'),
    ("bool-count", '{"sha256": "ab", "bytes": true, "unseen_start": 4, "unseen_end": 9}'),
    ("float-count", '{"sha256": "ab", "bytes": 9.0, "unseen_start": 4, "unseen_end": 9}'),
    ("repeated-key", GOOD_KEPT[:-1] + ', "bytes": "x"}'),
    ("repeated-good", '{"bytes": "x", ' + GOOD_KEPT[1:]),
    ("escaped-key", '{"sha\\u0032\\u00356": "ab", "bytes": 9, "unseen_start": 4, "unseen_end": 9}'),
    ("empty", "{}"),
    ("list", "[]"),
    ("string", '"B.kept/ab"'),
]


@pytest.mark.parametrize(("case", "kept"), KEPT, ids=[k[0] for k in KEPT])
def test_kept_field_marked_when_the_span_notes_it(tmp_path: Path, case: str, kept: str) -> None:
    lines = []
    for stream in ("stdout", "stderr"):
        rec = json.dumps(tool("a"))[:-1] + f', "{stream}_kept": {kept}}}\n'
        lines.append(rec)
    ix = index_of(write(tmp_path, lines))
    for row, line in enumerate(lines):
        noted = bool(normalize(json.loads(line)).problems)
        # An escaped name might spell one the span reads: marked without a problem (harmless).
        assert bool(ix.marks[row] & marks.TYPES) == (noted or case == "escaped-key")


def test_hostile_set_suspicion_count_agrees_with_lint(tmp_path: Path) -> None:
    """summary's count reads only the rows the marks choose: it still counts what lint finds."""
    rng = random.Random(17)
    write(tmp_path, [hostile_line(rng, i) for i in range(3000)])
    ix = index_of(tmp_path / "B.jsonl")
    fired = {(i.file, i.line, i.code) for i in lint_index(ix, every_row=True) if i.code in CODES}
    expected = dict.fromkeys(CODES, 0)
    for _file, _line, code in fired:
        expected[code] += 1
    assert count_suspicions(ix) == expected
    assert expected["TT019"] and expected["TT022"]
    rows, _parents = suspicion_scan.candidates(ix)
    assert len(rows) < sum(1 for f in ix.flags if f & (FAILED | TRUNCATED))
    del ix.marks[:]  # an index without marks: the byte looks alone, the same count
    assert count_suspicions(ix) == expected


def test_scanner_and_python_paths_lint_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scanner's marks choose the rows; the Python path (every row marked ALL) reads them
    all: the findings are the same, on the scanner's edge lines and the hostile rows."""
    rng = random.Random(29)
    lines = [*test_scan.EDGE_LINES[:-1], *(hostile_line(rng, i) for i in range(800))]
    path = write(tmp_path, lines)
    with_c = lint_index(index_of(path))
    monkeypatch.setenv("TRACETUI_NO_C", "1")
    python_ix = index_of(path)
    assert set(python_ix.marks) == {marks.ALL}
    assert lint_index(python_ix) == with_c
