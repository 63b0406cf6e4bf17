"""Through the entry point: files planted beside a trace are refused (exit 2, one line, nothing run,
the victim untouched), a user-named output is written like a shell's `>`, and a killed writer's
cut line does not swallow the next record."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from records import tool

PY = sys.executable
REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_runs" / "flaky-billing"
SCRIPT = Path(PY).parent / "tracetui"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [PY, "-m", "tracetui"]
LINK = "refused, it is a symbolic link (tracetui never follows a link beside a trace)"
FIFO = "refused, it is a FIFO, not a regular file"
VICTIM = b"alias ls='rm -rf ~'\n"


def tracetui(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*ENTRY, *args], cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL, timeout=60
    )


def last_line(data: bytes) -> str:
    return data.decode().splitlines()[-1]


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim.rc"
    path.write_bytes(VICTIM)
    return path


# ------------------------------------------------------------------ tracetui run
@pytest.mark.parametrize("name", ["B", "B.lock"])
def test_run_refuses_a_linked_log_before_running(tmp_path: Path, victim: Path, name: str) -> None:
    (tmp_path / name).symlink_to(victim)
    p = tracetui("run", "--log", "B", "--", "touch", "ran", cwd=tmp_path)
    assert p.returncode == 2
    assert p.stderr.decode() == f"tracetui: run: {tmp_path / name}: {LINK}\n"
    assert p.stdout == b""
    assert not (tmp_path / "ran").exists()
    assert victim.read_bytes() == VICTIM


def test_run_refuses_a_fifo_log_without_hanging(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "B")
    p = tracetui("run", "--log", "B", "--", "touch", "ran", cwd=tmp_path)
    assert (p.returncode, p.stderr.decode()) == (2, f"tracetui: run: {tmp_path / 'B'}: {FIFO}\n")
    assert not (tmp_path / "ran").exists()


def test_a_cut_last_line_stays_one_bad_line_and_the_next_span_is_whole(tmp_path: Path) -> None:
    run = tmp_path / "B"
    first = json.dumps(tool("c1")) + "\n"
    cut = json.dumps(tool("c2"))[:60]  # the writer was killed mid-line
    run.write_text(first + cut)
    p = tracetui("run", "--log", "B", "--tool-name", "third", "--", "echo", "hi", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    lines = run.read_text().split("\n")
    assert lines[:2] == [first.rstrip("\n"), cut] and lines[3:] == [""]
    assert json.loads(lines[2])["tool_name"] == "third"
    doc = json.loads(tracetui("summary", "--json", str(run)).stdout)
    assert doc["spans"] == 2
    assert [(b["file"], b["line"]) for b in doc["bad_lines"]] == [(str(run), 2)]


# ------------------------------------------------------------------ tracetui rerun
def _trace(folder: Path) -> Path:
    run = folder / "B"
    run.write_text(json.dumps(tool("c1", argv=["touch", "ran"], cwd=str(folder))) + "\n")
    return run


@pytest.mark.parametrize("name", ["B.reruns.jsonl", "B.reruns.jsonl.lock"])
def test_rerun_refuses_a_linked_sidecar_before_running(
    tmp_path: Path, victim: Path, name: str
) -> None:
    run = _trace(tmp_path)
    (tmp_path / name).symlink_to(victim)
    p = tracetui("rerun", str(run), "--id", "c1", "--yes")
    assert p.returncode == 2
    assert last_line(p.stderr) == f"tracetui: {tmp_path / name}: {LINK}"
    assert not (tmp_path / "ran").exists()
    assert victim.read_bytes() == VICTIM


def test_rerun_refuses_a_fifo_sidecar_without_hanging(tmp_path: Path) -> None:
    run = _trace(tmp_path)
    os.mkfifo(tmp_path / "B.reruns.jsonl")
    p = tracetui("rerun", str(run), "--id", "c1", "--yes")
    assert p.returncode == 2
    assert last_line(p.stderr) == f"tracetui: {tmp_path / 'B.reruns.jsonl'}: {FIFO}"
    assert not (tmp_path / "ran").exists()


# ------------------------------------------------------------------ user-named outputs
def test_export_to_dev_null_leaves_it_a_device() -> None:
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    p = tracetui("export", str(SAMPLE), "--otlp-json", "/dev/null")
    assert p.returncode == 0, p.stderr
    assert p.stderr.decode().endswith(" spans written to /dev/null\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not [n for n in os.listdir("/dev") if n.startswith("null.tmp")]


def test_report_to_dev_null_leaves_it_a_device() -> None:
    p = tracetui("report", str(SAMPLE), "--id", "cmd_3f76", "-o", "/dev/null")
    assert (p.returncode, p.stderr) == (0, b"tracetui: report written to /dev/null\n")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_report_dash_is_stdout() -> None:
    p = tracetui("report", str(SAMPLE), "--id", "cmd_3f76", "-o", "-")
    assert (p.returncode, p.stderr) == (0, b"")
    assert p.stdout.startswith(b"# Postmortem: `pytest`, 3 attempts")
    assert p.stdout == tracetui("report", str(SAMPLE), "--id", "cmd_3f76").stdout


@pytest.mark.parametrize("command", ["export", "report"])
def test_a_fifo_output_is_written_through(tmp_path: Path, command: str) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    args = (
        ["--otlp-json", str(fifo)] if command == "export" else ["--id", "cmd_3f76", "-o", str(fifo)]
    )
    p = tracetui(command, str(SAMPLE), *args)
    reader.join(30)
    assert p.returncode == 0, p.stderr
    assert got and got[0].startswith(
        b'{"resourceSpans"' if command == "export" else b"# Postmortem"
    )
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["out.fifo"]


@pytest.mark.parametrize("command", ["export", "report"])
def test_a_regular_output_is_replaced_and_keeps_its_mode(tmp_path: Path, command: str) -> None:
    out = tmp_path / "out"
    out.write_bytes(b"old")
    os.chmod(out, 0o600)
    args = (
        ["--otlp-json", str(out)] if command == "export" else ["--id", "cmd_3f76", "-o", str(out)]
    )
    p = tracetui(command, str(SAMPLE), *args)
    assert p.returncode == 0, p.stderr
    assert out.read_bytes().startswith(b'{"resourceSpans"' if command == "export" else b"# Post")
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    assert sorted(os.listdir(tmp_path)) == ["out"]


def test_an_output_in_a_missing_folder_is_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "nowhere" / "out.json"
    p = tracetui("export", str(SAMPLE), "--otlp-json", str(out))
    assert p.returncode == 2
    assert p.stderr.decode() == f"tracetui: export: cannot write {out}: No such file or directory\n"
