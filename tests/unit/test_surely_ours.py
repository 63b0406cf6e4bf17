"""``runset.surely_ours``: a file whose first line is one of tracetui's records is opened
without importing the importers, and only when they would have said the same.

For every such file the sniffers claim nothing and the one-line refusal judges nothing, so
skipping them changes no outcome; every other file still goes through them. Checked on every
fixture and sample run, and on a table of near misses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from records import encode_line, tool

from tracetui import importers
from tracetui.store.runset import surely_ours

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(
    p
    for base in (ROOT / "sample_runs", ROOT / "tests" / "data")
    for p in base.rglob("*")
    if p.is_file() and not p.is_symlink() and p.stat().st_size < 64 << 20
)
OURS = encode_line(tool("a"))


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_never_says_ours_where_the_importers_would_not(path: Path) -> None:
    if surely_ours(str(path)):
        assert importers.sniff(str(path)) is None
        assert importers.not_a_trace(str(path)) is None


def test_the_samples_are_ours() -> None:
    assert surely_ours(str(ROOT / "sample_runs" / "flaky-billing" / "feedback_record.jsonl"))


CASES = [
    ("compact", OURS + OURS, True),
    ("spaced", (json.dumps(json.loads(OURS)) + "\n").encode(), True),
    ("one-line-no-newline", OURS.rstrip(b"\n"), False),
    ("bom", b"\xef\xbb\xbf" + OURS, False),
    ("leading-space", b" " + OURS, False),
    ("schema-later", b'{"argv": ["x"], "schema": "tracetui/1"}\n', False),
    ("schema-twice-last-other", b'{"schema":"tracetui/1","schema":"import/claude-code"}\n', False),
    ("not-json", b'{"schema":"tracetui/1",\n', False),
    ("empty", b"", False),
    ("claude-code", b'{"type":"user","message":{"content":"hi"},"sessionId":"s"}\n', False),
]


@pytest.mark.parametrize(("data", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_cases(tmp_path: Path, data: bytes, want: bool) -> None:
    path = tmp_path / "B.jsonl"
    path.write_bytes(data)
    assert surely_ours(str(path)) is want
    if want:
        assert importers.sniff(str(path)) is None
        assert importers.not_a_trace(str(path)) is None


def test_not_a_regular_file(tmp_path: Path) -> None:
    import os

    fifo = tmp_path / "B.jsonl"
    os.mkfifo(fifo)
    assert surely_ours(str(fifo)) is False  # never blocks on the open
    assert surely_ours(str(tmp_path / "missing.jsonl")) is False
    gz = tmp_path / "B.jsonl.1.gz"
    gz.write_bytes(OURS)
    assert surely_ours(str(gz)) is False


@pytest.mark.parametrize("given", ["feedback_record.jsonl", "."], ids=["file", "folder"])
def test_a_summary_of_our_run_imports_no_importer(given: str) -> None:
    code = (
        "import sys; from tracetui import cli; cli.main(['summary', '--json', sys.argv[1]]);"
        " print(sorted(m for m in sys.modules if m.startswith('tracetui.importers')))"
    )
    run = ROOT / "sample_runs" / "flaky-billing" / given
    out = subprocess.run(
        [sys.executable, "-c", code, str(run)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"


EVENT_NAMES = [
    ("event-00000-abcdefgh.json", True),
    ("event-123456-0a1B-c2D3e4.json", True),
    ("event-00001-short.json", False),
    ("event-1-abcdefgh.json", False),
    ("event-00000-abcdefgh.jsonl", False),
    ("event-00000-abcdefgh.json\n", False),  # "$" in the pattern took a name ending in a newline
    ("events.json", False),
    ("feedback_record.jsonl", False),
]


@pytest.mark.parametrize(("name", "event"), EVENT_NAMES, ids=[n for n, _e in EVENT_NAMES])
def test_the_folder_check_before_the_importers_misses_no_event_file(
    tmp_path: Path, name: str, event: bool
) -> None:
    """runset looks for an OpenHands ``events/`` folder only when a name could be an event
    file's; every name the importer takes for one passes that first look."""
    from tracetui.importers import openhands_v1
    from tracetui.store import runset

    assert bool(openhands_v1.EVENT_FILE.match(name)) is event
    (tmp_path / name).write_bytes(b"{}\n")
    looked: list[list[str]] = []
    real = importers.sniff_folder

    def spy(folder: str, names: list[str]) -> tuple[str, list[str]] | None:
        looked.append(names)
        return real(folder, names)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(importers, "sniff_folder", spy)
        runset._whole_folder_run(str(tmp_path), [name])
    if event:
        assert looked == [[name]]
    elif not (name.startswith("event-") and name.endswith(".json")):
        assert looked == []
