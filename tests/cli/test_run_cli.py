"""`tracetui run` through the real entry point (`python -m tracetui run …`)."""

from __future__ import annotations

import subprocess
import sys

import orjson
import pytest

from tracetui.model.markers import marker_line

PY = sys.executable


def tracetui(tmp_path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [PY, "-m", "tracetui", *args], cwd=tmp_path, capture_output=True, timeout=60
    )


def records(path) -> list[dict]:
    return [orjson.loads(x) for x in path.read_bytes().splitlines()]


def test_prints_the_capped_view_and_records_it(tmp_path):
    p = tracetui(
        tmp_path,
        "run",
        "--cap",
        "5",
        "--note",
        "counts",
        "--",
        PY,
        "-c",
        "import sys; print('0123456789'); sys.stderr.write('err'); sys.exit(4)",
    )
    assert p.returncode == 4
    assert p.stdout == ("01234" + marker_line(6)).encode()
    assert p.stderr == b"err"
    (rec,) = records(tmp_path / "feedback_record.jsonl")
    assert rec["preview_stdout"] == p.stdout.decode()
    assert (rec["exit_code"], rec["agent_note"], rec["stdout_bytes"]) == (4, "counts", 11)
    assert rec["cwd"] == str(tmp_path)


@pytest.mark.parametrize(
    ("clip", "expected"),
    [
        ("head", "abc" + marker_line(4)),
        ("tail", marker_line(4) + "ef\n"),
        ("head_tail", "ab" + marker_line(4) + "\n"),
    ],
    ids=["head", "tail", "head_tail"],
)
def test_clip_modes(tmp_path, clip, expected):
    p = tracetui(
        tmp_path, "run", "--cap", "3", "--clip", clip, "--log", "r.jsonl", "--", "echo", "abcdef"
    )
    assert p.stdout.decode() == expected
    assert records(tmp_path / "r.jsonl")[0]["stdout_clip"] == clip


def test_options_reach_the_record(tmp_path):
    p = tracetui(
        tmp_path,
        "run",
        "--log",
        "r.jsonl",
        "--parent",
        "abc",
        "--tool-name",
        "greeter",
        "--redact",
        r"tok-\d+",
        "--",
        "echo",
        "tok-123",
    )
    assert (p.returncode, p.stdout) == (0, b"[REDACTED]\n")
    rec = records(tmp_path / "r.jsonl")[0]
    assert (rec["parent_command_id"], rec["tool_name"], rec["redacted"]) == ("abc", "greeter", 1)


def test_rotation_options(tmp_path):
    for _ in range(3):
        tracetui(
            tmp_path, "run", "--log", "r.jsonl", "--max-bytes", "100", "--keep", "1", "--", "true"
        )
    names = ["r.jsonl", "r.jsonl.1", "r.jsonl.kept", "r.jsonl.lock"]  # .kept: the kept outputs
    assert sorted(p.name for p in tmp_path.iterdir()) == names


@pytest.mark.parametrize(
    ("argv", "status", "message"),
    [
        (
            ["no-such-command-tracetui"],
            127,
            b"tracetui run: command not found: no-such-command-tracetui\n",
        ),
        (["sh", "-c", "kill -TERM $$"], 143, b""),
    ],
    ids=["not-found", "signal"],
)
def test_failures(tmp_path, argv, status, message):
    p = tracetui(tmp_path, "run", "--", *argv)
    assert (p.returncode, p.stderr) == (status, message)


def test_timeout(tmp_path):
    p = tracetui(tmp_path, "run", "--timeout", "0.3", "--", "sleep", "30")
    assert (p.returncode, p.stderr) == (143, b"tracetui run: timed out after 0.3s\n")
    assert records(tmp_path / "feedback_record.jsonl")[0]["error"] == "timed out after 0.3s"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], b"no command given"),
        (["--"], b"no command given"),
        (["--cap", "x", "--", "true"], b"not a whole number"),
        (["--clip", "middle", "--", "true"], b"invalid choice"),
        (["--timeout", "-1", "--", "true"], b"must be > 0"),
        (["--max-bytes", "0", "--", "true"], b"--max-bytes must be > 0"),
        (["--redact", "(", "--", "true"], b"bad --redact pattern"),
        (["--log", "no/such/dir/r.jsonl", "--", "true"], b"cannot write the log"),
    ],
    ids=[
        "nothing",
        "dashes-only",
        "bad-cap",
        "bad-clip",
        "bad-timeout",
        "bad-max-bytes",
        "bad-regex",
        "bad-log",
    ],
)
def test_usage_errors_exit_2_without_traceback(tmp_path, args, message):
    p = tracetui(tmp_path, "run", *args)
    assert p.returncode == 2
    assert message in p.stderr
    assert b"Traceback" not in p.stderr
    assert not (tmp_path / "feedback_record.jsonl").exists()


def test_argv_without_dashes(tmp_path):
    p = tracetui(tmp_path, "run", "echo", "-n", "hi")
    assert (p.returncode, p.stdout) == (0, b"hi")
    assert records(tmp_path / "feedback_record.jsonl")[0]["argv"] == ["echo", "-n", "hi"]
