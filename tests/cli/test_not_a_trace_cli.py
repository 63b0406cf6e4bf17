"""Through the entry point: a JSON file that is no trace gets one line and exit 2 from every
command that opens a run, before anything else happens; tracetui's own run with a bad line
still reads as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tracetui.importers import IMPORTERS

PY = sys.executable
SCRIPT = Path(PY).parent / "tracetui"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [PY, "-m", "tracetui"]
READS = "tracetui reads " + ", ".join(i.name for i in IMPORTERS) + " and its own JSON Lines runs"
SPAN = {"schema": "tracetui/1", "span_type": "tool", "argv": ["ls"], "exit_code": 0}


def tracetui(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENTRY, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )


COMMANDS = [
    ("view", ["view"]),
    ("summary", ["summary"]),
    ("summary-json", ["summary", "--json"]),
    ("lint", ["lint"]),
    ("report", ["report", "--id", "x"]),
    ("tail", ["tail"]),
    ("tail-json", ["tail", "--json"]),
]

FILES = [
    (
        "inventory",
        json.dumps([{"sku": f"s{i}", "qty": i} for i in range(400)], indent=1),
        "a JSON array of 400 objects with keys sku, qty: no trace tracetui knows (" + READS + ")",
    ),
    (
        "openhands-of-another-version",
        "".join(json.dumps({"kind": "NewEvent", "source": "agent"}) + "\n" for _ in range(3)),
        "looks like an OpenHands trace (has 'kind') but no events tracetui knows (kinds: "
        "NewEvent); " + READS,
    ),
]


@pytest.mark.parametrize("argv", [c[1] for c in COMMANDS], ids=[c[0] for c in COMMANDS])
@pytest.mark.parametrize(("text", "line"), [f[1:] for f in FILES], ids=[f[0] for f in FILES])
def test_one_line_and_exit_2(tmp_path: Path, argv: list[str], text: str, line: str) -> None:
    (tmp_path / "data.json").write_text(text, encoding="utf-8")
    p = tracetui(*argv, "data.json", cwd=tmp_path)
    assert (p.returncode, p.stdout, p.stderr) == (2, "", f"tracetui: data.json: {line}\n")


def test_our_run_with_a_bad_line_reads_as_before(tmp_path: Path) -> None:
    (tmp_path / "B.jsonl").write_text('{"x": 1}\n' + json.dumps(SPAN) + "\n", encoding="utf-8")
    p = tracetui("summary", "--json", "B.jsonl", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    facts = json.loads(p.stdout)
    assert (facts["spans"], len(facts["bad_lines"])) == (1, 1)
