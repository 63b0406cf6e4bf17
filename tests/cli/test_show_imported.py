"""`tracetui show` on imported traces, through the real entry point: the bytes another agent kept
(Claude Code's persisted output, OpenHands V1's saved output, Codex's aggregated_output), byte
for byte, with the stderr line saying they were kept by the agent and not verified; exit 1 and
one line when the named file is missing or is not the output it claims to be."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

PY = sys.executable
AGENTS = Path(__file__).resolve().parents[1] / "data" / "agents"
SESSION = "5f0c1e2a-0000-4000-8000-00000000000c"
CALL = "toolu_01show"
FULL = "".join(f"collected item {i:04d} ✓\n" for i in range(2500)) + "FAILED: 1 of 2500\n"
STATED = f"{len(FULL) / 1024:.1f}KB"
PREVIEW = FULL[:2000][: FULL[:2000].rfind("\n")]


def tracetui(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([PY, "-m", "tracetui", *args], cwd=cwd, capture_output=True, timeout=60)


def claude_session(folder: Path, saved: str | None) -> tuple[Path, Path]:
    """A one-call session persisted to <session>/tool-results/<id>.txt (``saved`` its text)."""
    target = folder / SESSION / "tool-results" / f"{CALL}.txt"
    target.parent.mkdir(parents=True)
    if saved is not None:
        target.write_text(saved, encoding="utf-8")
    text = (
        f"<persisted-output>\nOutput too large ({STATED}). Full output saved to: {target}\n\n"
        f"Preview (first 2KB):\n{PREVIEW}\n...\n</persisted-output>"
    )
    call = {"type": "tool_use", "id": CALL, "name": "Bash", "input": {"command": "pytest"}}
    result = {"type": "tool_result", "tool_use_id": CALL, "content": text, "is_error": False}
    lines = [
        {"type": "assistant", "uuid": "a1", "sessionId": SESSION, "message": {"id": "m1"}},
        {"type": "user", "uuid": "u1", "sessionId": SESSION, "message": {"content": [result]}},
    ]
    lines[0]["message"] = {"id": "m1", "role": "assistant", "content": [call]}
    trace = folder / f"{SESSION}.jsonl"
    trace.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return trace, target


def test_show_unseen_prints_the_persisted_output_past_the_preview(tmp_path: Path) -> None:
    trace, target = claude_session(tmp_path, FULL)
    p = tracetui(tmp_path, "show", trace.name, "--id", CALL, "--unseen")
    assert p.returncode == 0
    assert p.stdout == FULL.encode()[len(PREVIEW.encode()) :]
    assert p.stderr.decode() == (
        f"tracetui: show: kept by the agent in {target}, not verified (no hash recorded); "
        f"checked: the preview the agent saw is its start, its size is the {STATED} stated\n"
    )
    whole = tracetui(tmp_path, "show", trace.name, "--id", CALL)
    assert whole.stdout == FULL.encode()


@pytest.mark.parametrize(
    ("saved", "ending"),
    [
        (None, "the agent kept it in PATH, which is not there (the trace came from elsewhere?)"),
        (
            "collected nothing\n" + FULL,
            "PATH does not begin (and end) with the preview the agent saw: not that call's "
            "output (changed, or another file)",
        ),
    ],
    ids=["missing", "not-the-output"],
)
def test_show_exits_1_with_one_line_when_the_named_file_cannot_be_used(
    tmp_path: Path, saved: str | None, ending: str
) -> None:
    trace, target = claude_session(tmp_path, saved)
    p = tracetui(tmp_path, "show", trace.name, "--id", CALL, "--unseen")
    assert (p.returncode, p.stdout) == (1, b"")
    # "show": the id as the viewer shows it (store/ids.py shortens toolu_01show).
    assert p.stderr.decode() == (
        f"tracetui: show: stdout of show not shown: {ending.replace('PATH', str(target))}\n"
    )


def test_show_unseen_prints_the_middle_codex_cut_from_its_aggregated_output(
    tmp_path: Path,
) -> None:
    rollout = next(AGENTS.glob("rollout-*.jsonl"))
    end = next(
        e["payload"]
        for e in map(json.loads, rollout.read_text(encoding="utf-8").splitlines())
        if e["payload"].get("type") == "exec_command_end" and e["payload"]["call_id"] == "call_1"
    )
    full, seen = end["aggregated_output"].encode(), end["formatted_output"]
    head, tail = seen.split("…")[0].encode(), seen.split("…")[-1].encode()
    p = tracetui(tmp_path, "show", str(rollout), "--id", "call_1", "--unseen")
    assert p.returncode == 0
    assert p.stdout == full[len(head) : len(full) - len(tail)]
    assert p.stderr.decode() == (
        "tracetui: show: kept in the codex trace itself (the agent's full output beside the "
        "cut one), not verified by a hash; the preview the agent saw matches its ends\n"
    )


def test_show_unseen_prints_what_openhands_saved_and_cut_from_the_middle(tmp_path: Path) -> None:
    head = "".join(f"step {i:03d}\n" for i in range(30))
    middle = "".join(f"warning {i:05d}\n" for i in range(3000)) + "error: linker failed\n"
    tail = "".join(f"done {i:02d}\n" for i in range(5))
    full = head + middle + tail
    saved = (
        tmp_path
        / "observations"
        / (f"terminal_output_{hashlib.sha256(full.encode()).hexdigest()[:8]}.txt")
    )
    saved.parent.mkdir()
    saved.write_text(full, encoding="utf-8")
    note = (
        "<response clipped><NOTE>Due to the max output limit, only part of the full response "
        f"has been shown to you. The complete output has been saved to {saved} - you can use "
        "other tools to view the full content (truncated part starts around line 31).</NOTE>"
    )
    observation = {
        "kind": "TerminalObservation",
        "content": [{"type": "text", "text": head + note + tail}],
        "command": "make",
        "exit_code": 2,
        "metadata": {"exit_code": 2, "prefix": "", "suffix": "\n[exit code 2.]"},
        "full_output_save_dir": str(saved.parent),
    }
    events = [
        {
            "kind": "ActionEvent",
            "id": "a1",
            "tool_name": "terminal",
            "tool_call_id": "call_oh",
            "action": {"kind": "TerminalAction", "command": "make"},
        },
        {"kind": "ObservationEvent", "id": "o1", "action_id": "a1", "observation": observation},
    ]
    (tmp_path / "events.json").write_text(json.dumps(events), encoding="utf-8")
    p = tracetui(tmp_path, "show", "events.json", "--id", "call_oh", "--unseen")
    assert (p.returncode, p.stdout) == (0, middle.encode())
    assert p.stderr.decode() == (
        f"tracetui: show: kept by the agent in {saved}, not verified (no hash recorded); "
        "checked: the preview the agent saw is its start and end, its name holds its sha256 "
        "prefix\n"
    )
