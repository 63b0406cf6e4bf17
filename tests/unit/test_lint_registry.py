"""The lint rule registry: docs/lint.md matches it, the decorator guards it, and a rule added as
one decorated function is run by ``lint_index`` and listed by ``--list-rules``."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from records import tool

from tracetui.analysis.lint import RULES, lint_index
from tracetui.analysis.lint_registry import ERROR, WARNING, rule
from tracetui.model.spans import Span
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

DOC = Path(__file__).resolve().parents[2] / "docs" / "lint.md"
ROW = re.compile(r"^\| (TT\d{3}) \| (\w+) \| (.+) \|$", re.MULTILINE)


def documented() -> dict[str, tuple[str, str]]:
    """The rules table of docs/lint.md: code → (severity, description)."""
    rows = ROW.findall(DOC.read_text(encoding="utf-8"))
    table = {code: (sev, text) for code, sev, text in rows}
    assert len(table) == len(rows), "a code has two rows in docs/lint.md"
    return table


def test_docs_table_is_the_registry() -> None:
    registered = {r.code: (r.severity, r.description) for r in RULES.values()}
    assert documented() == registered


def test_docs_mention_no_unregistered_code() -> None:
    mentioned = set(re.findall(r"TT\d{3}", DOC.read_text(encoding="utf-8")))
    assert mentioned - set(RULES) == set()


@pytest.mark.parametrize("code", sorted(RULES), ids=sorted(RULES))
def test_registered_rule_is_well_formed(code: str) -> None:
    r = RULES[code]
    assert re.fullmatch(r"TT\d{3}", r.code) and r.code == code
    assert r.severity in (ERROR, WARNING)
    assert r.description and "\n" not in r.description and "|" not in r.description
    assert r.on in ("tool", "record", "bad_line", "run")


def test_only_tt001_is_a_gate() -> None:
    assert [r.code for r in RULES.values() if r.gate] == ["TT001"]


def _never(rec: dict[str, Any], span: Span) -> Iterator[str]:
    yield from ()


@pytest.mark.parametrize(
    ("code", "severity", "error"),
    [
        ("TT001", ERROR, "registered twice"),
        ("TT998", "fatal", "severity must be"),
    ],
    ids=["duplicate-code", "unknown-severity"],
)
def test_decorator_refuses(code: str, severity: str, error: str) -> None:
    before = dict(RULES)
    with pytest.raises(ValueError, match=error):
        rule(code, severity, "x")(_never)
    assert before == RULES


def test_a_new_decorated_rule_runs(make_run: Any) -> None:
    """What adding a rule takes: one decorated function. It runs, in its place, with its severity."""

    @rule("TT999", WARNING, "argv names echo")
    def names_echo(rec: dict[str, Any], span: Span) -> Iterator[str]:
        if span.argv[:1] == ("echo",):
            yield "argv[0] is echo"

    try:
        root = make_run({"B.jsonl": [tool("a", exit_code=2)]})
        issues = lint_index(build_index(open_path(str(root / "B.jsonl"))[0]))
        assert [(i.code, i.severity, i.message) for i in issues] == [
            ("TT006", ERROR, "ok_preview true with exit 2"),
            ("TT999", WARNING, "argv[0] is echo"),
        ]
    finally:
        del RULES["TT999"]


def test_list_rules_prints_the_registry_by_code() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tracetui", "lint", "--list-rules"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert out.stdout.splitlines() == [
        f"{r.code} {r.severity:7} {r.description}"
        for r in sorted(RULES.values(), key=lambda r: r.code)
    ]
    assert out.stdout.splitlines()[0] == (
        "TT001 error   a tool span lacks one of the six contract keys "
        "({s}_bytes, {s}_cap, {s}_truncated)"
    )
