"""`tracetui rerun` whose sidecar record cannot be written: one line on stderr, exit 1, never 0.

The re-run itself runs and its report is printed; only the record is lost (a full disk, a link
planted beside the trace while it ran). Before, the line was printed and the exit was 0.
"""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest
from records import tool

from tracetui import cli
from tracetui.record import rotate
from tracetui.rerun import runner

LINK = "refused, it is a symbolic link (tracetui never follows a link beside a trace)"
FULL = os.strerror(errno.ENOSPC)


def _run_folder(tmp_path: Path, argv: list[str]) -> Path:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.jsonl").write_text(json.dumps(tool("x1", argv=argv, cwd=str(folder))) + "\n")
    return folder


def _disk_full(monkeypatch: pytest.MonkeyPatch, folder: Path) -> str:
    def full(_fd: int, _data: bytes) -> int:
        raise OSError(errno.ENOSPC, FULL)

    monkeypatch.setattr(rotate, "write_all", full)  # the sidecar's one write
    return f"cannot write {folder / 'run.jsonl.reruns.jsonl'}: {FULL}"


def _planted_link(monkeypatch: pytest.MonkeyPatch, folder: Path) -> str:
    lock = folder / "run.jsonl.reruns.jsonl.lock"
    real = runner.run_spooled

    def run_and_plant(*args: Any, **kw: Any) -> runner.Captured:
        lock.symlink_to(folder / "victim")  # after the check before the run, before the write
        return real(*args, **kw)

    monkeypatch.setattr(runner, "run_spooled", run_and_plant)
    return f"{lock}: {LINK}"


CASES = [
    ("disk-full", _disk_full, ["echo", "hi"], [], "exit      then 0   now 0\n"),
    ("disk-full-json", _disk_full, ["echo", "hi"], ["--json"], '"exit_code_now": 0'),
    ("planted-lock-link", _planted_link, ["echo", "hi"], [], "exit      then 0   now 0\n"),
]


@pytest.mark.parametrize(
    ("name", "make_problem", "argv", "extra", "shown"), CASES, ids=[c[0] for c in CASES]
)
def test_a_lost_record_exits_1_with_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    make_problem: Any,
    argv: list[str],
    extra: list[str],
    shown: str,
) -> None:
    folder = _run_folder(tmp_path, argv)
    problem = make_problem(monkeypatch, folder)
    code = cli.main(["rerun", str(folder), "--id", "x1", "--yes", *extra])
    out, err = capsys.readouterr()
    assert code == 1
    assert shown in out  # the report is still printed
    assert "recorded as" not in out
    assert err.splitlines()[-1] == f"tracetui: rerun: not recorded: {problem}"
    assert err.count("not recorded") == 1 and "Traceback" not in err
    if extra == ["--json"]:
        doc = json.loads(out)
        assert (doc["sidecar"], doc["sidecar_error"]) == (None, problem)
    sidecar = folder / "run.jsonl.reruns.jsonl"
    assert not sidecar.exists() or sidecar.read_bytes() == b""


def test_a_failed_rerun_whose_record_is_lost_says_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _run_folder(tmp_path, ["/nonexistent/tracetui-no-such-program"])
    problem = _disk_full(monkeypatch, folder)
    code = cli.main(["rerun", str(folder), "--id", "x1", "--yes"])
    _out, err = capsys.readouterr()
    assert code == 1
    lines = err.splitlines()
    assert lines[-2] == f"tracetui: rerun: not recorded: {problem}"
    assert lines[-1].startswith("tracetui: re-run failed: ")


def test_a_recorded_rerun_still_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _run_folder(tmp_path, ["echo", "hi"])
    code = cli.main(["rerun", str(folder), "--id", "x1", "--yes"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "recorded as " in out and "not recorded" not in err
    assert len((folder / "run.jsonl.reruns.jsonl").read_bytes().splitlines()) == 1
