"""What another agent kept (record/kept_imported.py and agent_files.py, through find_kept): Claude
Code's persisted-output file, OpenHands V1's saved output, Codex's aggregated_output — found,
checked as far as it can be without a hash, and refused (one line) when the file a trace names
is missing, a link, a FIFO, too big, outside the session, misnamed or not the output it claims."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tracetui.commands.common import load_runs
from tracetui.record import agent_files
from tracetui.record.kept_read import KeptMismatch, NotKept, find_kept, open_verified

SESSION = "5f0c1e2a-0000-4000-8000-00000000000a"
CALL = "toolu_01big"
# Multibyte text around the preview's end: the unseen part starts on a byte, not a character.
FULL = "".join(f"test {i:04d} é ok\n" for i in range(3000)) + "AssertionError: 3 != 4\n"
ELSEWHERE = "/home/dev/.claude/projects/-home-dev-shop"


def claude_preview(full: str) -> str:
    """Claude Code's preview: the first 2,000 characters, cut at the last newline in them."""
    cut = full[:2000]
    return cut[: cut.rfind("\n")]


def claude_session(
    folder: Path, named: str, *, stated: str | None = None, preview: str | None = None
) -> Path:
    """A one-call session whose result Claude Code persisted to ``named``."""
    preview = claude_preview(FULL) if preview is None else preview
    stated = stated or f"{len(FULL) / 1024:.1f}KB"
    text = (
        f"<persisted-output>\nOutput too large ({stated}). Full output saved to: {named}\n\n"
        f"Preview (first 2KB):\n{preview}\n...\n</persisted-output>"
    )
    common = {"sessionId": SESSION, "cwd": "/home/dev/shop"}
    call = {"type": "tool_use", "id": CALL, "name": "Bash", "input": {"command": "pytest -x"}}
    result = {"type": "tool_result", "tool_use_id": CALL, "content": text, "is_error": False}
    lines = [
        {
            **common,
            "type": "assistant",
            "uuid": "a1",
            "timestamp": "2025-07-01T10:00:00.000Z",
            "message": {"id": "m1", "role": "assistant", "content": [call]},
        },
        {
            **common,
            "type": "user",
            "uuid": "u1",
            "timestamp": "2025-07-01T10:00:04.000Z",
            "message": {"role": "user", "content": [result]},
        },
    ]
    path = folder / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def results_dir(folder: Path) -> Path:
    out = folder / SESSION / "tool-results"
    out.mkdir(parents=True, exist_ok=True)
    return out


def kept_of(trace: Path, call: str, stream: str = "stdout") -> Any:
    index = load_runs([str(trace)])[0]
    for row in range(len(index)):
        span = index.span(row)
        if span is not None and span.command_id == call:
            return find_kept(index.run.base, span.raw, stream, imported=index.run.source_format)
    raise AssertionError(f"no span {call}")


def read(kept: Any, start: int, end: int) -> bytes:
    with open_verified(kept) as verified:
        return b"".join(verified.chunks(start, end))


def unseen_of(trace: Path, call: str) -> bytes:
    kept = kept_of(trace, call)
    return read(kept, kept.unseen_start, kept.unseen_end)


def test_a_persisted_output_beside_the_session_gives_the_exact_unseen_bytes(
    tmp_path: Path,
) -> None:
    (results_dir(tmp_path) / f"{CALL}.txt").write_text(FULL, encoding="utf-8")
    trace = claude_session(tmp_path, str(tmp_path / SESSION / "tool-results" / f"{CALL}.txt"))
    kept = kept_of(trace, CALL)
    data = FULL.encode()
    seen = len(claude_preview(FULL).encode())
    assert (kept.size, kept.unseen_start, kept.unseen_end) == (len(data), seen, len(data))
    assert read(kept, kept.unseen_start, kept.unseen_end) == data[seen:]
    assert read(kept, 0, kept.size) == data
    assert kept.note.startswith("kept by the agent in ")
    assert "not verified (no hash recorded)" in kept.note
    assert "the preview the agent saw is its start" in kept.note


def test_a_session_copied_from_another_machine_finds_the_file_beside_it(tmp_path: Path) -> None:
    (results_dir(tmp_path) / f"{CALL}.txt").write_text(FULL, encoding="utf-8")
    trace = claude_session(tmp_path, f"{ELSEWHERE}/{SESSION}/tool-results/{CALL}.txt")
    assert unseen_of(trace, CALL).endswith(b"AssertionError: 3 != 4\n")
    assert "(the trace names /home/dev/.claude" in kept_of(trace, CALL).note


def _link_to_passwd(target: Path) -> None:
    target.symlink_to("/etc/passwd")


def _fifo(target: Path) -> None:
    os.mkfifo(target)


