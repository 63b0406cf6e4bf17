"""A crash never looks like success: a bug, in a batch command or in the viewer, ends as one line
on stderr naming a crash report (traceback and versions, mode 0600, no link followed) and exit 3;
a usage error stays exit 2 with no report, Ctrl-C stays 130.

Bugs are made by patching a function to raise, in a fresh interpreter that then runs the real
entry point (``tracetui.cli.main``); the viewer runs headless there, its ``run`` patched to say so.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import tracetui
from tracetui import cli, crash

FLAKY = str(Path(__file__).parents[1] / "ui" / "data" / "flaky")
PACKAGE_FILE = os.path.join(os.path.dirname(tracetui.__file__), "ui", "tracetui.tcss")
REPORT_SAYS = "the crash report is "


def run_code(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` (after a prelude) in a fresh interpreter; state and temp folders in tmp_path."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "TMPDIR": str(tmp_path / "tmp")}
    env.pop("TRACETUI_DEBUG", None)
    prelude = f"import os, sys\nfrom tracetui import cli\nFLAKY = {FLAKY!r}\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + code], capture_output=True, text=True, env=env, timeout=60
    )


def lint_raising(exc: str) -> str:
    """Code for `tracetui lint FLAKY` with the lint itself raising ``exc``."""
    return (
        "import tracetui.analysis.lint as lint\n"
        "def boom(*args, **kwargs):\n"
        f"    raise {exc}\n"
        "lint.lint_index = boom\n"
        "sys.exit(cli.main(['lint', FLAKY]))\n"
    )


def reported(out: subprocess.CompletedProcess[str], what: str) -> str:
    """The report named by the one line on stderr; checks that line and the file's safety."""
    assert out.returncode == 3, out.stderr
    [line] = out.stderr.splitlines()
    assert line.startswith(f"tracetui: {what}") and REPORT_SAYS in line, line
    path = line.split(REPORT_SAYS, 1)[1]
    st = os.lstat(path)
    assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
    return path


def test_a_bug_in_a_batch_command_is_a_crash_report(tmp_path: Path) -> None:
    out = run_code(tmp_path, lint_raising("RuntimeError('boom \\x1b]52;c;aGk=\\x07 end')"))
    path = reported(out, "internal error (RuntimeError)")
    assert os.path.dirname(path) == str(tmp_path / "state" / "tracetui")
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
    text = Path(path).read_text(encoding="utf-8")
    assert "Traceback (most recent call last)" in text and "in boom" in text
    # The message's escape sequence is made visible in the file as well.
    assert "RuntimeError: boom ␛]52;c;aGk=␇ end" in text and "\x1b" not in text
    for fact in (f"tracetui: {tracetui.__version__}", "python: ", "platform: "):
        assert fact in text
    for name in crash.DEPENDENCIES:
        assert f"\n{name}: " in text
    assert f'"lint", "{FLAKY}"]' in text


NOT_BUGS = [
    ("user-file", "PermissionError(13, 'Permission denied', '/srv/run.jsonl')", 2,
     "tracetui: /srv/run.jsonl: Permission denied\n"),
    ("disk-full", "OSError(28, 'No space left on device')", 2,
     "tracetui: No space left on device\n"),
    ("ctrl-c", "KeyboardInterrupt()", 130, ""),
]  # fmt: skip


@pytest.mark.parametrize(
    ("exc", "status", "stderr"), [c[1:] for c in NOT_BUGS], ids=[c[0] for c in NOT_BUGS]
)
def test_what_is_no_bug_writes_no_report(
    tmp_path: Path, exc: str, status: int, stderr: str
) -> None:
    out = run_code(tmp_path, lint_raising(exc))
    assert (out.returncode, out.stderr) == (status, stderr)
    assert not (tmp_path / "state").exists()


OS_BUGS = [
    ("no-file-named", "OSError(2, 'No such file or directory')"),
    ("tracetui-own-file", f"FileNotFoundError(2, 'No such file or directory', {PACKAGE_FILE!r})"),
]


@pytest.mark.parametrize("exc", [c[1] for c in OS_BUGS], ids=[c[0] for c in OS_BUGS])
def test_an_oserror_about_no_user_file_is_a_bug(tmp_path: Path, exc: str) -> None:
    reported(run_code(tmp_path, lint_raising(exc)), "internal error (")


USAGE = [
    ("argparse", "['lint', '--format', 'nope', FLAKY]"),
    ("usage-error", "['lint']"),
    ("missing-path", "['summary', '/no/such/run.jsonl', '--json']"),
    ("bad-demo-speed", "['demo', '--no-ui', '--speed=-1']"),
]


@pytest.mark.parametrize("argv", [c[1] for c in USAGE], ids=[c[0] for c in USAGE])
def test_a_usage_error_exits_2_without_a_report(tmp_path: Path, argv: str) -> None:
    out = run_code(tmp_path, f"sys.exit(cli.main({argv}))\n")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert not (tmp_path / "state").exists() and os.listdir(tmp_path / "tmp") == []


