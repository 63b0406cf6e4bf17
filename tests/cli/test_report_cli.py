"""`tracetui report` through the entry point: stdout, -o FILE, unknown ids, a real re-run's sidecar."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tracetui import cli

PY = sys.executable
REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(PY).parent / "tracetui"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [PY, "-m", "tracetui"]
FIRST, SECOND, THIRD = "cmd_3f76c0c60c4e", "cmd_cf0e26285301", "cmd_a306519b8aa5"


def tracetui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENTRY, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )


@pytest.fixture
def billing(tmp_path: Path) -> Path:
    folder = tmp_path / "flaky-billing"
    # Without any sidecar a local re-run may have left beside the sample: each test makes its own.
    shutil.copytree(
        REPO / "sample_runs" / "flaky-billing",
        folder,
        ignore=shutil.ignore_patterns("*.reruns.jsonl*"),
    )
    return folder


def test_report_to_stdout(billing: Path) -> None:
    p = tracetui("report", str(billing), "--id", SECOND[:7])
    assert p.returncode == 0, p.stderr
    lines = p.stdout.split("\n")
    assert lines[0] == f"# Postmortem: `pytest`, 3 attempts (chain `{FIRST}`)"
    assert (
        "3 attempts; the last one exited 0. The agent never saw 16,014 bytes (66%) of attempt 1's stdout,"
        " where the kept output shows `E       AssertionError: assert Decimal('33.33') =="
        " Decimal('33.34')`. 2 more attempts were clipped too."
    ) in p.stdout  # the sample keeps its streams: no re-run needed to name the failure
    assert "| 1 | `3f76` | 1 | 42.3 s | 8,192 / 24,206 | 0 / 0 | 16,014 | 66% |" in lines
    assert "| 3 | `a306` | 0 | 41.4 s | 8,192 / 22,445 | 0 / 0 | 14,253 | 64% |" in lines
    assert p.stdout.count("✂──── 16,014 bytes the agent never saw ────✂") == 2
    assert p.stderr == ""


def test_report_after_a_real_rerun_names_the_hidden_failure(billing: Path) -> None:
    p = tracetui("rerun", str(billing), "--id", FIRST, "--yes", "--json")
    assert p.returncode == 0, p.stderr
    out = billing / "postmortem.md"
    p = tracetui("report", str(billing / "feedback_record.jsonl"), "--id", THIRD, "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert p.stdout == "" and p.stderr == f"tracetui: report written to {out}\n"
    text = out.read_text(encoding="utf-8")
    assert (
        "of attempt 1's stdout, where a re-run shows "
        "`E       AssertionError: assert Decimal('33.33') == Decimal('33.34')`."
    ) in text
    assert "- **stdout**: then 24,206 bytes, now 24,206 bytes; verdict **identical**" in text
    assert "**stdout the agent never saw** (bytes 8,192 to 24,206 of the re-run):" in text
    assert (
        "==================== 1 failed, 233 passed, 3 warnings in 41.87s ===================="
        in text
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--id", "nope"], "tracetui: report: no span with id 'nope'\n"),
        (["--id", "cmd_"], "tracetui: report: id 'cmd_' is ambiguous: "),
        (
            ["--id", FIRST, "-o", "/nonexistent-dir/x.md"],
            "tracetui: report: cannot write /nonexistent-dir/x.md: ",
        ),
    ],
    ids=["unknown-id", "ambiguous-prefix", "unwritable-output"],
)
def test_usage_errors_exit_2(
    billing: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # In-process (the entry point is covered above): same main, no interpreter start-up per case.
    assert cli.main(["report", str(billing), *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(message) and "Traceback" not in err


def test_missing_path_and_missing_id(tmp_path: Path) -> None:
    p = tracetui("report", str(tmp_path / "nothing.jsonl"), "--id", "x")
    assert (
        p.returncode == 2
        and p.stderr == f"tracetui: {tmp_path / 'nothing.jsonl'}: no such file or directory\n"
    )
    p = tracetui("report", str(tmp_path))
    assert p.returncode == 2 and "--id" in p.stderr