def _huge(target: Path) -> None:
    with open(target, "wb") as fh:  # sparse: no disk used, and never read
        fh.truncate(agent_files.MAX_AGENT_FILE + 1)


def _nothing(_target: Path) -> None:
    return None


def _a_folder(target: Path) -> None:
    target.mkdir()


@pytest.mark.parametrize(
    ("plant", "says"),
    [
        (_nothing, "which is not there (the trace came from elsewhere?)"),
        (_link_to_passwd, "not used: it is a symbolic link"),
        (_fifo, "not used: it is a FIFO, not a regular file"),
        (_huge, "not used: 268,435,457 bytes, over the 256 MiB tracetui reads"),
        (_a_folder, "not used: it is a directory, not a regular file"),
    ],
    ids=["missing", "symlink-to-etc-passwd", "fifo", "huge", "directory"],
)
def test_a_named_file_that_cannot_be_used_is_refused_with_one_line(
    tmp_path: Path, plant: Callable[[Path], None], says: str
) -> None:
    target = results_dir(tmp_path) / f"{CALL}.txt"
    plant(target)
    trace = claude_session(tmp_path, str(target))
    with pytest.raises(NotKept) as err:
        kept_of(trace, CALL)
    assert not isinstance(err.value, KeptMismatch)
    assert says in str(err.value)
    assert "\n" not in str(err.value)


def test_a_link_swapped_in_after_it_was_located_is_not_followed(tmp_path: Path) -> None:
    target = results_dir(tmp_path) / f"{CALL}.txt"
    target.write_text(FULL, encoding="utf-8")
    kept = kept_of(claude_session(tmp_path, str(target)), CALL)
    target.unlink()
    target.symlink_to("/etc/passwd")
    with pytest.raises(NotKept, match="not used: it is a symbolic link"):
        read(kept, 0, kept.size)


@pytest.mark.parametrize(
    ("where", "name", "says"),
    [
        ("outside", f"{CALL}.txt", "outside the session's folder and the agent's home"),
        ("here", "passwd", "is not named after this call (toolu_01big.txt)"),
        ("here", "other_call.txt", "is not named after this call"),
    ],
    ids=["outside-the-session", "not-a-call-name", "another-calls-name"],
)
def test_a_file_outside_the_session_or_misnamed_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, name: str, says: str
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    session_dir = tmp_path / "project"
    session_dir.mkdir()
    folder = tmp_path / "elsewhere" if where == "outside" else results_dir(session_dir)
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(FULL, encoding="utf-8")
    trace = claude_session(session_dir, str(folder / name))
    with pytest.raises(NotKept) as err:
        kept_of(trace, CALL)
    assert says in str(err.value)


def test_a_file_named_on_another_machine_and_not_beside_the_session_is_not_there(
    tmp_path: Path,
) -> None:
    trace = claude_session(tmp_path, f"{ELSEWHERE}/{SESSION}/tool-results/{CALL}.txt")
    with pytest.raises(NotKept) as err:
        kept_of(trace, CALL)
    assert str(err.value) == (
        f"the agent kept it in {ELSEWHERE}/{SESSION}/tool-results/{CALL}.txt, which is not "
        "there (the trace came from elsewhere?)"
    )


def test_the_agents_home_is_a_place_a_named_file_may_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "claude-home"
    (home / "tool-results").mkdir(parents=True)
    (home / "tool-results" / f"{CALL}.txt").write_text(FULL, encoding="utf-8")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    session_dir = tmp_path / "project"
    session_dir.mkdir()
    trace = claude_session(session_dir, str(home / "tool-results" / f"{CALL}.txt"))
    assert unseen_of(trace, CALL) == FULL.encode()[len(claude_preview(FULL).encode()) :]


@pytest.mark.parametrize(
    ("content", "stated", "says"),
    [
        ("x" + FULL[1:], None, "does not begin (and end) with the preview the agent saw"),
        (FULL + "more\n" * 3000, None, f"is not the {len(FULL) / 1024:.1f}KB the agent stated"),
        (FULL, "9.0KB", "is not the 9.0KB the agent stated"),
    ],
    ids=["preview-not-its-start", "longer-than-stated", "stated-size-differs"],
)
def test_a_file_that_is_not_the_output_it_claims_is_reported_not_shown(
    tmp_path: Path, content: str, stated: str | None, says: str
) -> None:
    target = results_dir(tmp_path) / f"{CALL}.txt"
    target.write_text(content, encoding="utf-8")
    trace = claude_session(tmp_path, str(target), stated=stated)
    kept = kept_of(trace, CALL)
    with pytest.raises(KeptMismatch) as err:
        read(kept, 0, kept.size)
    assert says in str(err.value)


