"""Following another agent's session: append-to-visible latency in the core.

A writer process grows a Claude Code session (or a ``codex exec --json`` stream, an OpenHands
event-lines file, older or V1, or a V1 ``events/`` folder, one new file per event) at a fixed
rate: each call line, then its result a little later (Claude Code: one call after another, as a
turn's results come before the next turn; Codex: commands overlap), each line written in two
halves (the way a buffered writer flushes). It logs the time each line was complete on disk. A
``ForeignFollower`` thread (``start()``: file-system events, or polling with
``TRACETUI_POLL=1``) timestamps each call when it first appears in the pending snapshot
(*running*) and when it becomes a row of the index (*complete*). We report p50/p95/max of
both, and check that every call became a row exactly once, in order.

    .venv/bin/python benchmarks/foreign_live.py [--format claude-code|codex|openhands|
        openhands-v1|openhands-v1-folder] [--rate 100]
        [--seconds 4] [--result-after 0.02]

Target (issue 14): new calls visible within 100 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from tracetui.live.foreign import ForeignFollower
from tracetui.store.runset import open_path

WRITER = r"""
import json, os, sys, time
path, log, fmt, rate, seconds, after = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])

def call(n):
    if fmt.startswith("openhands-v1"):
        return {"kind": "ActionEvent", "id": f"act-{n}", "source": "agent", "tool_name": "terminal",
                "tool_call_id": f"call_{n}", "timestamp": "2026-12-01T10:00:00.000000",
                "action": {"kind": "TerminalAction", "command": f"bench {n}", "is_input": False}}
    if fmt == "openhands":
        return {"id": n + 1, "source": "agent", "timestamp": "2026-12-01T10:00:00",
                "action": "run", "args": {"command": f"bench {n}"}}
    if fmt == "codex":
        return {"type": "item.started", "item": {"id": f"item_{n}", "type": "command_execution",
                "command": f"/bin/bash -lc 'bench {n}'", "aggregated_output": "", "exit_code": None,
                "status": "in_progress"}}
    return {"sessionId": "bench", "uuid": f"a{n}", "type": "assistant",
            "timestamp": "2026-12-01T10:00:00.000Z",
            "message": {"id": f"m{n}", "role": "assistant", "content": [{"type": "tool_use",
                        "id": f"toolu_{n}", "name": "Bash", "input": {"command": f"bench {n}"}}]}}

def result(n):
    if fmt.startswith("openhands-v1"):
        return {"kind": "ObservationEvent", "id": f"obs-{n}", "source": "environment",
                "tool_name": "terminal", "tool_call_id": f"call_{n}", "action_id": f"act-{n}",
                "observation": {"kind": "TerminalObservation", "content": [{"type": "text",
                                "text": "ok"}], "is_error": False, "exit_code": 0}}
    if fmt == "openhands":
        return {"id": 1_000_000 + n, "cause": n + 1, "source": "environment",
                "observation": "run", "content": "ok", "extras": {"metadata": {"exit_code": 0}}}
    if fmt == "codex":
        return {"type": "item.completed", "item": {"id": f"item_{n}", "type": "command_execution",
                "command": f"/bin/bash -lc 'bench {n}'", "aggregated_output": "ok\n", "exit_code": 0,
                "status": "completed"}}
    return {"sessionId": "bench", "uuid": f"u{n}", "type": "user",
            "timestamp": "2026-12-01T10:00:01.000Z",
            "message": {"role": "user", "content": [{"type": "tool_result",
                        "tool_use_id": f"toolu_{n}", "content": "ok"}]}}