HEADLESS = (
    "from tracetui.ui.app import TraceApp\n"
    "_run = TraceApp.run\n"
    "TraceApp.run = lambda self, **kw: _run(self, headless=True, size=(100, 30))\n"
    "_mount = TraceApp.on_mount\n"
)
VIEWER_BUGS = [
    # An exception in a message handler.
    ("handler", "def on_mount(self):\n    raise ValueError('mount failed')\n", "view", "ValueError"),
    # An exception in a worker that exits the app on error (Textual's WorkerFailed, unwrapped).
    ("worker",
     "def failing_job():\n    return 1 // 0\n"
     "def on_mount(self):\n    _mount(self)\n    self.run_worker(failing_job, thread=True)\n",
     "view", "ZeroDivisionError"),
    ("demo", "def on_mount(self):\n    raise ValueError('mount failed')\n", "demo", "ValueError"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("patch", "command", "kind"), [c[1:] for c in VIEWER_BUGS], ids=[c[0] for c in VIEWER_BUGS]
)
def test_a_crash_in_the_viewer_is_a_crash_report(
    tmp_path: Path, patch: str, command: str, kind: str
) -> None:
    argv = ["view", "--no-follow", FLAKY] if command == "view" else ["demo"]
    code = f"{HEADLESS}{patch}TraceApp.on_mount = on_mount\nsys.exit(cli.main({argv!r}))\n"
    out = run_code(tmp_path, code)
    assert out.stdout == ""  # headless: nothing drawn, and no traceback printed by Textual
    path = reported(out, f"the viewer crashed ({kind})")
    text = Path(path).read_text(encoding="utf-8")
    assert f"\n{kind}: " in text and "ViewerCrashed" in text
    if "failing_job" in patch:
        assert "in failing_job" in text  # the worker's own traceback, not only Textual's wrapper


def test_a_planted_link_at_the_state_folder_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "tracetui").symlink_to(elsewhere)
    code = f"{HEADLESS}def on_mount(self):\n    raise ValueError('x')\n"
    code += "TraceApp.on_mount = on_mount\nsys.exit(cli.main(['view', FLAKY]))\n"
    path = reported(run_code(tmp_path, code), "the viewer crashed (ValueError)")
    assert os.path.dirname(path) == str(tmp_path / "tmp")  # the temp folder took it instead
    assert os.listdir(elsewhere) == []


def test_a_planted_link_at_the_report_name_is_not_followed(tmp_path: Path) -> None:
    folder = tmp_path / "state" / "tracetui"
    folder.mkdir(parents=True, mode=0o700)
    victim = tmp_path / "victim"
    # Every name a report of this process could take in the next minute is a link to `victim`.
    plant = (
        "import datetime\n"
        "now = datetime.datetime.now().astimezone()\n"
        "for s in range(60):\n"
        "    stamp = (now + datetime.timedelta(seconds=s)).strftime('%Y%m%dT%H%M%S')\n"
        f"    os.symlink({str(victim)!r}, os.path.join({str(folder)!r}, f'crash-{{stamp}}-{{os.getpid()}}.txt'))\n"
    )
    out = run_code(tmp_path, plant + lint_raising("RuntimeError('boom')"))
    path = reported(out, "internal error (RuntimeError)")
    assert os.path.dirname(path) == str(folder) and not victim.exists()
    links = [p for p in folder.iterdir() if p.is_symlink()]
    assert len(links) == 60 and Path(path) not in links


FOLDERS = [
    # (id, how the state folder is spoiled, whether the report still lands there)
    ("fine", "", True),
    ("dangling-link", "link", False),
    ("world-writable", "chmod", False),
    ("a-file", "file", False),
]


@pytest.mark.parametrize(
    ("spoil", "lands_there"), [c[1:] for c in FOLDERS], ids=[c[0] for c in FOLDERS]
)
def test_the_report_falls_back_to_the_temp_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spoil: str, lands_there: bool
) -> None:
    state, temp = tmp_path / "state", tmp_path / "tmp"
    state.mkdir()
    temp.mkdir()
    folder = state / "tracetui"
    if spoil == "link":
        folder.symlink_to(tmp_path / "nowhere")
    elif spoil == "chmod":
        folder.mkdir()
        folder.chmod(0o777)
    elif spoil == "file":
        folder.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    path = crash.write_report(ValueError("x"), ["tracetui", "lint"])
    assert os.path.dirname(path) == str(folder if lands_there else temp)
    assert os.path.basename(path).startswith("crash-" if lands_there else "tracetui-crash-")
    assert not (tmp_path / "nowhere").exists()


def test_a_relative_xdg_state_home_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", "relative/state")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert crash.state_dir() == str(tmp_path / ".local" / "state" / "tracetui")


def test_no_folder_takes_the_report_still_exits_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "state").write_text("")  # not a folder: the state folder cannot be made
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "gone"))
    monkeypatch.delenv("TRACETUI_DEBUG", raising=False)

    def broken_parser(*_: object) -> None:
        raise ValueError("a bug")

    monkeypatch.setattr(cli, "build_parser", broken_parser)
    assert cli.main(["lint", FLAKY]) == 3
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(
        "tracetui: internal error (ValueError); no crash report could be written"
    )
