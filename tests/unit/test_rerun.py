"""Re-runs of real commands: every verdict, normalisation, the sidecar in the chain, errors, kills."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from records import tool

from tracetui.analysis.chains import ChainIndex
from tracetui.analysis.lint import lint_index
from tracetui.model.flags import SIDECAR
from tracetui.record.recorder import run_with_feedback
from tracetui.rerun import diff
from tracetui.rerun import runner as rerun
from tracetui.rerun.normalize import RULE_NAMES
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path, sidecar_path

PY = sys.executable
REPO = Path(__file__).resolve().parents[2]
SKIP = shutil.ignore_patterns("*.reruns.jsonl*", "*.lock")
FIXED = "".join(f"fixed line {i:02d}\n" for i in range(30))  # 420 bytes

# Each script prints the content of data.txt somewhere among fixed lines, so editing data.txt
# between the recording and the re-run changes exactly one part of the output.
SCRIPTS = {
    "data_last": f"import sys\nsys.stdout.write({FIXED!r} + open('data.txt').read())\n",
    "data_first": f"import sys\nsys.stdout.write(open('data.txt').read() + {FIXED!r})\n",
    "data_middle": f"import sys\nsys.stdout.write({FIXED!r} + open('data.txt').read() + {FIXED!r})\n",
    "clock": textwrap.dedent("""\
        import sys
        n = int(open('data.txt').read() or 0) + 1
        open('data.txt', 'w').write(str(n))
        sys.stdout.write(f"started 2026-11-01T00:00:0{n % 10}Z\\nresult ok\\ntook 0.{n}s\\n")
        """),
}


def load(folder: Path) -> RunIndex:
    return build_index(open_path(str(folder / "run.jsonl"))[0])


def record(
    folder: Path, script: str, data: str, cap: int | None, clip: str = "head"
) -> rerun.Target:
    """Record ``script`` with the real recorder, then find its span for a re-run."""
    folder.mkdir(exist_ok=True)
    (folder / f"{script}.py").write_text(SCRIPTS[script])
    (folder / "data.txt").write_text(data)
    res = run_with_feedback(
        [PY, f"{script}.py"], log=folder / "run.jsonl", cap=cap, clip=clip, cwd=folder
    )
    return rerun.find_target([load(folder)], res.record["command_id"])


VERDICTS = [
    # (id, script, data then, data now, cap, clip, stdout verdict)
    ("identical", "data_last", "same\n", "same\n", 200, "head", diff.IDENTICAL),
    ("head-matches", "data_last", "old tail\n", "new tail\n", 200, "head", diff.HEAD_MATCHES),
    ("tail-matches", "data_first", "old head\n", "new head\n", 200, "tail", diff.TAIL_MATCHES),
    ("head-and-tail-match", "data_middle", "old\n", "new!\n", 200, "head_tail", diff.BOTH_MATCH),
    ("differs", "data_last", "old\n", "new\n", None, "head", diff.DIFFERS),
]


@pytest.mark.parametrize(
    ("name", "script", "then", "now", "cap", "clip", "want"), VERDICTS, ids=[c[0] for c in VERDICTS]
)
def test_verdicts_on_real_commands(
    tmp_path: Path,
    name: str,
    script: str,
    then: str,
    now: str,
    cap: int | None,
    clip: str,
    want: str,
) -> None:
    target = record(tmp_path / "run", script, then, cap, clip)
    (tmp_path / "run" / "data.txt").write_text(now)
    with rerun.rerun(target) as result:
        assert (result.stdout.verdict, result.stderr.verdict) == (want, diff.IDENTICAL)
        assert (result.captured.exit_code, result.captured.error) == (0, None)
        expected = {
            "data_last": FIXED + now,
            "data_first": now + FIXED,
            "data_middle": FIXED + now + FIXED,
        }
        assert result.stdout.bytes_now == len(expected[script].encode())
        # The windows the agent saw are unchanged except in the "differs" case.
        assert result.stdout.changed is (want == diff.DIFFERS)


def test_differs_shows_the_change_in_the_diff(tmp_path: Path) -> None:
    target = record(tmp_path / "run", "data_last", "total: 41\n", None)
    (tmp_path / "run" / "data.txt").write_text("total: 42\n")
    with rerun.rerun(target) as result:
        lines = result.stream_diff("stdout")
        assert [x for x in lines if x[:1] in "+-" and x[:3] not in ("---", "+++")] == [
            "-total: 41",
            "+total: 42",
        ]
        assert result.stream_diff("stderr") == []


def test_unknown_when_the_record_stores_no_hash(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "data_last.py").write_text(SCRIPTS["data_last"])
    (folder / "data.txt").write_text("x\n")
    rec = {
        "command": [PY, "data_last.py"],
        "command_id": "fb1",
        "stdout_tail": "x\n",
        "stderr_tail": "",
        "exit_code": 0,
        "cwd": ".",
    }
    (folder / "run.jsonl").write_text(json.dumps(rec) + "\n")
    with rerun.rerun(rerun.find_target([load(folder)], "fb1")) as result:
        assert (result.stdout.verdict, result.stderr.verdict) == (diff.UNKNOWN, diff.UNKNOWN)
        assert result.stdout.windows.clip == "tail"
        assert result.stream_diff("stdout") == []  # the stored tail is the end of the new output
        assert result.stdout.windows.unseen_bytes == len(FIXED)


# A collector that writes {s}_sha256 on a clipped stream: the hash equals the re-run's output,
# yet it is no proof of the whole stream. (id, stdout_cap, stdout_truncated, stdout verdict)
CLIPPED_HASH = [
    ("clipped-by-flag", 1024, True, diff.UNKNOWN),
    ("clipped-by-bytes-over-cap", 256, False, diff.UNKNOWN),
    ("not-clipped", 1024, False, diff.IDENTICAL),  # the near-miss twin: the hash is the stream's
]


@pytest.mark.parametrize(
    ("cap", "flag", "want"), [c[1:] for c in CLIPPED_HASH], ids=[c[0] for c in CLIPPED_HASH]
)
def test_sha256_on_a_clipped_stream_is_not_trusted(
    tmp_path: Path, cap: int, flag: bool, want: str
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "data_last.py").write_text(SCRIPTS["data_last"])
    (folder / "data.txt").write_text("end\n")
    output = (FIXED + "end\n").encode()
    rec = {
        "span_type": "tool",
        "command_id": "ts1",
        "argv": [PY, "data_last.py"],
        "cwd": ".",
        "returncode": 0,
        "stdout_bytes": len(output),
        "stdout_cap": cap,
        "stdout_truncated": flag,
        "stdout_sha256": hashlib.sha256(output).hexdigest(),
        "preview_stdout": output[:cap].decode(),
        "stderr_bytes": 0,
        "stderr_cap": 256,
        "stderr_truncated": False,
        "stderr_sha256": hashlib.sha256(b"").hexdigest(),
    }
    (folder / "run.jsonl").write_text(json.dumps(rec) + "\n")
    with rerun.rerun(rerun.find_target([load(folder)], "ts1"), write_sidecar=False) as result:
        assert (result.stdout.verdict, result.stderr.verdict) == (want, diff.IDENTICAL)
        doc = rerun.summary(result)
        assert (doc["stdout_verdict"], doc["stderr_verdict"]) == (want, diff.IDENTICAL)


def test_timestamps_differ_only_before_normalisation(tmp_path: Path) -> None:
    target = record(tmp_path / "run", "clock", "", None)
    with rerun.rerun(target) as result:
        c = result.stdout
        assert (c.verdict, c.changed_raw, c.changed) == (diff.DIFFERS, True, False)
        assert result.stream_diff("stdout") == []
        no_time = [r for r in RULE_NAMES if r != "timestamps"]
        changed = [
            x
            for x in result.stream_diff("stdout", no_time)
            if x[:1] in "+-" and x[:3] not in ("---", "+++")
        ]
        assert changed == ["-started 2026-11-01T00:00:01Z", "+started 2026-11-01T00:00:02Z"]
        no_dur = [r for r in RULE_NAMES if r != "durations"]
        changed = [
            x
            for x in result.stream_diff("stdout", no_dur)
            if x[:1] in "+-" and x[:3] not in ("---", "+++")
        ]
        assert changed == ["-took 0.1s", "+took 0.2s"]


# ------------------------------------------------------------------ the sample run
def test_flaky_billing_assertion_is_in_the_unseen_part(tmp_path: Path) -> None:
    folder = tmp_path / "flaky-billing"
    # Leave out re-runs someone made of the sample in the working tree (they are gitignored).
    shutil.copytree(REPO / "sample_runs" / "flaky-billing", folder, ignore=SKIP)
    ix = build_index(open_path(str(folder))[0])
    target = rerun.find_target([ix], "cmd_3f76")
    assert target.cwd == str(folder)
    with rerun.rerun(target) as result:
        c = result.stdout
        assert (c.verdict, result.captured.exit_code, c.windows.clip) == (diff.IDENTICAL, 1, "head")
        assert c.windows.unseen_start == 8192 and c.windows.unseen_bytes == c.bytes_now - 8192 > 0
        assert result.stream_diff("stdout") == []
        unseen = result.unseen("stdout", 0, c.windows.unseen_bytes).decode()
        assert "E       AssertionError: assert Decimal('33.33') == Decimal('33.34')" in unseen
        assert "AssertionError" not in target.span.stdout.preview
        assert (
            "AssertionError: assert Decimal('33.33')" in result.unseen_excerpt("stdout", 2048).end
        )


# ------------------------------------------------------------------ the sidecar
def test_sidecar_record_joins_the_chain_and_passes_lint(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    target = record(folder, "data_last", "same\n", 200)
    trace = (folder / "run.jsonl").read_bytes()
    with rerun.rerun(target) as result:
        assert result.sidecar == sidecar_path(str(folder / "run.jsonl"))
        rec = result.record
        assert rec is not None
        assert (rec["parent_command_id"], rec["rerun_of"], rec["stdout_truncated"]) == (
            target.command_id,
            target.command_id,
            False,
        )
        assert rec["stdout_full_sha256"] == target.span.stdout.full_sha256
        assert rec["preview_stdout"] == FIXED + "same\n"  # under the 64 KiB cap: the whole text
    assert (folder / "run.jsonl").read_bytes() == trace  # the trace itself is never modified
    ix = load(folder)
    assert len(ix) == 2 and ix.flags[1] & SIDECAR and ix.stats.spans == 1
    assert ChainIndex(ix).chain(0).rows() == [0, 1]
    assert lint_index(ix) == []


def test_no_sidecar_when_asked(tmp_path: Path) -> None:
    target = record(tmp_path / "run", "data_last", "x\n", 200)
    with rerun.rerun(target, write_sidecar=False) as result:
        assert result.sidecar is None
    assert not os.path.exists(sidecar_path(str(tmp_path / "run" / "run.jsonl")))


# ------------------------------------------------------------------ errors
def span_file(folder: Path, **over: Any) -> RunIndex:
    folder.mkdir(exist_ok=True)
    (folder / "run.jsonl").write_text(json.dumps(tool("t1", **over)) + "\n")
    return load(folder)


ERRORS = [
    ("missing-cwd", {"cwd": "gone"}, "working directory does not exist: {folder}/gone"),
    (
        "cwd-is-a-file",
        {"cwd": "run.jsonl"},
        "working directory is not a directory: {folder}/run.jsonl",
    ),
    (
        "program-not-found",
        {"argv": ["no-such-program-tracetui"]},
        "command not found: no-such-program-tracetui",
    ),
    ("not-executable", {"argv": ["./plain.txt"]}, "permission denied: ./plain.txt"),
]


@pytest.mark.parametrize(("name", "over", "want"), ERRORS, ids=[c[0] for c in ERRORS])
def test_start_failures_are_results(
    tmp_path: Path, name: str, over: dict[str, Any], want: str
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "plain.txt").write_text("not a program\n")
    ix = span_file(folder, **over)
    with rerun.rerun(rerun.find_target([ix], "t1")) as result:
        assert (result.captured.exit_code, result.captured.error) == (
            None,
            want.format(folder=folder),
        )
        assert result.record is not None and result.record["error"] == result.captured.error
    assert lint_index(load(folder)) == []


def test_timeout_kills_grandchildren(tmp_path: Path) -> None:
    script = textwrap.dedent("""\
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"])
        open("grandchild.pid", "w").write(str(child.pid))
        print("started", flush=True)
        time.sleep(60)
        """)
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "spawn.py").write_text(script)
    ix = span_file(folder, argv=[PY, "spawn.py"])
    pid_file = folder / "grandchild.pid"
    with rerun.rerun(rerun.find_target([ix], "t1"), timeout=1.5, grace=0.2) as result:
        assert result.captured.outcome.timed_out
        assert result.captured.error == "timed out after 1.5s; process group killed"
        assert result.captured.exit_code is not None and result.captured.exit_code < 0
    pid = int(pid_file.read_text())
    assert wait_dead(pid)


def wait_dead(pid: int) -> bool:
    """True once ``pid`` is gone or a zombie (bounded wait: delivery of SIGKILL is asynchronous)."""
    for _ in range(200):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def test_cancel_from_another_thread_and_progress(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "tick.py").write_text(
        "import time\nwhile True:\n    print('tick', flush=True)\n    time.sleep(0.05)\n"
    )
    ix = span_file(folder, argv=[PY, "tick.py"])
    cancel = threading.Event()
    seen: list[tuple[float, int, int]] = []

    def progress(elapsed: float, out: int, err: int) -> None:
        seen.append((elapsed, out, err))
        if out >= 15:
            threading.Thread(target=cancel.set).start()

    with rerun.rerun(
        rerun.find_target([ix], "t1"), cancel=cancel, progress=progress, grace=0.2
    ) as result:
        assert result.captured.outcome.cancelled
        assert result.captured.error == "cancelled; process group killed"
        assert seen[-1][1:] == (result.stdout.bytes_now, result.stderr.bytes_now)
        assert result.stdout.bytes_now >= 15
        assert all(b[0] <= a[0] for b, a in itertools.pairwise(seen))


# ------------------------------------------------------------------ finding the span
def test_find_target(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    lines = [tool("abc-1", cwd="sub"), tool("abc-2"), tool("xyz", argv=[])]
    (folder / "run.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    ix = load(folder)
    t = rerun.find_target([ix], "abc-1")
    assert (t.row, t.argv, t.cwd) == (0, ("echo", "hi"), str(folder / "sub"))
    assert rerun.find_target([ix], "abc-2").row == 1
    with pytest.raises(rerun.RerunError, match="ambiguous: abc-1, abc-2"):
        rerun.find_target([ix], "abc")
    with pytest.raises(rerun.RerunError, match="no span with id 'nope'"):
        rerun.find_target([ix], "nope")
    with pytest.raises(rerun.RerunError, match="records no argv"):
        rerun.find_target([ix], "xy")


REFUSED = [
    (
        "not-rerunnable",
        tool(
            "r1",
            tool_name="Read",
            argv=["Read", "/etc/hosts"],
            rerunnable=False,
            source_format="claude-code",
        ),
        (
            "span 'r1' is a Read call imported from claude-code, not a shell command: it cannot be re-run "
            "(rerunnable: false)"
        ),
    ),
    ("no-argv", tool("r1", argv=[]), "span 'r1' records no argv to re-run"),
    ("empty-program", tool("r1", argv=[""]), "span 'r1' records no argv to re-run"),
]


@pytest.mark.parametrize(("name", "rec", "message"), REFUSED, ids=[c[0] for c in REFUSED])
def test_spans_that_cannot_be_rerun_are_refused(
    tmp_path: Path, name: str, rec: dict[str, Any], message: str
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.jsonl").write_text(json.dumps(rec) + "\n" + "{not json\n")
    ix = load(folder)
    for find in (lambda: rerun.find_target([ix], "r1"), lambda: rerun.target_for_row(ix, 0)):
        with pytest.raises(rerun.RerunError) as err:
            find()
        assert str(err.value) == message
    with pytest.raises(rerun.RerunError, match=r"^row 2 cannot be read as a span"):
        rerun.target_for_row(ix, 1)


def test_rerunnable_true_and_absent_are_accepted(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    lines = [tool("a", rerunnable=True), tool("b")]
    (folder / "run.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    ix = load(folder)
    assert [rerun.target_for_row(ix, r).argv for r in (0, 1)] == [("echo", "hi"), ("echo", "hi")]


# ------------------------------------------------------------------ memory
BIG = textwrap.dedent("""\
    import json, os, resource, sys
    from tracetui.rerun import runner as rerun
    from tracetui.store.build import build_index
    from tracetui.store.runset import open_path
    ix = build_index(open_path(sys.argv[1])[0])
    target = rerun.find_target([ix], "big")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with rerun.rerun(target) as r:
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({"grew_kb": after - before, "total": r.stdout.bytes_now,
                          "spool": os.fstat(r.captured.stdout.file.fileno()).st_size, "verdict": r.stdout.verdict,
                          "unseen": r.stdout.windows.unseen_bytes, "preview": len(r.record["preview_stdout"])}))
    """)


def test_200mb_output_reruns_with_bounded_memory(tmp_path: Path) -> None:
    size = 200 << 20
    writer = "import sys\nline = b'x' * 1023 + b'\\n'\nfor _ in range(200):\n    sys.stdout.buffer.write(line * 1024)\n"
    rec = tool(
        "big",
        argv=[PY, "-c", writer],
        stdout_bytes=size,
        stdout_truncated=True,
        stdout_clip="head",
        stdout_sha256=None,
        preview_stdout="x" * 8192,
        ok_preview=False,
    )
    (tmp_path / "run.jsonl").write_text(json.dumps(rec) + "\n")
    (tmp_path / "big.py").write_text(BIG)
    out = subprocess.run(
        [PY, str(tmp_path / "big.py"), str(tmp_path / "run.jsonl")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout)
    assert (facts["total"], facts["spool"], facts["unseen"]) == (size, size, size - 8192)
    assert facts["verdict"] == diff.UNKNOWN  # the hand-made record stores no hash
    assert facts["preview"] < 80 << 10  # the sidecar keeps a 64 KiB preview, not 200 MB
    assert facts["grew_kb"] < 48 << 10, facts  # a few MB of windows and buffers, not the output
