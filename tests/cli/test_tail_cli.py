"""`tracetui tail`: what is printed, once each, in order; quiet exits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tracetui.cli import main
from tracetui.live import seed
from tracetui.live.follow import Follower


def rec(i: int, **extra: object) -> bytes:
    obj = {
        "schema": "tracetui/1",
        "span_type": "tool",
        "command_id": f"c{i:04d}-long-id",
        "argv": ["echo", str(i)],
        "exit_code": i % 2,
        "started_at": f"2026-11-02T09:00:0{i % 10}Z",
        "stdout_bytes": 100,
        "stdout_cap": 64,
        "stdout_truncated": True,
        "stdout_clip": "head",
        "stderr_bytes": 0,
        "stderr_cap": 64,
        "stderr_truncated": False,
        "preview_stdout": "x" * 64,
    }
    obj.update(extra)
    return (json.dumps(obj) + "\n").encode()


@pytest.fixture
def run(tmp_path: Path) -> Path:
    base = tmp_path / "run.jsonl"
    (tmp_path / "run.jsonl.1").write_bytes(b"".join(rec(i) for i in range(0, 8)))
    base.write_bytes(b"".join(rec(i) for i in range(8, 14)) + rec(14)[:20])
    return base


def ids_of(text: str) -> list[str]:
    return [line.split()[2] for line in text.splitlines()]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], [f"{i:04d}" for i in range(4, 14)]),  # the part of c0004-long-id that differs
        (["-n", "3"], ["0011", "0012", "0013"]),
        (["-n", "0"], []),
        (["--from-start"], [f"{i:04d}" for i in range(14)]),
    ],
    ids=["last-ten", "last-three", "none", "from-start"],
)
@pytest.mark.parametrize("seeded", [False, True], ids=["read", "seeded"])
def test_once_prints_what_is_there(
    run: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    expected: list[str],
    seeded: bool,
) -> None:
    """Seeded: the run's first read is build_index's (live/seed.py), as for a big run; its
    last rows are printed from the index."""
    taken: list[int] = []
    if seeded:
        monkeypatch.setattr(seed, "SEED_BYTES", 0)
        real = Follower._adopt

        def spy(self: Follower, got: seed.Seeded) -> None:
            real(self, got)
            taken.append(self.seeded)

        monkeypatch.setattr(Follower, "_adopt", spy)
    assert main(["tail", "--once", *args, str(run)]) == 0
    out = capsys.readouterr().out
    assert ids_of(out) == expected  # the unfinished 15th record is not shown, nor reported bad
    assert taken == ([14] if seeded and args != ["--from-start"] else [])


def test_text_line_columns(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tail", "--once", "-n", "1", str(run)]) == 0
    assert (
        capsys.readouterr().out
        == "2026-11-02 09:00:03  0013          exit 1      100 B ✂  echo 13\n"
    )


def test_json_lines(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tail", "--once", "--json", "-n", "2", str(run)]) == 0
    objs = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [o["command_id"] for o in objs] == ["c0012-long-id", "c0013-long-id"]
    assert objs[1] == {
        "command_id": "c0013-long-id",
        "parent_command_id": None,
        "dialect": "tracetui/1",
        "tool_name": None,
        "argv": ["echo", "13"],
        "cwd": None,
        "started_at": "2026-11-02T09:00:03Z",
        "duration_ms": None,
        "exit_code": 1,
        "exit_unknown": False,
        "error": None,
        "agent_note": None,
        "truncated": True,
        "hidden_bytes": 36,
        "stdout_bytes": 100,
        "stdout_cap": 64,
        "stdout_truncated": True,
        "stdout_clip": "head",
        "stderr_bytes": 0,
        "stderr_cap": 64,
        "stderr_truncated": False,
        "stderr_clip": None,
        "file": str(run),
        "line": 6,
    }


@pytest.mark.parametrize(
    ("argv", "shown"),
    [
        (["printf", "\x1b]52;c;aGk=\x07"], "printf '␛]52;c;aGk=␇'"),
        (["echo", "\x1b[2J\x9b"], "echo '␛[2J\\x9b'"),
        (["a\nb"], "'a⏎b'"),
    ],
    ids=["osc52", "clear-screen-and-c1", "newline"],
)
def test_escape_sequences_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], shown: str
) -> None:
    base = tmp_path / "run.jsonl"
    base.write_bytes(rec(1, argv=argv, command_id="\x1b]0;t\x07"))
    assert main(["tail", "--once", str(base)]) == 0
    out = capsys.readouterr().out
    assert out.endswith(f"  {shown}\n")
    assert "\x1b" not in out and "\x9b" not in out and "\x07" not in out
    assert main(["tail", "--once", "--json", str(base)]) == 0
    raw = capsys.readouterr().out
    assert "\x1b" not in raw and "\x9b" not in raw and json.loads(raw)["argv"] == argv


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope.jsonl"], "nope.jsonl: no such file or directory"),
        (["-n", "-1", "x"], "-n must be 0 or more"),
    ],
    ids=["missing-path", "negative-n"],
)
def test_usage_errors_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    os.chdir(tmp_path)
    assert main(["tail", "--once", *args]) == 2
    assert message in capsys.readouterr().err


def _spawn(args: list[str]) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.Popen(
        [sys.executable, "-m", "tracetui", "tail", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_follows_across_rotation_and_exits_quietly_on_ctrl_c(run: Path) -> None:
    proc = _spawn(["-n", "1", str(run)])
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().split()[2] == "0013"
        with open(run, "ab") as fh:
            fh.write(rec(14)[20:])  # the unfinished record completes
        assert proc.stdout.readline().split()[2] == "0014"
        os.rename(run.parent / "run.jsonl.1", run.parent / "run.jsonl.2")
        os.rename(run, run.parent / "run.jsonl.1")
        run.write_bytes(rec(15))
        assert proc.stdout.readline().split()[2] == "0015"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0
        assert proc.stderr is not None and proc.stderr.read() == ""
    finally:
        proc.kill()


def test_closed_pipe_exits_quietly(run: Path) -> None:
    proc = _spawn(["--from-start", str(run)])
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()  # the reader goes away, like `| head -1`
    with open(run, "ab") as fh:
        fh.write(rec(14)[20:] + b"".join(rec(i) for i in range(15, 2000)))
    assert proc.wait(timeout=20) == 0
    assert proc.stderr is not None and proc.stderr.read() == ""


def test_new_run_in_a_followed_directory_is_followed(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_bytes(rec(1))
    proc = _spawn([str(tmp_path)])
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().split()[2] == "g-id"  # one id in the run: its last 4
        (tmp_path / "b.jsonl").write_bytes(rec(2))
        line = proc.stdout.readline().split()
        assert (line[0], line[3]) == (f"{tmp_path.name}/b.jsonl", "g-id")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
        proc.kill()
