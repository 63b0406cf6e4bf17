"""`tracetui show PATH --id ID [--stream S] [--unseen]` through the real entry point."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from tracetui.cli import main as cli_main

PY = sys.executable
# Multibyte characters around every cut: the windows move to character boundaries.
OUTPUT = "".join(f"{n:05d} é€ 😀 line\n" for n in range(400)).encode()


def tracetui(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([PY, "-m", "tracetui", *args], cwd=cwd, capture_output=True, timeout=60)


def record_output(tmp_path: Path, data: bytes, *options: str) -> dict:
    code = f"import sys; sys.stdout.buffer.write({data!r})"
    p = tracetui(tmp_path, "run", "--log", "B", *options, "--", PY, "-c", code)
    assert p.returncode == 0, p.stderr
    return orjson.loads((tmp_path / "B").read_bytes().splitlines()[-1])


@pytest.mark.parametrize("clip", ["head", "tail", "head_tail"])
def test_unseen_is_byte_exact_the_part_outside_the_preview(tmp_path: Path, clip: str) -> None:
    rec = record_output(tmp_path, OUTPUT, "--cap", "1001", "--clip", clip)
    head = rec["stdout_head_bytes"] or 0
    tail = rec["stdout_tail_bytes"] or 0
    p = tracetui(tmp_path, "show", "B", "--id", rec["command_id"], "--unseen")
    assert (p.returncode, p.stderr) == (0, b"")
    assert p.stdout == OUTPUT[head : len(OUTPUT) - tail]
    assert len(p.stdout) == rec["stdout_bytes"] - head - tail  # what the marker counted
    whole = tracetui(tmp_path, "show", "B", "--id", rec["command_id"])
    assert whole.stdout == OUTPUT


def test_binary_output_goes_out_as_bytes_to_a_pipe(tmp_path: Path) -> None:
    data = bytes(range(256)) * 40
    rec = record_output(tmp_path, data, "--cap", "100")
    p = tracetui(tmp_path, "show", "B", "--id", rec["command_id"][-8:], "--unseen")
    assert (p.returncode, p.stdout) == (0, data[100:])


def test_on_a_terminal_escapes_are_neutralised(tmp_path: Path, monkeypatch, capsys) -> None:
    rec = record_output(tmp_path, b"ok\n\x1b]52;c;aGk=\x07\xff done\n", "--cap", "3")

    class Tty(io.TextIOWrapper):
        def isatty(self) -> bool:
            return True

    raw = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", Tty(raw, encoding="utf-8"))
    monkeypatch.chdir(tmp_path)
    assert cli_main(["show", "B", "--id", rec["command_id"], "--unseen"]) == 0
    assert raw.getvalue() == "␛]52;c;aGk=␇\\xff done\n".encode()


def test_a_stream_shown_whole_has_nothing_unseen(tmp_path: Path) -> None:
    rec = record_output(tmp_path, b"short\n")
    short = rec["command_id"]
    p = tracetui(tmp_path, "show", "B", "--id", short, "--unseen")
    assert p.returncode == 0 and p.stdout == b""
    assert (
        p.stderr.decode()
        == "tracetui: show: nothing unseen: the agent saw all 6 bytes of its stdout\n"
    )


def test_unseen_picks_the_stream_that_was_cut(tmp_path: Path) -> None:
    code = "import sys; print('out'); sys.stderr.write('E' * 50 + 'the end')"
    p = tracetui(tmp_path, "run", "--log", "B", "--cap", "50", "--", PY, "-c", code)
    rec = orjson.loads((tmp_path / "B").read_bytes())
    shown = tracetui(tmp_path, "show", "B", "--id", rec["command_id"], "--unseen")
    assert (p.returncode, shown.returncode, shown.stdout) == (0, 0, b"the end")


def one_line(p: subprocess.CompletedProcess[bytes]) -> str:
    lines = p.stderr.decode().splitlines()
    assert len(lines) == 1 and p.stdout == b""
    return lines[0]


def test_not_kept_exits_1_with_one_line(tmp_path: Path) -> None:
    rec = record_output(tmp_path, b"x" * 100, "--cap", "10", "--no-keep")
    p = tracetui(tmp_path, "show", "B", "--id", rec["command_id"], "--unseen")
    assert p.returncode == 1
    assert one_line(p).endswith(
        "not shown: its stdout was not kept (recorded with --no-keep, or by a tracetui that "
        "kept no output)"
    )


def test_evicted_exits_1_with_one_line(tmp_path: Path) -> None:
    rec = record_output(tmp_path, b"x" * 100, "--cap", "10")
    for f in (tmp_path / "B.kept").glob("*.gz"):
        f.unlink()
    p = tracetui(tmp_path, "show", "B", "--id", rec["command_id"])
    assert p.returncode == 1
    assert "is gone (evicted to fit the keep budget, or removed)" in one_line(p)


def test_a_tampered_kept_file_is_reported_not_shown(tmp_path: Path) -> None:
    rec = record_output(tmp_path, b"AssertionError: real\n" * 20, "--cap", "10")
    path = tmp_path / "B.kept" / (rec["stdout_kept"]["sha256"] + ".gz")
    path.write_bytes(gzip.compress(gzip.decompress(path.read_bytes()).replace(b"real", b"fake")))
    p = tracetui(tmp_path, "show", "B", "--id", rec["command_id"], "--unseen")
    assert p.returncode == 1
    assert one_line(p).endswith(f"{path} does not match the hash in its record (changed?)")


def test_a_link_planted_as_the_kept_folder_is_not_read(tmp_path: Path) -> None:
    rec = record_output(tmp_path, b"x" * 100, "--cap", "10")
    (tmp_path / "B.kept").rename(tmp_path / "moved")
    (tmp_path / "B.kept").symlink_to(tmp_path / "moved")
    p = tracetui(tmp_path, "show", "B", "--id", rec["command_id"])
    assert p.returncode == 1
    assert one_line(p).endswith("B.kept: refused, it is not a directory (a link?)")


def test_an_imported_trace_has_nothing_kept(tmp_path: Path) -> None:
    from tracetui.store.build import build_index
    from tracetui.store.runset import open_path

    session = Path(__file__).parents[1] / "data" / "agents" / "claude_session.jsonl"
    index = build_index(open_path(str(session))[0])
    # A call whose cut is unknown (no marker, no verdict): an uncut one prints its preview
    # (test_show_uncut.py).
    spans = [index.span(row) for row in range(len(index))]
    span_id = next(s.command_id for s in spans if s and s.raw.get("stdout_truncated") is None)
    p = tracetui(tmp_path, "show", str(session), "--id", span_id)
    assert p.returncode == 1
    assert one_line(p).endswith(
        "not shown: it is from an imported claude-code trace, which kept no full output"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "B", "--id", "nope"], "tracetui: show: no span with id 'nope'"),
        (["show", "missing", "--id", "x"], None),
        (["show", "B"], None),
        (["show", "B", "--id", "x", "--stream", "both"], None),
    ],
    ids=["unknown-id", "no-run", "no-id", "bad-stream"],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str | None) -> None:
    record_output(tmp_path, b"x")
    p = tracetui(tmp_path, *args)
    assert p.returncode == 2 and p.stdout == b""
    if message is not None:
        assert p.stderr.decode().splitlines() == [message]


def test_the_flaky_billing_sample_shows_the_assertion_the_agent_never_saw(tmp_path: Path) -> None:
    sample = Path(__file__).parents[2] / "sample_runs" / "flaky-billing"
    p = tracetui(tmp_path, "show", str(sample), "--id", "cmd_3f76", "--unseen")
    assert p.returncode == 0 and len(p.stdout) == 16014  # the bytes the marker said were withheld
    assert b"E       AssertionError: assert Decimal('33.33') == Decimal('33.34')\n" in p.stdout
    rec = orjson.loads((sample / "feedback_record.jsonl").read_bytes().splitlines()[2])
    assert rec["preview_stdout"].count("AssertionError") == 0  # the agent saw none of it
