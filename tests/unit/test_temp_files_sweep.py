"""A foreign trace's temp JSONL left by a `kill -9` is named for its process and swept next start.

The importing process is a real subprocess killed by SIGKILL mid-import: its converted copy must
be in this user's private temp folder, named for its pid (before, a bare ``tracetui-import-XXXX``
in the shared temp folder, kept for ever), and the next `tracetui summary` removes it, leaving
everything that is not provably a dead process's own file: a live pid's, a link, another user's,
another pid namespace's, a folder, a name of another shape. Bounded waits only.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tracetui.store import temp_files

PY = sys.executable
REPO = Path(__file__).resolve().parents[2]
CODEX = REPO / "tests" / "data" / "agents" / "codex_exec.jsonl"
SCRIPT = Path(PY).parent / "tracetui"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [PY, "-m", "tracetui"]
# Converts the whole trace, says so, then hangs inside the import: the moment to kill it.
IMPORTER = f"""
import sys, time
from tracetui import importers
from tracetui.store.build import build_index
from tracetui.store.runset import open_paths

real = importers.convert_lines  # what the index's import reads records from

def stuck(path, fmt):
    yield from real(path, fmt)
    open(sys.argv[1], "w").close()
    time.sleep(120)

importers.convert_lines = stuck
build_index(open_paths([{str(CODEX)!r}])[0])
"""


def _env(tmp_path: Path) -> dict[str, str]:
    temp = tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    env = dict(os.environ, TMPDIR=str(temp), XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.pop("TRACETUI_DEBUG", None)
    return env


def _killed_mid_import(tmp_path: Path, env: dict[str, str]) -> int:
    """Run the importer, SIGKILL it once the conversion is done; its (reaped) pid."""
    ready = tmp_path / "ready"
    proc = subprocess.Popen([PY, "-c", IMPORTER, str(ready)], env=env)
    try:
        for _ in range(1200):
            if ready.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert ready.exists(), "the importer never reached its conversion"
        proc.send_signal(signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    return proc.pid


def _ns() -> int:
    return os.stat("/proc/self/ns/pid").st_ino


@pytest.mark.skipif(not Path("/proc/self/ns/pid").exists(), reason="needs /proc")
def test_a_killed_import_leaves_a_named_file_the_next_start_sweeps(tmp_path: Path) -> None:
    env = _env(tmp_path)
    dead = _killed_mid_import(tmp_path, env)
    folder = tmp_path / "tmp" / f"tracetui-{os.getuid()}"
    [left] = sorted(folder.iterdir())
    assert left.name.startswith(f"import-{_ns()}-{dead}-") and left.name.endswith(".jsonl")
    assert (folder.stat().st_mode & 0o777, left.stat().st_mode & 0o777) == (0o700, 0o600)
    assert [p.name for p in (tmp_path / "tmp").iterdir()] == [folder.name]

    victim = tmp_path / "victim"
    victim.write_text("keep me\n")
    kept = {
        "live-pid": f"import-{_ns()}-{os.getpid()}-abc.jsonl",
        "other-namespace": f"import-{_ns() + 1}-{dead}-abc.jsonl",
        "other-shape": f"tracetui-import-{dead}.jsonl",
        "link": f"import-{_ns()}-{dead}-link.jsonl",
        "folder": f"import-{_ns()}-{dead}-dir.jsonl",
    }
    for what, name in kept.items():
        if what == "link":
            (folder / name).symlink_to(victim)
        elif what == "folder":
            (folder / name).mkdir()
        else:
            (folder / name).write_text("x\n")
    if os.getuid() == 0:  # only root can make a file of another user here
        kept["other-user"] = f"import-{_ns()}-{dead}-other.jsonl"
        (folder / kept["other-user"]).write_text("x\n")
        os.chown(folder / kept["other-user"], 4242, 4242)
    stale = f"import-{_ns()}-{dead}-second.jsonl"
    (folder / stale).write_text("x\n")

    p = subprocess.run(
        [*ENTRY, "summary", str(CODEX)], env=env, capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in folder.iterdir()) == sorted(kept.values())
    assert victim.read_text() == "keep me\n"


@pytest.mark.parametrize("planted", ["link", "others-mode", "file"])
def test_a_folder_that_is_not_ours_is_never_swept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, planted: str
) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr("tempfile.tempdir", None)  # gettempdir() reads TMPDIR again
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    stale = f"import-{_ns()}-999999999-abc.jsonl"  # above any pid_max: a pid that is gone
    (elsewhere / stale).write_text("x\n")
    path = temp / f"tracetui-{os.getuid()}"
    if planted == "link":
        path.symlink_to(elsewhere)
    elif planted == "others-mode":
        path.mkdir(mode=0o700)
        path.chmod(0o777)
        (path / stale).write_text("x\n")
    else:
        path.write_text("not a folder\n")
    assert temp_files.private_folder() is None
    assert temp_files.sweep_stale() == []
    fd, made = temp_files.make_temp("import", ".jsonl")
    os.close(fd)
    try:
        assert os.path.dirname(made) == str(temp)  # the shared temp folder, as before
        assert os.path.basename(made).startswith("tracetui-import-")
    finally:
        os.unlink(made)
    assert (elsewhere / stale).exists()
    if planted == "others-mode":
        assert (path / stale).exists()


def test_a_dead_process_file_is_swept_in_our_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr("tempfile.tempdir", None)
    folder = temp_files.private_folder()
    assert folder == str(tmp_path / f"tracetui-{os.getuid()}")
    stale = f"import-{temp_files._pid_namespace()}-999999999-abc.jsonl"
    Path(folder, stale).write_text("x\n")
    fd, mine = temp_files.make_temp("import", ".jsonl")
    os.close(fd)
    try:
        assert temp_files.sweep_stale() == [stale]
        assert os.listdir(folder) == [os.path.basename(mine)]  # ours: this process lives
    finally:
        os.unlink(mine)
