"""`tracetui rerun` through the installed entry point: confirmation, JSON facts, errors, exit codes."""

from __future__ import annotations

import json
import os
import pty
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from records import tool

PY = sys.executable
REPO = Path(__file__).resolve().parents[2]
SKIP = shutil.ignore_patterns("*.reruns.jsonl*", "*.lock")
SCRIPT = Path(PY).parent / "tracetui"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [PY, "-m", "tracetui"]
BILLING = "cmd_3f76c0c60c4e"


def tracetui(
    *args: str, cwd: Path | None = None, stdin: int | None = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENTRY, "rerun", *args], cwd=cwd, capture_output=True, text=True, stdin=stdin, timeout=60
    )


@pytest.fixture
def billing(tmp_path: Path) -> Path:
    folder = tmp_path / "flaky-billing"
    # Leave out re-runs someone made of the sample in the working tree (they are gitignored).
    shutil.copytree(REPO / "sample_runs" / "flaky-billing", folder, ignore=SKIP)
    return folder


def test_json_facts_for_the_flaky_billing_run(billing: Path) -> None:
    p = tracetui(str(billing), "--id", BILLING[:8], "--yes", "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    for key, want in {
        "command_id": BILLING,
        "exit_code_then": 1,
        "exit_code_now": 1,
        "stdout_bytes_then": 24206,
        "stdout_bytes_now": 24206,
        "stdout_verdict": "identical",
        "stdout_unseen_bytes": 24206 - 8192,
        "stdout_unseen_start": 8192,
        "stdout_window": "head",
        "stderr_bytes_then": 0,
        "stderr_bytes_now": 0,
        "stderr_verdict": "identical",
        "stderr_unseen_bytes": 0,
        "diff": "",
        "stdout_diff": "",
        "cwd": str(billing),
        "error_now": None,
        "argv": ["python3", "tools/billing_suite.py", "tests/billing", "-q"],
        "normalize": ["ansi", "timestamps", "durations", "hex", "tmp"],
    }.items():
        assert doc[key] == want, key
    assert (
        "AssertionError: assert Decimal('33.33') == Decimal('33.34')"
        in doc["unseen_excerpt"]["stdout"]
    )
    assert doc["sidecar"] == str(billing / "feedback_record.jsonl.reruns.jsonl")
    # Announced on stderr, with the warning that the command comes from a trace file.
    assert "comes from a trace file" in p.stderr
    assert "argv  python3 tools/billing_suite.py tests/billing -q" in p.stderr
    assert f"cwd   {billing}" in p.stderr
    # The re-run's record draws no finding: lint reports only the run's own incident warnings
    # (tests/unit/test_samples.py lists them), none in the sidecar, and no error.
    lint = subprocess.run([*ENTRY, "lint", str(billing)], capture_output=True, text=True)
    assert lint.returncode == 0
    assert "reruns" not in lint.stdout
    assert lint.stdout.splitlines()[-1] == "issues=5"


def test_text_output_names_verdicts_and_the_never_seen_part(billing: Path) -> None:
    p = tracetui(str(billing), "--id", BILLING, "-y", "--excerpt", "1024", "--no-sidecar")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "exit      then 1   now 1"
    assert lines[1].startswith(
        "stdout    then       24,206 B   now       24,206 B   identical   (head window;"
    )
    assert "stdout: never seen by the agent: 16,014 B from byte 8,192" in lines
    assert any("AssertionError: assert Decimal('33.33')" in x for x in lines)
    assert not (billing / "feedback_record.jsonl.reruns.jsonl").exists()


def test_a_changed_output_and_the_normalisation_switch(tmp_path: Path) -> None:
    (tmp_path / "clock.py").write_text(
        "print('now 2026-11-01T00:00:0' + open('n.txt').read() + 'Z')\n"
    )
    (tmp_path / "n.txt").write_text("2")
    rec = tool(
        "c1",
        argv=[PY, "clock.py"],
        stdout_bytes=26,
        stdout_sha256="0" * 64,
        preview_stdout="now 2026-11-01T00:00:01Z\n",
    )
    (tmp_path / "run.jsonl").write_text(json.dumps(rec) + "\n")
    doc = json.loads(tracetui(str(tmp_path / "run.jsonl"), "--id", "c1", "--yes", "--json").stdout)
    assert (doc["stdout_verdict"], doc["stdout_diff"], doc["stdout_window_changed_raw"]) == (
        "differs",
        "",
        True,
    )
    p = tracetui(
        str(tmp_path / "run.jsonl"), "--id", "c1", "--yes", "--json", "--no-normalize", "timestamps"
    )
    doc = json.loads(p.stdout)
    assert doc["normalize"] == ["ansi", "durations", "hex", "tmp"]
    assert "-now 2026-11-01T00:00:01Z\n+now 2026-11-01T00:00:02Z" in doc["stdout_diff"]