# ---------------------------------------------------------------------------- OpenHands V1
OH_HEAD = "".join(f"build step {i:04d}\n" for i in range(40))
OH_MID = "".join(f"compiling unit {i:05d}\n" for i in range(2000)) + "error[E0308]: mismatched\n"
OH_TAIL = "".join(f"linking {i:04d}\n" for i in range(10))
OH_FULL = OH_HEAD + OH_MID + OH_TAIL
OH_SUFFIX = "\n[The command completed with exit code 1.]"


def openhands_conversation(folder: Path, named: str) -> Path:
    """An events.json with one terminal call whose output OpenHands cut and saved to ``named``."""
    note = (
        "<response clipped><NOTE>Due to the max output limit, only part of the full response "
        f"has been shown to you. The complete output has been saved to {named} - you can use "
        "other tools to view the full content (truncated part starts around line 41).</NOTE>"
    )
    action = {
        "kind": "ActionEvent",
        "id": "a1",
        "timestamp": "2025-09-01T10:00:00.000000",
        "source": "agent",
        "tool_name": "terminal",
        "tool_call_id": "toolu_oh1",
        "action": {"kind": "TerminalAction", "command": "cargo build", "is_input": False},
    }
    observation = {
        "kind": "ObservationEvent",
        "id": "o1",
        "timestamp": "2025-09-01T10:00:09.000000",
        "source": "environment",
        "tool_name": "terminal",
        "tool_call_id": "toolu_oh1",
        "action_id": "a1",
        "observation": {
            "kind": "TerminalObservation",
            "content": [{"type": "text", "text": OH_HEAD + note + OH_TAIL}],
            "is_error": False,
            "command": "cargo build",
            "exit_code": 1,
            "timeout": False,
            "metadata": {"exit_code": 1, "prefix": "", "suffix": OH_SUFFIX},
            "full_output_save_dir": os.path.dirname(named),
        },
    }
    path = folder / "events.json"
    path.write_text(json.dumps([action, observation]), encoding="utf-8")
    return path


def openhands_name(content: str) -> str:
    return f"terminal_output_{hashlib.sha256(content.encode()).hexdigest()[:8]}.txt"


@pytest.mark.parametrize("named_here", [True, False], ids=["named-path", "moved-conversation"])
def test_openhands_saved_output_gives_the_middle_the_agent_never_saw(
    tmp_path: Path, named_here: bool
) -> None:
    observations = tmp_path / "observations"
    observations.mkdir()
    name = openhands_name(OH_FULL)
    (observations / name).write_text(OH_FULL, encoding="utf-8")
    named = str(observations / name) if named_here else f"/home/dev/.openhands/c1/obs/{name}"
    kept = kept_of(openhands_conversation(tmp_path, named), "toolu_oh1")
    assert read(kept, kept.unseen_start, kept.unseen_end) == OH_MID.encode()
    assert "its name holds its sha256 prefix" in kept.note
    assert "the preview the agent saw is its start and end" in kept.note


@pytest.mark.parametrize(
    ("name", "content", "error", "says"),
    [
        ("terminal_output_00000000.txt", OH_FULL, KeptMismatch, "do not hash to the sha256"),
        ("notes.txt", OH_FULL, NotKept, "is not named as OpenHands names a saved output"),
        (openhands_name(OH_FULL), OH_HEAD + OH_TAIL, KeptMismatch, "hash to the sha256 prefix"),
    ],
    ids=["hash-prefix-differs", "not-its-name", "changed-content"],
)
def test_openhands_saved_output_that_does_not_fit_is_refused(
    tmp_path: Path, name: str, content: str, error: type[NotKept], says: str
) -> None:
    observations = tmp_path / "observations"
    observations.mkdir()
    (observations / name).write_text(content, encoding="utf-8")
    with pytest.raises(error) as err:
        kept = kept_of(openhands_conversation(tmp_path, str(observations / name)), "toolu_oh1")
        read(kept, 0, kept.size)
    assert says in str(err.value)


# ---------------------------------------------------------------------------------- Codex
ROLLOUT = Path(__file__).resolve().parents[1] / "data" / "agents"


def test_codex_aggregated_output_is_the_whole_and_its_middle_is_unseen() -> None:
    trace = next(ROLLOUT.glob("rollout-*.jsonl"))
    kept = kept_of(trace, "call_1")
    events = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    end = next(
        e["payload"]
        for e in events
        if e["payload"].get("type") == "exec_command_end" and e["payload"]["call_id"] == "call_1"
    )
    full, seen = end["aggregated_output"], end["formatted_output"]
    head = seen[: seen.index("…")]
    tail = seen[seen.rindex("…") + 1 :]
    assert read(kept, 0, kept.size) == full.encode()
    unseen = read(kept, kept.unseen_start, kept.unseen_end)
    assert unseen == full.encode()[len(head.encode()) : len(full.encode()) - len(tail.encode())]
    assert "kept in the codex trace itself" in kept.note