folder = fmt.endswith("-folder")  # the SDK's events/: one file per event
out = None if folder else open(path, "ab", buffering=0)
marks = open(log, "w")
files = [1]
def put(obj, kind, n):
    data = (json.dumps(obj) + "\n").encode()
    if folder:
        k = files[0]
        files[0] += 1
        fh = open(os.path.join(path, f"event-{k:05d}-e{k:07d}.json"), "ab", buffering=0)
    else:
        fh = out
    fh.write(data[: len(data) // 2])
    fh.write(data[len(data) // 2 :])
    if folder:
        fh.close()
    marks.write(f"{kind} {n} {time.time()!r}\n")

start = time.time()
n = 0
if fmt != "codex":
    # Claude Code (and OpenHands) sends a turn's results before the model's next turn: calls one after another.
    while time.time() - start < seconds:
        put(call(n), "call", n)
        time.sleep(after)
        put(result(n), "result", n)
        n += 1
        time.sleep(max(0.0, start + n / rate - time.time()))
waiting = []  # (due, n): results to write (codex: commands overlap)
while fmt == "codex" and (time.time() - start < seconds or waiting):
    now = time.time()
    while waiting and waiting[0][0] <= now:
        put(result(waiting[0][1]), "result", waiting.pop(0)[1])
    if now - start < seconds and n < int((now - start) * rate) + 1:
        put(call(n), "call", n)
        waiting.append((now + after, n))
        n += 1
        continue
    time.sleep(0.001)
marks.close()
"""


FORMATS = ("claude-code", "codex", "openhands", "openhands-v1", "openhands-v1-folder")
FIRST = {
    "claude-code": {
        "sessionId": "bench",
        "uuid": "p",
        "type": "user",
        "message": {"role": "user", "content": "go"},
    },
    "codex": {"type": "thread.started", "thread_id": "bench"},
    "openhands": {"id": 0, "source": "user", "action": "message", "args": {"content": "go"}},
    "openhands-v1": {"kind": "SystemPromptEvent", "id": "sys", "source": "agent", "tools": []},
}
FIRST["openhands-v1-folder"] = FIRST["openhands-v1"]


def command_id(fmt: str, n: int) -> str:
    """The command id the importer gives the writer's call ``n``."""
    if fmt == "codex":
        return f"item_{n}"
    if fmt == "openhands":
        return str(n + 1)
    if fmt.startswith("openhands-v1"):
        return f"call_{n}"
    return f"toolu_{n}"


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--format", choices=FORMATS, default="claude-code")
    ap.add_argument("--rate", type=float, default=100.0, help="calls per second")
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--result-after", type=float, default=0.02, help="seconds a call runs")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "marks.txt")
        first = FIRST[args.format]
        if args.format.endswith("-folder"):
            path = os.path.join(tmp, "events")
            os.mkdir(path)
            with open(os.path.join(path, "event-00000-e0000000.json"), "w") as fh:
                fh.write(json.dumps(first) + "\n")
        else:
            path = os.path.join(tmp, "session.jsonl")
            with open(path, "w") as fh:
                fh.write(json.dumps(first) + "\n")
        run = open_path(path)[0]
        want = args.format.removesuffix("-folder")
        assert run.source_format == want, run.source_format
        running_at: dict[str, float] = {}
        row_at: dict[str, float] = {}
        order: list[str] = []
        lock = threading.Lock()
        follower: ForeignFollower

        def on_pending() -> None:
            now = time.time()
            with lock:
                for c in follower.running():
                    running_at.setdefault(str(c.span.command_id), now)

        def on_rows(first_row: int, items: object) -> None:
            now = time.time()
            with lock:
                for item in items:  # type: ignore[attr-defined]
                    cid = str(item.command_id)
                    order.append(cid)
                    row_at.setdefault(cid, now)

        follower = ForeignFollower(run, on_rows=on_rows, on_pending=on_pending)
        follower.start()
        time.sleep(0.3)  # the watcher is up
        subprocess.run(
            [
                sys.executable,
                "-c",
                WRITER,
                path,
                log,
                args.format,
                str(args.rate),
                str(args.seconds),
                str(args.result_after),
            ],
            check=True,
        )
        time.sleep(1.0)
        follower.stop()

        calls: dict[str, float] = {}
        results: dict[str, float] = {}
        numbers: dict[str, int] = {}
        with open(log) as fh:
            for text in fh:
                kind, n, t = text.split()
                key = command_id(args.format, int(n))
                numbers[key] = int(n)
                (calls if kind == "call" else results)[key] = float(t)
        expected = sorted(calls, key=numbers.__getitem__)
        seen_running = [running_at[k] - calls[k] for k in expected if k in running_at]
        complete = [row_at[k] - results[k] for k in expected if k in row_at]
        mode = "polling" if os.environ.get("TRACETUI_POLL") not in (None, "", "0") else "events"
        print(
            f"{args.format}, {mode}, {args.rate:g} calls/s for {args.seconds:g}s, "
            f"results after {args.result_after * 1000:.0f} ms: {len(expected)} calls"
        )
        for name, xs in (("call → running", seen_running), ("result → row", complete)):
            if not xs:
                print(f"  {name}: none seen")
                continue
            ms = [x * 1000 for x in xs]
            print(
                f"  {name:<15} n={len(ms):<5} p50 {statistics.median(ms):6.1f} ms  "
                f"p95 {percentile(ms, 95):6.1f} ms  max {max(ms):6.1f} ms"
            )
        dup = len(order) - len(set(order))
        lost = len(expected) - len(set(order))
        print(f"  rows in call order: {order == expected}; lost {lost}, twice {dup}")
        print(f"  calls seen running before their row: {len(seen_running)} of {len(expected)}")
        return 0 if order == expected else 1


if __name__ == "__main__":
    sys.exit(main())
