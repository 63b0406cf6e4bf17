"""A state folder that would refuse a re-run's record refuses the re-run before it runs.

The re-runs of a sample run (or of a run in a folder this user cannot write) are kept in
``$XDG_STATE_HOME/tracetui/reruns/`` (store/sidecars.py). A link, a file, or a folder others can
write there was only found when the record was appended, after the command had run: the command's
side effects happened, its record was lost and ``tracetui rerun`` exited 0. Now it is refused first,
exit 2, with one line naming the folder, and nothing runs.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tracetui.cli import main as cli_main
from tracetui.record.recorder import run_with_feedback
from tracetui.store import sidecars

PY = sys.executable


def world_writable(state: Path) -> Path:
    (state / "tracetui" / "reruns").mkdir(parents=True)
    os.chmod(state / "tracetui", 0o777)
    return state / "tracetui"


def group_writable_reruns(state: Path) -> Path:
    (state / "tracetui" / "reruns").mkdir(parents=True, mode=0o700)
    os.chmod(state / "tracetui", 0o700)
    os.chmod(state / "tracetui" / "reruns", 0o770)
    return state / "tracetui" / "reruns"


def linked(state: Path) -> Path:
    (state / "elsewhere").mkdir(parents=True)
    (state / "tracetui").symlink_to(state / "elsewhere")
    return state / "tracetui"


def a_file(state: Path) -> Path:
    state.mkdir(parents=True)
    (state / "tracetui").write_text("not a folder\n")
    return state / "tracetui"


def someone_elses(state: Path) -> Path:
    (state / "tracetui").mkdir(parents=True, mode=0o700)
    os.chown(state / "tracetui", 65534, 65534)
    return state / "tracetui"


CASES: list[tuple[str, Callable[[Path], Path], str]] = [
    ("world-writable", world_writable, "not a private folder of this user"),
    ("group-writable-reruns", group_writable_reruns, "not a private folder of this user"),
    ("a-link", linked, "not a folder"),
    ("a-file", a_file, "not a folder"),
    ("someone-elses", someone_elses, "not a private folder of this user"),
]


@pytest.mark.parametrize(("plant", "why"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_unsafe_state_folder_refuses_the_rerun_before_it_runs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    plant: Callable[[Path], Path],
    why: str,
) -> None:
    if plant is someone_elses and os.geteuid() != 0:
        pytest.skip("chown to another user needs root")
    samples = tmp_path / "sample_runs"
    samples.mkdir()
    runs = tmp_path / "runs.txt"  # the command appends a line each time it runs
    code = f"open({str(runs)!r}, 'a').write('ran\\n')"
    rec = run_with_feedback([PY, "-c", code], log=samples / "B", cwd=samples)
    assert runs.read_text() == "ran\n"
    monkeypatch.setattr(sidecars, "SAMPLES", str(samples))
    state = tmp_path / "state"
    refused = plant(state)
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    command_id = str(rec.record["command_id"])
    capsys.readouterr()
    status = cli_main(["rerun", str(samples / "B"), "--id", command_id, "--yes"])
    _out, err = capsys.readouterr()
    assert status == 2
    assert err.splitlines()[-1] == f"tracetui: {refused}: {why}"
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before  # nothing made
    assert runs.read_text() == "ran\n"  # and the command did not run again