USAGE = [
    ("unknown-id", ["--id", "nope", "--yes"], "tracetui: rerun: no span with id 'nope'"),
    (
        "ambiguous-prefix",
        ["--id", "cmd_", "--yes"],
        "tracetui: rerun: id 'cmd_' is ambiguous: ",
    ),
    (
        "bad-rule",
        ["--id", BILLING, "--yes", "--no-normalize", "colour"],
        "tracetui: rerun: unknown normalisation rule 'colour'",
    ),
    (
        "bad-timeout",
        ["--id", BILLING, "--yes", "--timeout", "0"],
        "tracetui: rerun: --timeout must be > 0",
    ),
    (
        "no-terminal-no-yes",
        ["--id", BILLING],
        "tracetui: rerun: refusing to run a command from a trace without confirmation; no terminal to ask on: pass --yes",
    ),
]


@pytest.mark.parametrize(("name", "args", "message"), USAGE, ids=[c[0] for c in USAGE])
def test_usage_errors_exit_2_and_run_nothing(
    billing: Path, name: str, args: list[str], message: str
) -> None:
    p = tracetui(str(billing), *args)
    assert p.returncode == 2
    assert message in p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    assert not (billing / "feedback_record.jsonl.reruns.jsonl").exists()


@pytest.mark.parametrize(
    ("answer", "code"), [("n", 2), ("", 2), ("y", 0)], ids=["no", "default-no", "yes"]
)
def test_asks_on_a_terminal(billing: Path, answer: str, code: int) -> None:
    master, slave = pty.openpty()
    try:
        os.write(master, (answer + "\n").encode())
        p = tracetui(str(billing), "--id", BILLING, "--no-sidecar", stdin=slave)
    finally:
        os.close(slave)
        os.close(master)
    assert p.returncode == code, p.stderr
    assert "Run it? [y/N] " in p.stderr
    assert ("exit      then 1   now 1" in p.stdout) is (code == 0)


def test_missing_program_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "run.jsonl").write_text(
        json.dumps(tool("m1", argv=["no-such-program-tracetui"])) + "\n"
    )
    p = tracetui(str(tmp_path), "--id", "m1", "--yes")
    assert p.returncode == 1
    assert "tracetui: re-run failed: command not found: no-such-program-tracetui" in p.stderr
    assert "error     command not found: no-such-program-tracetui" in p.stdout
    assert "Traceback" not in p.stderr


def test_escape_sequences_from_the_trace_never_reach_the_terminal(tmp_path: Path) -> None:
    evil = "\x1b]52;c;aGk=\x07\x1b]0;pwned\x07"
    (tmp_path / "run.jsonl").write_text(
        json.dumps(
            tool("e1", argv=[PY, "-c", f"print({evil + 'new'!r})"], preview_stdout=evil + "old\n")
        )
        + "\n"
    )
    p = tracetui(str(tmp_path), "--id", "e1", "--yes", "--no-normalize", "ansi")
    assert p.returncode == 0, p.stderr
    assert "\x1b" not in p.stdout and "\x1b" not in p.stderr and "\x07" not in p.stdout
    assert "-␛]52;c;aGk=␇␛]0;pwned␇old" in p.stdout.splitlines()
    assert "+␛]52;c;aGk=␇␛]0;pwned␇new" in p.stdout.splitlines()
    p = tracetui(
        str(tmp_path), "--id", "e1", "--yes", "--json", "--no-normalize", "ansi", "--no-sidecar"
    )
    assert not any(ch in p.stdout for ch in "\x1b\x07\x9b") and "\\u001b]52" in p.stdout
    assert json.loads(p.stdout)["stdout_diff"].endswith("+" + evil + "new\n ")


def test_a_non_shell_tool_from_another_agent_is_refused(tmp_path: Path) -> None:
    rec = tool(
        "c1",
        tool_name="Read\x1b]0;x\x07",
        argv=["Read", "notes.txt"],
        rerunnable=False,
        source_format="claude-code",
    )
    (tmp_path / "run.jsonl").write_text(json.dumps(rec) + "\n")
    p = tracetui(str(tmp_path), "--id", "c1", "--yes")
    assert p.returncode == 2
    assert p.stderr == (
        "tracetui: rerun: span 'c1' is a Read␛]0;x␇ call imported from claude-code, "
        "not a shell command: it cannot be re-run (rerunnable: false)\n"
    )
    assert p.stdout == "" and not (tmp_path / "run.jsonl.reruns.jsonl").exists()


# ------------------------------------------------------------------ limits, signals, bad argv
SLEEPER = (
    "import os, sys, time\nopen('child.pid', 'w').write(str(os.getpid()))\n"
    "sys.stdout.write('x' * 100000)\nsys.stdout.flush()\ntime.sleep(60)\n"
)


