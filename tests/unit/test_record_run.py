"""run_with_feedback end to end: real child processes, every record checked against the contract."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time

import orjson
import pytest

from tracetui.model.markers import marker_line
from tracetui.record.recorder import (
    CLIPS,
    DEFAULT_CAP,
    DEFAULT_CLIP,
    DEFAULT_KEEP,
    DEFAULT_LOG,
    DEFAULT_MAX_BYTES,
    new_command_id,
    run_with_feedback,
)

PY = sys.executable
STREAMS = ("stdout", "stderr")
FIELDS = [
    "schema",
    "span_type",
    "command_id",
    "parent_command_id",
    "tool_name",
    "argv",
    "argv_redacted",
    "cwd",
    "started_at",
    "duration_ms",
    "exit_code",
    "error",
    "agent_note",
    *[
        f"{s}_{k}"
        for s in STREAMS
        for k in (
            "bytes",
            "cap",
            "truncated",
            "clip",
            "sha256",
            "full_sha256",
            "head_sha256",
            "head_bytes",
            "tail_sha256",
            "tail_bytes",
        )
    ],
    "preview_stdout",
    "preview_stderr",
    "encoding",
    "ok_preview",
    "redacted",
    "stdout_items",
    "preview_stdout_items",
    "stderr_items",
    "preview_stderr_items",
]


def check_contract(rec: dict) -> None:
    """SPEC §2's minimal truncation contract, applied by hand."""
    # A written record ends with the kept-output fields; one built without a log has none.
    assert list(rec) in (FIELDS, [*FIELDS, "stdout_kept", "stderr_kept"])
    for s in STREAMS:
        if rec[f"{s}_cap"] is not None:
            assert rec[f"{s}_truncated"] is (rec[f"{s}_bytes"] > rec[f"{s}_cap"])
        if rec[f"{s}_truncated"]:
            assert rec[f"{s}_sha256"] is None
    if rec["ok_preview"]:
        assert not rec["stdout_truncated"] and not rec["stderr_truncated"]
    if rec["exit_code"] is None:
        assert rec["error"]


def record(tmp_path, argv, **kw):
    log = tmp_path / "run.jsonl"
    result = run_with_feedback(argv, log=log, **kw)
    lines = log.read_bytes().splitlines()
    written = orjson.loads(lines[-1])
    assert written == result.record
    assert result.stdout_view == written["preview_stdout"]
    assert result.stderr_view == written["preview_stderr"]
    check_contract(written)
    return result


# (id, argv, record exit_code, wrapper status, error)
EXITS = [
    ("zero", [PY, "-c", "pass"], 0, 0, None),
    ("three", [PY, "-c", "raise SystemExit(3)"], 3, 3, None),
    ("sigterm", ["sh", "-c", "kill -TERM $$"], -15, 143, None),
    ("sigkill", ["sh", "-c", "kill -KILL $$"], -9, 137, None),
    (
        "not-found",
        ["no-such-command-tracetui"],
        None,
        127,
        "command not found: no-such-command-tracetui",
    ),
]


@pytest.mark.parametrize(
    ("argv", "code", "status", "error"), [c[1:] for c in EXITS], ids=[c[0] for c in EXITS]
)
def test_exit_codes(tmp_path, argv, code, status, error):
    r = record(tmp_path, argv)
    assert (r.record["exit_code"], r.exit_status, r.record["error"]) == (code, status, error)
    assert r.record["ok_preview"] is (code == 0)


def test_permission_denied_is_126(tmp_path):
    script = tmp_path / "script.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(stat.S_IRUSR)
    r = record(tmp_path, [str(script)])
    assert (r.record["exit_code"], r.exit_status) == (None, 126)
    assert r.record["error"] == f"permission denied: {script}"


def test_missing_cwd_is_127(tmp_path):
    r = record(tmp_path, ["true"], cwd=tmp_path / "gone")
    assert (r.record["exit_code"], r.exit_status) == (None, 127)
    assert r.record["error"] == f"cwd not found: {tmp_path / 'gone'}"


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie is dead
    except FileNotFoundError:
        return False


def test_timeout_kills_grandchildren(tmp_path):
    r = record(tmp_path, ["sh", "-c", "sleep 30 & echo $!; wait"], timeout=0.5)
    grandchild = int(r.stdout_view.split()[0])
    assert r.record["error"] == "timed out after 0.5s"
    assert r.record["exit_code"] == -15
    assert r.exit_status == 143
    assert not alive(grandchild)


def test_record_fields(tmp_path):
    r = record(
        tmp_path,
        [PY, "-c", "print('x' * 30)"],
        cap=10,
        note="expect x",
        parent="p-1",
        tool_name="printer",
    )
    rec = r.record
    assert rec["schema"] == "tracetui/1" and rec["span_type"] == "tool"
    assert (rec["tool_name"], rec["agent_note"], rec["parent_command_id"]) == (
        "printer",
        "expect x",
        "p-1",
    )
    assert rec["cwd"] == os.getcwd()
    assert rec["started_at"].endswith("Z") and rec["started_at"][10] == "T"
    assert rec["preview_stdout"] == "x" * 10 + marker_line(21)
    assert (rec["stdout_truncated"], rec["stdout_head_bytes"], rec["ok_preview"]) == (
        True,
        10,
        False,
    )
    assert rec["encoding"] == "utf-8"


