"""The program's exit without the interpreter's teardown (tracetui/quick_exit.py), through the
real entry point: the same output and status as ``main``; exit functions still run and output
written by them still arrives; a gz member's temp copy is gone; a thread still running, or a
stream that cannot be flushed, takes the interpreter's own exit, which waits for it or says
what it always said."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest
from records import encode_line, tool

from tracetui import cli, quick_exit

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "sample_runs" / "flaky-billing"


def _program(tmp_path: Path, *argv: str, before: str = "") -> subprocess.CompletedProcess[bytes]:
    """``tracetui ARGV`` as the console script runs it, with ``before`` run first."""
    code = f"import sys\n{before}\nfrom tracetui.cli import run\nsys.argv[1:] = {list(argv)!r}\nrun()\n"
    env = {**os.environ, "TMPDIR": str(tmp_path / "tmp"), "TRACETUI_NO_CACHE": "1"}
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=120)


@pytest.mark.parametrize(
    "argv",
    [
        ["summary", "--json", str(RUN)],
        ["summary", str(RUN)],
        ["lint", str(RUN)],
        ["lint", "--format", "json", str(RUN)],
        ["summary", "--json", str(RUN / "no-such-file")],
    ],
    ids=["summary-json", "summary-text", "lint", "lint-json", "usage-error"],
)
def test_same_output_and_status_as_main(
    tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    monkey = pytest.MonkeyPatch()
    monkey.setenv("TRACETUI_NO_CACHE", "1")
    try:
        code = cli.main(list(argv))
    finally:
        monkey.undo()
    got = capsys.readouterr()
    ran = _program(tmp_path, *argv)
    assert ran.returncode == code
    assert ran.stdout.decode() == got.out
    assert ran.stderr.decode() == got.err


def test_exit_functions_run_and_their_output_arrives(tmp_path: Path) -> None:
    before = "import atexit\natexit.register(lambda: print('exit functions ran'))"
    ran = _program(tmp_path, "summary", "--json", str(RUN), before=before)
    assert ran.returncode == 0
    assert ran.stdout.rstrip().endswith(b"exit functions ran")


def test_a_gz_members_temp_copy_is_gone(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    lines = b"".join(encode_line(tool(f"c{i}", exit_code=i % 2)) for i in range(50))
    with gzip.open(run / "B.jsonl.1.gz", "wb") as gz:
        gz.write(lines)
    (run / "B.jsonl").write_bytes(encode_line(tool("last")))
    for argv in (["summary", "--json", str(run)], ["lint", str(run)]):
        ran = _program(tmp_path, *argv)
        assert ran.returncode in (0, 1), ran.stderr
        left = [p for p in (tmp_path / "tmp").rglob("*") if p.is_file()]
        assert left == [], (argv, left)


def test_a_running_thread_is_waited_for(tmp_path: Path) -> None:
    """A thread still running at the end (none of ours is; a plugin's might be) is waited for,
    as the interpreter's exit waits for it."""
    done = tmp_path / "done"
    before = (
        "import threading, time\n"
        "def late():\n"
        "    time.sleep(0.3)\n"
        f"    open({str(done)!r}, 'w').close()\n"
        "threading.Thread(target=late).start()"
    )
    ran = _program(tmp_path, "summary", "--json", str(RUN), before=before)
    assert ran.returncode == 0
    assert done.exists()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_stream_that_cannot_be_flushed_takes_the_interpreters_exit(tmp_path: Path) -> None:
    """What an exit function prints last cannot reach a full device: the interpreter's exit
    then says so and fails, as it always did (never 0)."""
    before = "import atexit\natexit.register(lambda: print('late'))"
    code = f"import sys\n{before}\nfrom tracetui.cli import run\nsys.argv[1:] = ['lint', {str(RUN)!r}]\nrun()\n"
    with open("/dev/full", "wb") as full:
        ran = subprocess.run(
            [sys.executable, "-c", code], stdout=full, stderr=subprocess.PIPE, timeout=120
        )
    assert ran.returncode != 0


def test_not_allowed_is_the_interpreters_exit() -> None:
    """Without allow() (a viewer, a command that failed), leave() raises SystemExit."""
    saved = quick_exit._allowed
    quick_exit._allowed = False
    try:
        with pytest.raises(SystemExit) as exc:
            quick_exit.leave(5)
        assert exc.value.code == 5
    finally:
        quick_exit._allowed = saved


def test_the_console_script_is_run() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert 'tracetui = "tracetui.cli:run"' in text
    main_py = (ROOT / "tracetui" / "__main__.py").read_text()
    assert "run()" in main_py


TORN = "class Torn:\n    def __del__(self):\n        print('torn down')\nkept = Torn()"
"""An object whose finaliser says when the interpreter's teardown frees it."""


@pytest.mark.parametrize(
    ("argv", "quick"),
    [
        (["summary", "--json", str(RUN)], True),
        (["lint", str(RUN)], True),
        (["summary", "--json", str(RUN / "no-such-file")], False),  # failed: not allowed
        (["show", str(RUN)], False),  # a command that does not allow it
    ],
    ids=["summary", "lint", "usage-error", "other-command"],
)
def test_the_teardown_is_left_out_only_where_allowed(
    tmp_path: Path, argv: list[str], quick: bool
) -> None:
    ran = _program(tmp_path, *argv, before=TORN)
    assert (b"torn down" not in ran.stdout) is quick, ran.stdout[-200:]
