"""`tracetui tail` on other agents' sessions: each call printed once, when it completes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from foreign_lines import cc_call, cc_prompt, cc_result, cx_completed, cx_started, line, wrapped

from tracetui.cli import main

AGENTS = Path(__file__).resolve().parents[1] / "data" / "agents"


@pytest.mark.parametrize(
    ("name", "ids"),
    [
        # toolu_06 never got its result: --once ends it as a whole conversion does.
        ("claude_session.jsonl", [f"toolu_{n:02d}" for n in range(1, 7)]),
        ("codex_exec.jsonl", ["item_0", "item_1", "item_2"]),
        ("swe_agent.traj", [f"step-{n}" for n in range(1, 7)]),
    ],
    ids=["claude-code", "codex-exec", "swe-agent-document"],
)
def test_once_prints_the_completed_calls(
    capsys: pytest.CaptureFixture[str], name: str, ids: list[str]
) -> None:
    assert main(["tail", "--once", "--json", "--from-start", str(AGENTS / name)]) == 0
    captured = capsys.readouterr()
    objs = [json.loads(text) for text in captured.out.splitlines()]
    assert [str(o["command_id"]) for o in objs] == ids
    assert all(o["file"] == str(AGENTS / name) for o in objs)
    assert "another agent's trace" not in captured.err


def test_once_ends_a_call_still_waiting_as_summary_does(capsys: pytest.CaptureFixture[str]) -> None:
    path = AGENTS / "claude_session.jsonl"
    assert main(["tail", "--once", "--json", "-n", "1", str(path)]) == 0
    (last,) = [json.loads(text) for text in capsys.readouterr().out.splitlines()]
    assert (last["command_id"], last["exit_code"], last["error"]) == ("toolu_06", None, None)


def _spawn(args: list[str]) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-m", "tracetui", "tail", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=10)
    proc.kill()


def test_a_growing_claude_session_prints_each_call_once_when_it_completes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(line(cc_prompt()))
    proc = _spawn(["--json", str(path)])
    try:
        assert proc.stdout is not None
        with open(path, "ab", buffering=0) as fh:
            fh.write(line(cc_call(1, "pytest -q", message="m1")))
            fh.write(line(cc_call(2, "ls", message="m1")))
            fh.write(line(cc_result(2, "README.md")))
            data = line(cc_result(1, "Exit code 1\nFAILED", error=True))
            fh.write(data[:40])  # half a line: nothing is read from it yet
            fh.write(data[40:])
            first = json.loads(proc.stdout.readline())
            second = json.loads(proc.stdout.readline())
            fh.write(line(cc_call(3, "make", message="m2")) + line(cc_result(3, "built")))
            third = json.loads(proc.stdout.readline())
        # Printed when complete: the first call carries the exit its (later) result gave it.
        assert (first["command_id"], first["exit_code"]) == ("toolu_01", 1)
        assert (second["command_id"], second["exit_code"]) == ("toolu_02", 0)
        assert (third["command_id"], third["exit_code"]) == ("toolu_03", 0)
    finally:
        _stop(proc)
    assert proc.returncode == 0
    assert proc.stdout is not None and proc.stdout.read() == ""  # nothing printed twice
    assert proc.stderr is not None and "Traceback" not in proc.stderr.read()


def test_a_growing_codex_stream_in_text_mode(tmp_path: Path) -> None:
    path = tmp_path / "exec.jsonl"
    path.write_bytes(line({"type": "thread.started", "thread_id": "t1"}))
    proc = _spawn([str(path)])
    try:
        assert proc.stdout is not None
        with open(path, "ab", buffering=0) as fh:
            fh.write(line(wrapped(cx_started(0, "cargo test"), 1)))
            fh.write(line(wrapped(cx_completed(0, "cargo test", "FAILED\n", 101), 5)))
            out = proc.stdout.readline()
    finally:
        _stop(proc)
    assert "exit 101" in out and "/bin/bash -lc 'cargo test'" in out
    assert proc.stdout is not None and proc.stdout.read() == ""


def test_once_on_a_cut_document_says_what_is_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tail", "--once", str(AGENTS / "swe_agent_cut.traj")]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines()[-1].startswith("tracetui: swe-agent import: not valid JSON")


def test_a_file_empty_at_the_start_is_named_at_its_first_line(tmp_path: Path) -> None:
    # `codex exec --json > out.jsonl` and tail started at once: nothing to recognise yet.
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"")
    proc = _spawn(["--json", str(path)])
    try:
        assert proc.stdout is not None
        with open(path, "ab", buffering=0) as fh:
            first = line({"type": "thread.started", "thread_id": "t1"})
            fh.write(first[:10])  # half a first line: still nothing to recognise
            fh.write(first[10:])
            fh.write(line(cx_started(0, "ls")) + line(cx_completed(0, "ls", "a\n", 0)))
            got = json.loads(proc.stdout.readline())
    finally:
        _stop(proc)
    assert (got["command_id"], got["dialect"], got["exit_code"]) == ("item_0", "codex", 0)
    assert proc.stderr is not None and proc.stderr.read() == ""  # no bad line reported


def test_a_session_converted_again_prints_only_calls_not_printed(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    first = line(cc_call(1, "ls", message="m1")) + line(cc_result(1, "a"))
    path.write_bytes(line(cc_prompt()) + first)
    proc = _spawn(["--json", str(path)])
    try:
        assert proc.stdout is not None and proc.stderr is not None
        assert json.loads(proc.stdout.readline())["command_id"] == "toolu_01"
        again = tmp_path / "again.jsonl"
        again.write_bytes(
            line(cc_prompt())
            + first
            + line(cc_call(7, "make", message="m7"))
            + line(cc_result(7, "ok"))
        )
        os.replace(again, path)  # the session file replaced: converted again from its start
        assert json.loads(proc.stdout.readline())["command_id"] == "toolu_07"
        note = proc.stderr.readline()
    finally:
        _stop(proc)
    assert note == "tracetui: session.jsonl was replaced: converting it again from its start\n"
    assert proc.stdout.read() == ""  # toolu_01 was not printed again
