"""Re-run resources are bounded by the window and a limit, never by sizes a trace claims.

Memory is measured in a subprocess (its own ``ru_maxrss``); processes are checked with
``os.kill(pid, 0)`` on pids the commands write to files. No assertion depends on a clock.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from records import tool

from tracetui.rerun import diff, reaper
from tracetui.rerun import runner as rerun
from tracetui.rerun.runner import RECORD_CAP, RECORD_CAP_MAX
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

PY = sys.executable
SIZE = 300 << 20
# 300 MiB of 1 KiB lines, written in 1 MiB blocks.
WRITER = (
    "import sys\nblock = (b'x' * 1023 + b'\\n') * 1024\n"
    f"for _ in range({SIZE >> 20}):\n    sys.stdout.buffer.write(block)\n"
)
MEASURE = textwrap.dedent("""\
    import json, resource, sys
    from tracetui.rerun import runner as rerun
    from tracetui.store.build import build_index
    from tracetui.store.runset import open_path
    ix = build_index(open_path(sys.argv[1])[0])
    target = rerun.find_target([ix], "big")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with rerun.rerun(target) as r:
        rerun.summary(r)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"grew_kb": after - before, "total": r.stdout.bytes_now,
                          "sidecar": r.sidecar}))
    """)


def load(folder: Path) -> RunIndex:
    return build_index(open_path(str(folder / "run.jsonl"))[0])


def write_run(folder: Path, *records: dict[str, Any]) -> RunIndex:
    folder.mkdir(exist_ok=True)
    (folder / "run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return load(folder)


HUGE = [
    # (id, fields of the record that claim absurd sizes)
    ("cap-1e12", {"stdout_cap": 1e12}),
    ("head-bytes-1e12", {"stdout_head_bytes": 1e12, "stdout_head_sha256": "ab" * 32}),
    ("tail-bytes-1e12", {"stdout_clip": "tail", "stdout_tail_bytes": 1e12}),
    ("whole-bytes-1e12", {"stdout_truncated": False, "stdout_bytes": 1e12, "stdout_cap": 2e12}),
]


@pytest.mark.parametrize(("name", "fields"), HUGE, ids=[c[0] for c in HUGE])
def test_sizes_from_the_record_bound_neither_memory_nor_the_sidecar(
    tmp_path: Path, name: str, fields: dict[str, Any]
) -> None:
    rec = tool(
        "big",
        argv=[PY, "-c", WRITER],
        stdout_bytes=SIZE,
        stdout_truncated=True,
        stdout_clip="head",
        stdout_sha256=None,
        preview_stdout="x" * 8192,
        ok_preview=False,
    )
    rec.update(fields)
    write_run(tmp_path, rec)
    (tmp_path / "measure.py").write_text(MEASURE)
    out = subprocess.run(
        [PY, str(tmp_path / "measure.py"), str(tmp_path / "run.jsonl")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout)
    assert facts["total"] == SIZE
    assert facts["grew_kb"] < 200 << 10, facts  # the output is 300 MiB: none of it is held
    lines = Path(facts["sidecar"]).read_bytes().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    cap = RECORD_CAP_MAX if "stdout_cap" in fields else RECORD_CAP
    assert record["stdout_cap"] == cap
    assert len(lines[0]) < cap + (16 << 10)  # the preview and a few hundred bytes of facts


WINDOWS = [
    # (id, stream facts, new output size, (head_bytes, tail_bytes, unseen_start, unseen_bytes))
    (
        "head-window-claims-1e12",
        {"stdout_head_bytes": 10**12},
        100 << 20,
        (diff.WINDOW_MAX, 0, 100 << 20, 0),
    ),
    (
        "tail-window-claims-1e12",
        {"stdout_clip": "tail", "stdout_tail_bytes": 10**12},
        100 << 20,
        (0, diff.WINDOW_MAX, 0, 0),
    ),
    (
        "negative-window",
        {"stdout_head_bytes": -5},
        1000,
        (0, 0, 0, 1000),
    ),
    (
        "uncut-stream-claims-1e12",
        {"stdout_truncated": False, "stdout_bytes": 10**12, "stdout_cap": 2 * 10**12},
        100 << 20,
        (diff.WINDOW_MAX, 0, 100 << 20, 0),
    ),
    (
        "sane-head-window",
        {"stdout_head_bytes": 8192},
        100 << 20,
        (8192, 0, 8192, (100 << 20) - 8192),
    ),
]


@pytest.mark.parametrize(("name", "fields", "total", "want"), WINDOWS, ids=[c[0] for c in WINDOWS])
def test_the_window_read_for_the_diff_is_clamped(
    tmp_path: Path, name: str, fields: dict[str, Any], total: int, want: tuple[int, ...]
) -> None:
    rec = tool(
        "w1", stdout_truncated=True, stdout_clip="head", stdout_bytes=total, preview_stdout="x" * 64
    )
    rec.update(fields)
    span = write_run(tmp_path, rec).span(0)
    assert span is not None
    w = diff.plan_windows(span.stdout, span.dialect, total)
    assert (w.head_bytes, w.tail_bytes, w.unseen_start, w.unseen_bytes) == want


# ------------------------------------------------------------------ the output limit
FOREVER = "import os, sys\nopen('child.pid', 'w').write(str(os.getpid()))\nwhile True:\n    sys.stdout.write('y\\n' * 4096)\n"


def test_the_output_limit_kills_the_group_and_makes_the_verdict_unknown(tmp_path: Path) -> None:
    (tmp_path / "forever.py").write_text(FOREVER)
    ix = write_run(
        tmp_path,
        tool("y1", argv=[PY, "forever.py"], stdout_full_sha256="ab" * 32, stderr_sha256=None),
    )
    with rerun.rerun(rerun.find_target([ix], "y1"), max_output=1_000_000, grace=0.2) as r:
        assert r.captured.error == "stopped at the output limit (1,000,000 B); process group killed"
        assert r.captured.output_cut == "stopped at the output limit (1,000,000 B)"
        assert (r.stdout.bytes_now, r.stderr.bytes_now) == (1_000_000, 0)
        on_disk = os.fstat(r.captured.stdout.file.fileno()).st_size
        assert on_disk == 1_000_000
        reason = (
            "the whole output's hash cannot be compared: stopped at the output limit (1,000,000 B)"
        )
        assert [(c.verdict, c.reason) for c in (r.stdout, r.stderr)] == [(diff.UNKNOWN, reason)] * 2
        assert r.captured.exit_code == -signal.SIGTERM
        doc = rerun.summary(r)
        assert (doc["stdout_verdict"], doc["stdout_verdict_reason"]) == (diff.UNKNOWN, reason)
    with pytest.raises(ProcessLookupError):
        os.kill(int((tmp_path / "child.pid").read_text()), 0)


def test_a_rerun_under_the_limit_is_whole(tmp_path: Path) -> None:
    ix = write_run(tmp_path, tool("e1", argv=["echo", "hi"]))
    with rerun.rerun(rerun.find_target([ix], "e1"), max_output=3) as r:
        assert (r.captured.error, r.captured.output_cut, r.stdout.bytes_now) == (None, None, 3)
        assert r.stdout.reason is None


# ------------------------------------------------------------------ processes that leave
SETSID_GRANDCHILD = textwrap.dedent("""\
    import os, subprocess, sys, time
    code = ("import os, signal, time; os.setsid(); signal.signal(signal.SIGTERM, signal.SIG_IGN);"
            "open('grandchild.pid', 'w').write(str(os.getpid())); time.sleep(60)")
    subprocess.Popen([sys.executable, "-c", code])
    while not os.path.exists("grandchild.pid"):
        time.sleep(0.01)
    print("ready", flush=True)
    time.sleep(60)
    """)
# The child starts a daemon (new session, pipes closed) and exits 0 at once.
DAEMON = textwrap.dedent("""\
    import os, sys, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            open("grandchild.pid", "w").write(str(os.getpid()))
            time.sleep(60)
        os._exit(0)
    os.wait()
    while not os.path.exists("grandchild.pid"):
        time.sleep(0.01)
    print("daemon started")
    """)
LEFT = [
    # (id, script, timeout, error, exit code)
    (
        "setsid-grandchild-on-timeout",
        SETSID_GRANDCHILD,
        1.0,
        "timed out after 1s; process group killed",
        -signal.SIGTERM,
    ),
    ("daemon-left-after-exit", DAEMON, 30.0, None, 0),
]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="child subreaper is Linux only")
@pytest.mark.parametrize(
    ("name", "script", "timeout", "error", "code"), LEFT, ids=[c[0] for c in LEFT]
)
def test_processes_that_leave_the_session_are_killed(
    tmp_path: Path, name: str, script: str, timeout: float, error: str | None, code: int
) -> None:
    (tmp_path / "spawn.py").write_text(script)
    ix = write_run(tmp_path, tool("s1", argv=[PY, "spawn.py"]))
    was_subreaper = reaper.get_subreaper()
    with rerun.rerun(
        rerun.find_target([ix], "s1"), timeout=timeout, grace=0.2, write_sidecar=False
    ) as r:
        assert (r.captured.error, r.captured.exit_code) == (error, code)
        grandchild = int((tmp_path / "grandchild.pid").read_text())
        assert grandchild in r.captured.leftovers
    with pytest.raises(ProcessLookupError):
        os.kill(grandchild, 0)
    assert reaper.get_subreaper() is was_subreaper  # only a subreaper while a re-run runs


# ------------------------------------------------------------------ argv that cannot be run
BAD_ARGV = [
    (
        "nul-byte",
        ["echo", "a\u0000b"],
        "span 'n1' cannot be re-run: argv[1] holds a NUL character (no program can receive it)",
    ),
    ("number", ["echo", 5], "span 'n1' cannot be re-run: argv[1] is a number, not a string"),
    ("null", ["echo", "x", None], "span 'n1' cannot be re-run: argv[2] is null, not a string"),
    (
        "boolean",
        ["echo", True],
        "span 'n1' cannot be re-run: argv[1] is true or false, not a string",
    ),
    (
        "object-item",
        ["echo", {"a": 1}],
        "span 'n1' cannot be re-run: argv[1] is an object, not a string",
    ),
    ("list-item", [["echo"]], "span 'n1' cannot be re-run: argv[0] is a list, not a string"),
    (
        "shell-string",
        "echo hi; touch x",
        "span 'n1' cannot be re-run: its argv is a shell string, not a list of arguments",
    ),
    (
        "object",
        {"a": 1},
        "span 'n1' cannot be re-run: its argv is an object, not a list of strings",
    ),
    ("number-argv", 7, "span 'n1' cannot be re-run: its argv is a number, not a list of strings"),
]


@pytest.mark.parametrize(("name", "argv", "message"), BAD_ARGV, ids=[c[0] for c in BAD_ARGV])
def test_argv_that_cannot_be_run_is_refused(
    tmp_path: Path, name: str, argv: Any, message: str
) -> None:
    ix = write_run(tmp_path, tool("n1", argv=argv))
    for find in (lambda: rerun.find_target([ix], "n1"), lambda: rerun.target_for_row(ix, 0)):
        with pytest.raises(rerun.RerunError) as err:
            find()
        assert str(err.value) == message


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["echo", "a\u0000b"],
            "cannot run this argv: argv[1] holds a NUL character (no program can receive it)",
        ),
        (["echo", 5], "cannot run this argv: argv[1] is a number, not a string"),
        ([], "cannot run this argv: its argv is empty"),
        ([""], "cannot run this argv: its program name (argv[0]) is empty"),
    ],
    ids=["nul", "number", "empty", "empty-program"],
)
def test_run_spooled_refuses_before_spooling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[Any], message: str
) -> None:
    def no_spool(*_args: object) -> None:
        raise AssertionError("a spool was opened for an argv that cannot run")

    monkeypatch.setattr(rerun, "SpoolTap", no_spool)
    with pytest.raises(rerun.RerunError) as err:
        rerun.run_spooled(argv, str(tmp_path))
    assert str(err.value) == message
