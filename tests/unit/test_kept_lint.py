"""``lint``'s findings kept with a run's files (``tracetui/store/cache_lint.py``): a warm lint
prints exactly the cold one's bytes in every format, with the same status, without indexing;
a changed run is linted afresh; a kept file that is spoilt, planted or too big is never used."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from cache_runs import append_lines, lines, make_set, private_cache, rewrite_same_size, rotate
from cache_runs import write as write_old
from records import encode_line, tool

from tracetui import cli
from tracetui.analysis.lint import RULES, WARNING, Issue
from tracetui.analysis.lint_registry import ERROR
from tracetui.commands import common
from tracetui.model.text import UNSAFE, is_plain_line, neutralize_line
from tracetui.store import build, cache, cache_lint
from tracetui.store.index import RunIndex

AGENTS = Path(__file__).resolve().parents[1] / "data" / "agents"
FORMATS = ["text", "json", "sarif"]

Outcome = tuple[int, bytes, bytes]
"""A lint's status, stdout and stderr."""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_cache(tmp_path, monkeypatch)


def _lint(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> Outcome:
    code = cli.main(["lint", *argv])
    got = capsysbinary.readouterr()
    return code, got.out, got.err


def _cold(
    argv: list[str], capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> Outcome:
    """The lint as it is with no cache at all."""
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    try:
        return _lint(argv, capsysbinary)
    finally:
        monkeypatch.delenv("TRACETUI_NO_CACHE")


def _no_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_build(*_a: Any, **_k: Any) -> RunIndex:
        raise AssertionError("indexed again")

    monkeypatch.setattr(build, "build_index", no_build)
    monkeypatch.setattr(common, "build_index", no_build)


def warnings_set(root: Path) -> Path:
    """A run whose only findings are warnings (TT010: parents not in the set)."""
    root.mkdir(parents=True, exist_ok=True)
    base = root / "W.jsonl"
    write_old(
        base, b"".join(encode_line(tool(f"w{i}", parent_command_id="gone")) for i in range(4))
    )
    return base


def _kept(home: Path) -> Path:
    (kept,) = home.glob("*.lint")
    return kept


def test_the_registry_is_what_the_kept_findings_are_checked_against() -> None:
    """The fields, severities and code shape cache_lint spells out are the linter's own (were
    they not, every kept file would be refused and lint would only ever run cold)."""
    assert tuple(Issue("f", 1, "TT001", "m").as_dict()) == cache_lint.FIELDS
    assert (cache_lint.ERROR, cache_lint.WARNING) == (ERROR, WARNING)
    assert {r.severity for r in RULES.values()} == {ERROR, WARNING}
    assert all(cache_lint._CODE.fullmatch(code) for code in RULES)


def test_a_plain_line_is_one_neutralize_line_leaves_as_it_is() -> None:
    """is_plain_line (which both the kept messages and lint's text lines go through) agrees
    with neutralize_line on every character of the BMP, the unsafe ranges past it, and text."""
    chars = [chr(c) for c in range(0x10000)] + [chr(a) for a, _b in UNSAFE] + [chr(0xE007F)]
    texts = [*chars, "plain text", "é and a tab\t", "a\x1b[2J", "line\nnext", "😀 ok", ""]
    for text in texts:
        assert is_plain_line(text) == (neutralize_line(text) == text), repr(text)


@pytest.mark.parametrize("strict", [False, True], ids=["plain", "strict"])
@pytest.mark.parametrize("form", FORMATS)
@pytest.mark.parametrize("make", [make_set, warnings_set], ids=["errors", "warnings"])
def test_a_warm_lint_is_the_cold_one_without_indexing(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    make: Callable[[Path], Path],
    form: str,
    strict: bool,
) -> None:
    argv = ["--format", form, *(["--strict"] if strict else []), str(make(tmp_path / "run"))]
    want = _cold(argv, capsysbinary, monkeypatch)
    assert want[0] == (0 if make is warnings_set and not strict else 1)
    assert _lint(argv, capsysbinary) == want  # linted, and its findings kept
    head, _, body = _kept(home).read_bytes().partition(b"\n")
    assert set(orjson.loads(head)) == {"version", "state", "notes", "record_code"}
    assert orjson.loads(body)  # the run has findings
    _no_build(monkeypatch)
    assert _lint(argv, capsysbinary) == want


def test_a_warm_lint_reports_the_runs_notes_as_a_cold_one(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    root = tmp_path / "run"
    root.mkdir()
    write_old(root / "B.jsonl", lines(0, 4))
    write_old(root / "B.jsonl.2", lines(4, 4))  # .1 missing: a note on stderr
    argv = [str(root / "B.jsonl")]
    want = _cold(argv, capsysbinary, monkeypatch)
    assert b"rotation members missing" in want[2]
    assert _lint(argv, capsysbinary) == want
    _no_build(monkeypatch)
    assert _lint(argv, capsysbinary) == want


def test_the_kept_findings_serve_every_format(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    base = str(make_set(tmp_path / "run"))
    want = {form: _cold(["--format", form, base], capsysbinary, monkeypatch) for form in FORMATS}
    _lint([base], capsysbinary)  # kept by a text lint
    _no_build(monkeypatch)
    for form in FORMATS:
        assert _lint(["--format", form, base], capsysbinary) == want[form]


def test_two_runs_are_kept_apart_and_printed_in_the_order_named(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    a, b = str(make_set(tmp_path / "a")), str(warnings_set(tmp_path / "b"))
    orders = [[a, b], [b, a]]
    want = {
        (form, i): _cold(["--format", form, *paths], capsysbinary, monkeypatch)
        for form in FORMATS
        for i, paths in enumerate(orders)
    }
    assert _lint([a, b], capsysbinary)[0] == 1
    assert len(list(home.glob("*.lint"))) == 2
    with monkeypatch.context() as m:
        _no_build(m)
        for (form, i), outcome in want.items():
            assert _lint(["--format", form, *orders[i]], capsysbinary) == outcome
    # One run changed, the other kept: the changed one linted afresh, in its place.
    write_old(Path(b), Path(b).read_bytes() + encode_line(tool("w9", exit_code=3)))
    for i, paths in enumerate(orders):
        now = _cold(["--format", "json", *paths], capsysbinary, monkeypatch)
        assert now != want[("json", i)]
        assert _lint(["--format", "json", *paths], capsysbinary) == now


def _rerun_added(base: Path) -> None:
    write_old(Path(f"{base}.reruns.jsonl"), lines(50, 1, parent_of=3))


CHANGES = [
    ("append", append_lines),
    ("rotate", rotate),
    ("rewrite-same-size", rewrite_same_size),
    ("re-run-added", _rerun_added),
]


@pytest.mark.parametrize("change", [c[1] for c in CHANGES], ids=[c[0] for c in CHANGES])
def test_a_changed_run_is_linted_afresh(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    change: Callable[[Path], None],
) -> None:
    base = make_set(tmp_path / "run")
    argv = ["--format", "json", str(base)]
    before = _lint(argv, capsysbinary)
    assert _lint(argv, capsysbinary) == before  # from what was kept
    change(base)
    now = _cold(argv, capsysbinary, monkeypatch)
    assert _lint(argv, capsysbinary) == now
    assert _lint(argv, capsysbinary) == now  # kept again, for the files as they are now
    if change is not _rerun_added:  # new lines, or an exit changed: other findings
        assert now[1] != before[1]


# ------------------------------------------------------------------ hostile kept files
def _planted(findings: list[Any]) -> None:
    findings[0]["message"] = "planted"


def _with(field: str, value: Any) -> Callable[[list[Any]], None]:
    def spoil(findings: list[Any]) -> None:
        _planted(findings)
        findings[0][field] = value

    return spoil


def _extra_key(findings: list[Any]) -> None:
    _planted(findings)
    findings[0]["planted"] = 1


def _key_missing(findings: list[Any]) -> None:
    _planted(findings)
    del findings[0]["severity"]


def _keys_reordered(findings: list[Any]) -> None:
    _planted(findings)
    findings[0] = dict(reversed(findings[0].items()))


def _not_a_dict(findings: list[Any]) -> None:
    findings[0] = ["planted"]


SPOILS: list[tuple[str, Callable[[list[Any]], None]]] = [
    ("line-str", _with("line", "4")),
    ("line-bool", _with("line", True)),
    ("line-float", _with("line", 4.0)),
    ("line-negative", _with("line", -1)),
    ("line-past-the-index", _with("line", 2**31)),
    ("file-not-a-member", _with("file", "/etc/passwd")),
    ("file-int", _with("file", 7)),
    ("code-of-no-rule-shape", _with("code", "XX013")),
    ("code-too-long", _with("code", "TT0130")),
    ("code-list", _with("code", ["TT013"])),
    ("severity-other", _with("severity", "fatal")),
    ("message-escape", _with("message", "planted\x1b]0;owned\x07")),
    ("message-bidi", _with("message", "planted\u202e")),
    ("message-newline", _with("message", "planted\nx.jsonl:1: TT001 fake")),
    ("message-tab", _with("message", "planted\t")),
    ("message-not-str", _with("message", ["planted"])),
    ("key-extra", _extra_key),
    ("key-missing", _key_missing),
    ("keys-reordered", _keys_reordered),
    ("finding-not-a-dict", _not_a_dict),
]


def _rewrite(kept: Path, body: bytes) -> None:
    head, _, _ = kept.read_bytes().partition(b"\n")
    kept.write_bytes(head + b"\n" + body)


def _findings(kept: Path) -> list[Any]:
    findings: list[Any] = orjson.loads(kept.read_bytes().partition(b"\n")[2])
    return findings


def _ready(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], Outcome]:
    """A run linted once (its findings kept) and its cold outcome, as text."""
    argv = [str(make_set(tmp_path / "run"))]
    want = _cold(argv, capsysbinary, monkeypatch)
    assert _lint(argv, capsysbinary) == want
    return argv, want


def test_a_planted_finding_of_the_right_shape_is_what_a_warm_lint_prints(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """What the tests below rely on: the kept file is what a warm lint reads."""
    argv, want = _ready(tmp_path, capsysbinary, monkeypatch)
    kept = _kept(home)
    findings = _findings(kept)
    _planted(findings)
    _rewrite(kept, orjson.dumps(findings))
    assert b": TT" in want[1] and b"planted" in _lint(argv, capsysbinary)[1]


@pytest.mark.parametrize("spoil", [s[1] for s in SPOILS], ids=[s[0] for s in SPOILS])
def test_a_spoilt_finding_is_never_used(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    spoil: Callable[[list[Any]], None],
) -> None:
    argv, want = _ready(tmp_path, capsysbinary, monkeypatch)
    kept = _kept(home)
    findings = _findings(kept)
    spoil(findings)
    _rewrite(kept, orjson.dumps(findings))
    assert _lint(argv, capsysbinary) == want  # linted afresh, and kept again as it should be
    _no_build(monkeypatch)
    assert _lint(argv, capsysbinary) == want


@pytest.mark.parametrize(
    "body", [b"[{", b"", b"\xff\xfe", b'{"file": 1}', b"null", b"[1, 2]", b"[[]]"], ids=repr
)
def test_a_kept_file_that_is_not_a_list_of_findings_is_not_used(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    body: bytes,
) -> None:
    argv, want = _ready(tmp_path, capsysbinary, monkeypatch)
    _rewrite(_kept(home), body)
    assert _lint(argv, capsysbinary) == want


@pytest.mark.parametrize(
    "spoil",
    [_with("code", "TT999"), _with("severity", WARNING)],
    ids=["code-of-no-rule", "severity-not-the-rules"],
)
def test_sarif_checks_the_kept_findings_against_the_rules(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    spoil: Callable[[list[Any]], None],
) -> None:
    argv = ["--format", "sarif", str(make_set(tmp_path / "run"))]
    want = _cold(argv, capsysbinary, monkeypatch)
    assert _lint(argv, capsysbinary) == want
    kept = _kept(home)
    findings = _findings(kept)
    assert findings[0]["severity"] == ERROR
    spoil(findings)
    _rewrite(kept, orjson.dumps(findings))
    assert _lint(argv, capsysbinary) == want


def test_a_kept_file_past_the_cap_is_not_read(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    argv, want = _ready(tmp_path, capsysbinary, monkeypatch)
    kept = _kept(home)
    findings = _findings(kept)
    findings[0]["message"] = "planted " * 100  # past the cap the real findings fit under
    _rewrite(kept, orjson.dumps(findings))
    monkeypatch.setattr(cache_lint, "MAX_BYTES", kept.stat().st_size - 1)
    assert _lint(argv, capsysbinary) == want
    assert b"planted" not in kept.read_bytes()  # the real findings kept in its place
    with monkeypatch.context() as m:
        _no_build(m)
        assert _lint(argv, capsysbinary) == want
    monkeypatch.setattr(cache_lint, "MAX_BYTES", 10)  # nor kept past the cap
    kept.unlink()
    assert _lint(argv, capsysbinary) == want
    assert list(home.glob("*.lint")) == []


def test_a_link_planted_for_the_kept_file_is_not_followed(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    argv, want = _ready(tmp_path, capsysbinary, monkeypatch)
    kept = _kept(home)
    findings = _findings(kept)
    _planted(findings)
    elsewhere = tmp_path / "elsewhere.lint"
    elsewhere.write_bytes(kept.read_bytes().partition(b"\n")[0] + b"\n" + orjson.dumps(findings))
    kept.unlink()
    kept.symlink_to(elsewhere)
    assert _lint(argv, capsysbinary) == want
    assert b"planted" in elsewhere.read_bytes()  # not written through the link either


@pytest.mark.parametrize("how", ["flag", "env"])
def test_no_cache_neither_reads_nor_writes_the_kept_findings(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    how: str,
) -> None:
    argv, want = _ready(tmp_path, capsysbinary, monkeypatch)
    kept = _kept(home)
    findings = _findings(kept)
    _planted(findings)
    _rewrite(kept, orjson.dumps(findings))
    planted = kept.read_bytes()
    if how == "env":
        monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    try:
        assert _lint(["--no-cache", *argv] if how == "flag" else argv, capsysbinary) == want
    finally:
        cache._off = False
    assert kept.read_bytes() == planted


def test_runs_the_cache_does_not_keep_have_no_kept_findings(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """Another agent's trace (converted afresh each time) and a run under the cache's size."""
    foreign = tmp_path / "claude_session.jsonl"
    shutil.copyfile(AGENTS / "claude_session.jsonl", foreign)
    os.utime(foreign, ns=(10**18, 10**18))
    small = make_set(tmp_path / "small")
    for argv in ([str(foreign)], ["--format", "json", str(foreign)]):
        want = _cold(argv, capsysbinary, monkeypatch)
        assert b"TT023" in want[1]
        assert _lint(argv, capsysbinary) == want
        assert _lint(argv, capsysbinary) == want
    monkeypatch.setattr(cache, "MIN_RUN_BYTES", 1 << 20)
    assert _lint([str(small)], capsysbinary) == _cold([str(small)], capsysbinary, monkeypatch)
    assert list(home.glob("*.lint")) == []