def test_an_imported_call_shown_whole_has_nothing_unseen_and_one_without_a_copy_is_not_kept() -> (
    None
):
    trace = next(ROLLOUT.glob("rollout-*.jsonl"))
    whole = kept_of(trace, "call_2")  # never cut: its preview is all of it (test_kept_uncut.py)
    assert (whole.size, whole.unseen_start, whole.unseen_end) == (14, 14, 14)
    assert read(whole, 0, whole.size) == b" M src/lib.rs\n"
    with pytest.raises(NotKept, match="kept no separate stderr"):
        kept_of(trace, "call_1", "stderr")


def test_the_report_quotes_an_agents_kept_output_without_claiming_a_hash_check(
    tmp_path: Path,
) -> None:
    from tracetui.export.kept_unseen import kept_section

    (results_dir(tmp_path) / f"{CALL}.txt").write_text(FULL, encoding="utf-8")
    trace = claude_session(tmp_path, str(tmp_path / SESSION / "tool-results" / f"{CALL}.txt"))
    index = load_runs([str(trace)])[0]
    span = index.span(0)
    assert span is not None
    lines = kept_section(index, span, span.stream("stdout"))
    seen = len(claude_preview(FULL).encode())
    assert lines[1] == (
        f"**stdout the agent never saw, as kept** (bytes {seen:,} to {len(FULL.encode()):,} of "
        "the kept output, not verified by a hash):"
    )
    assert lines[3].startswith("`kept by the agent in ") and "not verified" in lines[3]
    assert "- `AssertionError: 3 != 4`" in lines


def test_a_rerun_diffs_against_the_agents_copy_redacted_the_same_way(tmp_path: Path) -> None:
    from tracetui.rerun.diff import BytesOutput
    from tracetui.rerun.kept_diff import full_diff

    secret = "token=ghp_" + "a1B2c3D4e5" * 4 + "\n"
    (results_dir(tmp_path) / f"{CALL}.txt").write_text(FULL + secret, encoding="utf-8")
    stated = f"{len(FULL + secret) / 1024:.1f}KB"
    trace = claude_session(
        tmp_path, str(tmp_path / SESSION / "tool-results" / f"{CALL}.txt"), stated=stated
    )
    index = load_runs([str(trace)])[0]
    span = index.span(0)
    assert span is not None
    now = (FULL.replace("AssertionError: 3 != 4", "passed") + secret).encode()
    diff = full_diff(index, span.raw, "stdout", BytesOutput(now))
    assert diff is not None and diff.compared
    assert diff.lines[0] == (
        "--- then: stdout (kept by the agent, not verified; redacted the same way)"
    )
    changed = [line for line in diff.lines[2:] if line[:1] in "+-"]
    assert changed == ["-AssertionError: 3 != 4", "+passed"]  # the secret, redacted, is equal


@pytest.mark.parametrize(
    ("stated", "total"),
    [("85.4KB", int(85.4 * 1024)), ("95.4MB", int(95.4 * 1024 * 1024)), ("1.2GB", 1288490188)],
    ids=["kb", "mb", "gb"],
)
def test_a_persisted_output_stated_in_any_unit_is_a_head_cut(stated: str, total: int) -> None:
    from tracetui.model.markers import find_marker

    preview = "p" * 1999
    text = (
        f"<persisted-output>\nOutput too large ({stated}). Full output saved to: /x/{CALL}.txt\n\n"
        f"Preview (first 2KB):\n{preview}\n...\n</persisted-output>"
    )
    marker = find_marker(text)
    assert marker is not None
    assert (marker.family, marker.clip, marker.unit) == ("claude-code", "head", "bytes")
    assert marker.count is not None
    assert marker.count == total - len(preview)  # Claude Code's "\n...\n" is not preview


def test_a_tool_copy_that_is_not_what_the_preview_was_cut_from_gives_way_to_the_file(
    tmp_path: Path,
) -> None:
    (results_dir(tmp_path) / f"{CALL}.txt").write_text(FULL, encoding="utf-8")
    trace = claude_session(tmp_path, str(tmp_path / SESSION / "tool-results" / f"{CALL}.txt"))
    lines = trace.read_text(encoding="utf-8").splitlines()
    result = json.loads(lines[1])
    result["toolUseResult"] = {
        "stdout": "raw stdout, not the text the model was shown",
        "stderr": "",
    }
    lines[1] = json.dumps(result)
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8")
    kept = kept_of(trace, CALL)
    assert kept.note.startswith("kept by the agent in ")
    assert read(kept, 0, kept.size) == FULL.encode()