def test_binary_stream_sets_encoding(tmp_path):
    r = record(tmp_path, [PY, "-c", "import sys; sys.stdout.buffer.write(b'a\\xffb')"])
    assert r.record["encoding"] == "binary"
    assert r.stdout_view == "a\\xffb"


def test_redaction_counts_and_raw_hash(tmp_path):
    r = record(tmp_path, ["echo", "password=hunter2"])
    assert r.stdout_view == "password=[REDACTED]\n"
    assert r.record["redacted"] == 1
    import hashlib

    assert r.record["stdout_sha256"] == hashlib.sha256(b"password=hunter2\n").hexdigest()


def test_json_items_recorded(tmp_path):
    code = "import json; print(json.dumps({'data': [{'i': i} for i in range(50)]}))"
    r = record(
        tmp_path, [PY, "-c", code], cap=len('{"data": ') + len('[{"i": 0}') + 9 * len(', {"i": 0}')
    )
    assert (r.record["stdout_items"], r.record["preview_stdout_items"]) == (50, 10)


def test_command_ids_sort_by_time():
    ids = [new_command_id(t) for t in (1.0, 2.5, 1_000_000_000.0, 2_000_000_000.25)]
    assert ids == sorted(ids) and len(set(ids)) == 4


def test_log_none_writes_nothing(tmp_path):
    r = run_with_feedback(["true"], log=None, cwd=tmp_path)
    assert r.log is None and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("kw", "message"),
    [({"clip": "middle"}, "clip"), ({"cap": -1}, "cap"), ({"timeout": 0}, "timeout")],
    ids=["clip", "cap", "timeout"],
)
def test_bad_arguments(kw, message):
    with pytest.raises(ValueError, match=message):
        run_with_feedback(["true"], log=None, **kw)


def test_empty_argv():
    with pytest.raises(ValueError, match="no command"):
        run_with_feedback([], log=None)


def test_cli_defaults_match_the_api():
    from tracetui.commands import run_cmd

    assert (
        run_cmd.DEFAULT_LOG,
        run_cmd.DEFAULT_CAP,
        run_cmd.DEFAULT_CLIP,
        run_cmd.CLIPS,
        run_cmd.DEFAULT_MAX_BYTES,
        run_cmd.DEFAULT_KEEP,
    ) == (DEFAULT_LOG, DEFAULT_CAP, DEFAULT_CLIP, CLIPS, DEFAULT_MAX_BYTES, DEFAULT_KEEP)


def test_records_pass_lint_strict(tmp_path):
    log = tmp_path / "run.jsonl"
    cases = [
        ([PY, "-c", "print('a' * 100)"], {"cap": 10, "clip": "head"}),
        ([PY, "-c", "print('€' * 100)"], {"cap": 11, "clip": "tail"}),
        ([PY, "-c", "print('b' * 100)"], {"cap": 10, "clip": "head_tail"}),
        ([PY, "-c", "import sys; sys.stdout.buffer.write(b'\\xff' * 50)"], {"cap": 10}),
        (["echo", "password=hunter2 AKIAIOSFODNN7EXAMPLE"], {"cap": 30}),
        (["no-such-command-tracetui"], {}),
        (["sh", "-c", "kill -9 $$"], {}),
        ([PY, "-c", "print(list(range(100)))"], {"cap": 50}),
    ]
    for argv, kw in cases:
        run_with_feedback(argv, log=log, **kw)
    proc = subprocess.run(
        [PY, "-m", "tracetui", "lint", "--strict", str(log)], capture_output=True, text=True
    )
    if "not built yet" in proc.stderr:
        pytest.skip("tracetui lint is not built yet")
    assert (proc.returncode, proc.stdout.strip()) == (0, "issues=0"), proc.stdout + proc.stderr


def test_interrupt_kills_group_and_says_so(tmp_path):
    # A recorder in a subprocess gets SIGINT like a Ctrl-C; its child sleeps in its own session.
    log = tmp_path / "run.jsonl"
    code = (
        "import sys; from tracetui.record.recorder import run_with_feedback\n"
        f"r = run_with_feedback(['sleep', '30'], log={str(log)!r}, handle_signals=True)\n"
        "sys.exit(r.exit_status)\n"
    )
    proc = subprocess.Popen([PY, "-c", code])
    for _ in range(200):  # wait for the child to exist (not a timed assertion: bounded polling)
        if subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True).stdout:
            break
        time.sleep(0.02)
    proc.send_signal(2)
    assert proc.wait(20) == 130
    rec = orjson.loads(log.read_bytes())
    assert (rec["error"], rec["exit_code"]) == ("interrupted by SIGINT", -15)