def wait_for(path: Path, proc: subprocess.Popen[str]) -> None:
    """Until ``path`` has content (a bounded count of polls; nothing asserted about time)."""
    for _ in range(600):
        if path.exists() and path.read_text():
            return
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"{path.name} never appeared; tracetui exited {proc.poll()}")


@pytest.mark.parametrize(
    "signo", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["term", "hup", "int"]
)
def test_a_signal_kills_the_child_and_leaves_no_spool(tmp_path: Path, signo: int) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    (tmp_path / "run.jsonl").write_text(json.dumps(tool("s1", argv=[PY, "sleeper.py"])) + "\n")
    proc = subprocess.Popen(
        [*ENTRY, "rerun", str(tmp_path), "--id", "s1", "--yes", "--no-sidecar"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    wait_for(tmp_path / "child.pid", proc)
    child = int((tmp_path / "child.pid").read_text())
    proc.send_signal(signo)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signo, err
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)
    assert os.listdir(temp) == []
    assert "Traceback" not in err
    if signo != signal.SIGINT:
        name = signal.Signals(signo).name
        assert err.endswith(f"tracetui: rerun: stopped by {name}; process group killed\n")


def test_the_output_limit_stops_the_rerun(tmp_path: Path) -> None:
    (tmp_path / "run.jsonl").write_text(
        json.dumps(tool("y1", argv=["yes"], stdout_full_sha256="ab" * 32)) + "\n"
    )
    p = tracetui(str(tmp_path), "--id", "y1", "--yes", "--no-sidecar", "--max-output", "1M")
    assert p.returncode == 1
    cut = "stopped at the output limit (1,048,576 B)"
    assert p.stderr.endswith(f"tracetui: re-run failed: {cut}; process group killed\n")
    lines = p.stdout.splitlines()
    assert f"error     {cut}; process group killed" in lines
    assert f"verdict   unknown: the whole output's hash cannot be compared: {cut}" in lines
    assert lines[2] == (
        "stdout    then            3 B   now    1,048,576 B   unknown   "
        "(whole stream; 983,040 B never seen by the agent)"
    )


@pytest.mark.parametrize(
    "value", ["0", "-5", "lots", "1.5G"], ids=["zero", "negative", "word", "fraction"]
)
def test_a_bad_output_limit_is_a_usage_error(tmp_path: Path, value: str) -> None:
    (tmp_path / "run.jsonl").write_text(json.dumps(tool("e1")) + "\n")
    p = tracetui(str(tmp_path), "--id", "e1", "--yes", f"--max-output={value}")
    assert p.returncode == 2
    assert p.stderr.splitlines()[-1] == (
        "tracetui rerun: error: argument --max-output: expected a number of bytes > 0 "
        f"(like 1000000 or 4G), got '{value}'"
    )
    assert p.stdout == ""


BAD_ARGV = [
    (["echo", "a\u0000b"], "argv[1] holds a NUL character (no program can receive it)"),
    (["echo", 5, None, True, {"a": 1}], "argv[1] is a number, not a string"),
    ("echo hi; touch pwned", "its argv is a shell string, not a list of arguments"),
]


@pytest.mark.parametrize(("argv", "why"), BAD_ARGV, ids=["nul", "not-strings", "shell-string"])
def test_an_argv_that_cannot_run_is_refused_before_anything_runs(
    tmp_path: Path, argv: object, why: str
) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    (tmp_path / "run.jsonl").write_text(json.dumps(tool("n1", argv=argv)) + "\n")
    p = subprocess.run(
        [*ENTRY, "rerun", str(tmp_path), "--id", "n1", "--yes"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    assert p.returncode == 2
    assert p.stderr == f"tracetui: rerun: span 'n1' cannot be re-run: {why}\n"
    assert p.stdout == "" and os.listdir(temp) == []
    assert not (tmp_path / "run.jsonl.reruns.jsonl").exists()


def test_the_announcement_warns_of_an_inline_script_and_a_long_argv(tmp_path: Path) -> None:
    script = "true " + " ".join(f"w{i:03d}" for i in range(100)) + "; echo done"
    (tmp_path / "run.jsonl").write_text(json.dumps(tool("l1", argv=["sh", "-c", script])) + "\n")
    p = tracetui(str(tmp_path), "--id", "l1", "--yes", "--no-sidecar")
    assert p.returncode == 0, p.stderr
    shown = len(f"sh -c '{script}'")
    assert p.stderr.splitlines()[1:5] == [
        "  warning: runs a sh script given inline (-c): it can do anything sh can",
        f"  warning: a long argv ({shown:,} characters): read it to its end",
        f"  argv  sh -c '{script}'",
        f"        3 arguments · {shown:,} characters",
    ]
