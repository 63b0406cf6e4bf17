"""Every displayed id is accepted by every ``--id``: rerun and report through the entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from records import tool

from tracetui import cli

PY = sys.executable
SCRIPT = Path(PY).parent / "tracetui"
ENTRY = [str(SCRIPT)] if SCRIPT.exists() else [PY, "-m", "tracetui"]
STAMP = "20261201T084400.123456Z-"
IDS = [STAMP + "aeac1f3b", STAMP + "1b5a45f2", STAMP + "1b5a9999"]


def tracetui(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENTRY, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )


@pytest.fixture
def run(tmp_path: Path) -> Path:
    path = tmp_path / "run.jsonl"
    recs = [tool(cid, argv=[PY, "-c", f"print({n})"]) for n, cid in enumerate(IDS)]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def test_rerun_accepts_the_last_eight_characters(run: Path) -> None:
    # The finding: the list showed `aeac1f3b` and `rerun --id aeac1f3b` said "no span with id".
    p = tracetui("rerun", str(run), "--id", "aeac1f3b", "--yes", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["command_id"] == STAMP + "aeac1f3b"


@pytest.mark.parametrize(
    ("ident", "want"),
    [
        ("aeac", IDS[0]),
        ("1b5a4", IDS[1]),
        ("1b5a9999", IDS[2]),
        (IDS[1], IDS[1]),
        ("1b5a9…", IDS[2]),
    ],
    ids=["shown-form", "longer-shown-form", "suffix", "whole-id", "clipped-cell"],
)
def test_report_accepts_displayed_forms(
    run: Path, ident: str, want: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["report", str(run), "--id", ident]) == 0
    out, _err = capsys.readouterr()
    assert f"report asked for span `{want}`" in out


@pytest.mark.parametrize(
    ("command", "extra"), [("report", []), ("rerun", ["--yes"])], ids=["report", "rerun"]
)
def test_ambiguous_id_exits_2_listing_candidates(
    run: Path, command: str, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main([command, str(run), "--id", "1b5a", *extra]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"tracetui: {command}: id '1b5a' is ambiguous: "
        f"1b5a4 ({STAMP}1b5a45f2), 1b5a9 ({STAMP}1b5a9999)\n"
    )


def test_tail_shows_the_part_that_differs(run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The finding: every row read `20261201T084`, the timestamp the ids share.
    assert cli.main(["tail", "--once", str(run)]) == 0
    out = capsys.readouterr().out
    assert [line.split()[2] for line in out.splitlines()] == ["aeac", "1b5a4", "1b5a9"]


def _record(
    tmp_path: Path, *flags: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            *ENTRY,
            "run",
            *flags,
            "--",
            PY,
            "-c",
            "import sys; print('out'); sys.stderr.write('err\\n')",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        env=env,
    )


def _ids(tmp_path: Path) -> list[str]:
    lines = (tmp_path / "feedback_record.jsonl").read_text().splitlines()
    return [json.loads(x)["command_id"] for x in lines]


def test_run_prints_the_id_on_stderr_when_asked(tmp_path: Path) -> None:
    first = _record(tmp_path, "--print-id")
    (cid,) = _ids(tmp_path)
    short = cid.rpartition("-")[2][:4]
    assert (first.returncode, first.stdout) == (0, "out\n")  # stdout stays the capped view
    assert first.stderr == f"err\ntracetui: recorded {short} ({cid})\n"  # after the command's
    # The printed id chains the next attempt, and rerun/report accept its short form.
    second = _record(tmp_path, "--parent", short)
    assert (second.returncode, second.stdout, second.stderr) == (0, "out\n", "err\n")
    recs = [json.loads(x) for x in (tmp_path / "feedback_record.jsonl").read_text().splitlines()]
    assert recs[1]["parent_command_id"] == cid  # recorded whole, so the chain links
    assert cli.main(["report", str(tmp_path / "feedback_record.jsonl"), "--id", short]) == 0


def test_run_writes_the_id_to_the_file_the_harness_names(tmp_path: Path) -> None:
    import os

    target = tmp_path / "last-id"
    p = _record(tmp_path, env={**os.environ, "TRACETUI_ID_FILE": str(target)})
    assert (p.returncode, p.stdout, p.stderr) == (0, "out\n", "err\n")  # nothing added
    assert target.read_text() == _ids(tmp_path)[0] + "\n"


def test_run_refuses_an_ambiguous_parent_before_running(run: Path) -> None:
    p = subprocess.run(
        [*ENTRY, "run", "--log", str(run), "--parent", "1b5a", "--", PY, "-c", "print('ran')"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == (
        f"tracetui: run: --parent: id '1b5a' is ambiguous: "
        f"1b5a4 ({STAMP}1b5a45f2), 1b5a9 ({STAMP}1b5a9999)\n"
    )
    assert len(run.read_text().splitlines()) == len(IDS)  # nothing recorded


def test_summary_text_names_ids_as_displayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.jsonl"
    recs = [tool(IDS[0], exit_code=1), tool(IDS[1], parent_command_id=IDS[0], exit_code=1)]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert cli.main(["summary", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"chain aeac ({IDS[0]}): 2 attempts, final exit 1" in lines
    assert lines[-2].endswith(f"({path}:2)  id 1b5a")


def test_run_says_when_the_id_file_cannot_be_written(tmp_path: Path) -> None:
    import os

    target = tmp_path / "no-such-dir" / "id"
    p = _record(tmp_path, env={**os.environ, "TRACETUI_ID_FILE": str(target)})
    assert (p.returncode, p.stdout) == (0, "out\n")  # the command's status, not ours
    assert p.stderr == (
        f"err\ntracetui run: cannot write TRACETUI_ID_FILE={target}: No such file or directory\n"
    )
    assert len(_ids(tmp_path)) == 1  # the span is recorded all the same
