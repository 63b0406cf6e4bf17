"""Issue 13: no byte from a trace or a file name reaches the terminal raw, in any command's output.

Every command runs through the real entry point (``python -m tracetui`` in a subprocess) on a run
whose file name, ids, argv and notes carry an OSC 0 title, an OSC 52 clipboard write, a CSI 2J
screen clear, an 8-bit C1 CSI (U+009B), a right-to-left override (U+202E) and a zero-width space.
Each output is checked character by character (no control, format or separator character other
than the newline), and a representative line is compared exactly with its escaped form.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import unicodedata
import zipfile
from pathlib import Path

import pytest
from records import tool

HOSTILE = "\x1b]0;pwned\x07\x1b]52;c;aGk=\x07\x1b[2J\x9b2J\u202e\u200b"
SHOWN = "␛]0;pwned␇␛]52;c;aGk=␇␛[2J\\x9b2J\\u202e\\u200b"
"""HOSTILE as text output shows it."""
IN_JSON = "\\u001b]0;pwned\\u0007\\u001b]52;c;aGk=\\u0007\\u001b[2J\\u009b2J\\u202e\\u200b"
"""HOSTILE as JSON output spells it."""
BASE = f"B{HOSTILE}.jsonl"
BASE_SHOWN = f"B{SHOWN}.jsonl"


def tracetui(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "tracetui", *args], capture_output=True)


def raw_characters(data: bytes) -> list[str]:
    """Every character of ``data`` a terminal could act on or that hides text (newline allowed).

    Judged by Unicode category, independently of the neutraliser's own list: controls (Cc),
    format characters (Cf: bidi, zero-width, tags), line and paragraph separators (Zl, Zp).
    """
    text = data.decode("utf-8")  # strict: an undecodable byte fails here too
    bad = {
        f"U+{ord(ch):04X}"
        for ch in text
        if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")
    }
    return sorted(bad)


def assert_inert(p: subprocess.CompletedProcess[bytes]) -> None:
    assert raw_characters(p.stdout) == []
    assert raw_characters(p.stderr) == []


@pytest.fixture
def hostile_run(tmp_path: Path) -> Path:
    """A run folder: ``B<HOSTILE>.jsonl`` plus ``.1`` and ``.1.gz`` (both: a run note names them)."""
    root = tmp_path / "run"
    root.mkdir()
    records = [
        tool(f"root{HOSTILE}", argv=["echo", HOSTILE], exit_code=1, agent_note=f"note {HOSTILE}"),
        tool("child", parent_command_id=f"root{HOSTILE}", exit_code=1, argv=["echo", HOSTILE]),
    ]
    (root / BASE).write_text("".join(json.dumps(r) + "\n" for r in records))
    old = (json.dumps(tool("old")) + "\n").encode()
    (root / f"{BASE}.1").write_bytes(old)
    (root / f"{BASE}.1.gz").write_bytes(gzip.compress(old))
    return root


def note_line(root: Path) -> str:
    """The run note every command prints to stderr for ``hostile_run``, neutralised."""
    member = f"{BASE_SHOWN}.1"
    return (
        f"tracetui: run/{BASE_SHOWN}: both {member} and {member}.gz exist; "
        f"reading {member}, ignoring {member}.gz"
    )


def test_summary_text(hostile_run: Path) -> None:
    p = tracetui("summary", str(hostile_run))
    assert p.returncode == 0
    assert_inert(p)
    lines = p.stdout.decode().splitlines()
    assert f"chain root (root{SHOWN}): 2 attempts, final exit 1" in lines  # displayed, whole
    assert (
        f"latest failure  exit 1  echo '{SHOWN}'  ({hostile_run}/{BASE_SHOWN}:2)  id chil" in lines
    )  # the file name of the latest failure, neutralised
    assert p.stderr.decode().splitlines() == [note_line(hostile_run)]


def test_summary_json(hostile_run: Path) -> None:
    p = tracetui("summary", str(hostile_run), "--json")
    assert p.returncode == 0
    assert_inert(p)
    text = p.stdout.decode()
    assert f'      "root": "root{IN_JSON}",' in text.splitlines()
    doc = json.loads(text)  # still the same data
    assert doc["chains"][0]["root"] == f"root{HOSTILE}"
    assert doc["latest_failure"]["file"] == str(hostile_run / BASE)
    assert p.stderr.decode().splitlines() == [note_line(hostile_run)]


def test_lint_text(hostile_run: Path) -> None:
    # Both spans claim ok_preview with exit 1 (TT006): findings on a hostile file name.
    p = tracetui("lint", str(hostile_run))
    assert p.returncode == 1
    assert_inert(p)
    assert p.stdout.decode().splitlines() == [
        f"{hostile_run}/{BASE_SHOWN}:1: TT006 ok_preview true with exit 1",
        f"{hostile_run}/{BASE_SHOWN}:2: TT006 ok_preview true with exit 1",
        "issues=2",
    ]


def test_lint_json(hostile_run: Path) -> None:
    p = tracetui("lint", str(hostile_run), "--format", "json")
    assert p.returncode == 1
    assert_inert(p)
    text = p.stdout.decode()
    assert f'      "file": "{hostile_run}/B{IN_JSON}.jsonl",' in text.splitlines()
    assert json.loads(text)["issues"][0]["file"] == str(hostile_run / BASE)


def test_export_json_to_stdout(hostile_run: Path) -> None:
    p = tracetui("export", str(hostile_run), "--otlp-json", "-")
    assert p.returncode == 0
    assert_inert(p)
    doc = json.loads(p.stdout)
    names = [
        a["value"]["stringValue"]
        for rs in doc["resourceSpans"]
        for s in rs["scopeSpans"][0]["spans"]
        for a in s["attributes"]
        if a["key"] == "gen_ai.tool.call.id"
    ]
    assert f"root{HOSTILE}" in names  # the data survives; only its spelling is inert
    assert f'"root{IN_JSON}"'.encode() in p.stdout


def test_report_markdown(hostile_run: Path) -> None:
    p = tracetui("report", str(hostile_run), "--id", "child")
    assert p.returncode == 0
    assert_inert(p)
    lines = p.stdout.decode().splitlines()
    assert lines[0] == f"# Postmortem: `echo`, 2 attempts (chain `root{SHOWN}`)"
    assert f"- **agent note**: `note {SHOWN}`" in lines
    assert f"- **argv**: `echo '{SHOWN}'`" in lines
    assert f"- **recorded at**: `{hostile_run}/{BASE_SHOWN}:2`" in lines


def test_report_keeps_urls_and_markup_as_code(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    note = "see https://evil.example/x and www.evil.example <b>bold</b> **x** [a](http://b)"
    rec = tool("a", agent_note=note, error=None, started_at="https://t.example/")
    (root / "B.jsonl").write_text(json.dumps(rec) + "\n")
    p = tracetui("report", str(root), "--id", "a")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.decode().splitlines()
    assert f"- **agent note**: `{note}`" in lines  # in a code span: no autolink, no HTML
    assert "- **started**: `https://t.example/`, **duration**: 12 ms" in lines


def test_usage_error_names_a_hostile_path(tmp_path: Path) -> None:
    missing = tmp_path / f"gone{HOSTILE}"
    p = tracetui("summary", str(missing))
    assert p.returncode == 2
    assert_inert(p)
    assert p.stderr.decode() == f"tracetui: {tmp_path}/gone{SHOWN}: no such file or directory\n"


def test_tail_text_and_json(hostile_run: Path) -> None:
    p = tracetui("tail", str(hostile_run), "--once")
    assert p.returncode == 0
    assert_inert(p)
    j = tracetui("tail", str(hostile_run), "--once", "--json")
    assert j.returncode == 0
    assert_inert(j)
    assert f'"command_id":"root{IN_JSON}"'.encode() in j.stdout


def test_import_problem_quotes_a_tool_use_id(tmp_path: Path) -> None:
    lines = [
        {
            "type": "user",
            "sessionId": "s",
            "uuid": "u1",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": f"t{HOSTILE}[/]"}],
            },
        },
        {
            "type": "assistant",
            "sessionId": "s",
            "uuid": "u2",
            "message": {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}],
            },
        },
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    p = tracetui("summary", str(path))
    assert p.returncode == 0
    assert_inert(p)
    assert p.stderr.decode().splitlines() == [
        f"tracetui: {tmp_path.name}/session.jsonl: claude-code import: 1 tool call(s) imported; 1 problem(s): "
        f"line 1: result for a call not in the file (t{SHOWN}[/])"
    ]


def test_import_problem_quotes_an_eval_member_name(tmp_path: Path) -> None:
    path = tmp_path / "run.eval"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("header.json", json.dumps({"eval": {"task": "t"}, "version": 2}))
        z.writestr(f"samples/bad{HOSTILE}.json", "not json")
    p = tracetui("summary", str(path))
    assert p.returncode == 0
    assert_inert(p)
    assert p.stderr.decode().splitlines() == [
        f"tracetui: {tmp_path.name}/run.eval: inspect-ai import: nothing imported; 1 problem(s): "
        f"samples/bad{SHOWN}.json: unreadable (JSONDecodeError), skipped"
    ]
