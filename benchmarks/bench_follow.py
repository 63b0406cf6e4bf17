"""Live following: append-to-visible latency and idle CPU of a follower.

A writer process appends records carrying their write time, at a fixed rate, rotating the base
by rename every 256 KiB. A follower thread (``Follower.start()``) timestamps each record as it
reaches ``on_rows``. We report p50/p95/max latency and check that no record was lost or seen
twice. Then a follower watches an idle run for 10 s and we report the CPU it used.

    .venv/bin/python benchmarks/bench_follow.py [--seconds 4] [--idle 10]

Targets (SPEC §5): p95 ≤ 100 ms; idle CPU < 1 % of one core.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from tracetui.live.follow import Follower
from tracetui.store.reader import BadLine
from tracetui.store.runset import open_path

WRITER = r"""
import json, os, sys, time
base, rate, seconds, max_bytes, keep = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), 4
def rotate():
    if os.path.exists(f"{base}.{keep}"):
        os.unlink(f"{base}.{keep}")
    for i in range(keep - 1, 0, -1):
        if os.path.exists(f"{base}.{i}"):
            os.rename(f"{base}.{i}", f"{base}.{i + 1}")
    os.rename(base, base + ".1")
n = 0
start = time.time()
size = os.path.getsize(base)
while True:
    now = time.time()
    if now - start >= seconds:
        break
    due = int((now - start) * rate) + 1
    while n < due:
        line = (json.dumps({"schema": "tracetui/1", "span_type": "tool", "command_id": f"b{n:08d}",
                            "argv": ["bench", str(n)], "exit_code": 0, "stdout_bytes": 10,
                            "stderr_bytes": 0, "stdout_cap": 8192, "stderr_cap": 8192,
                            "stdout_truncated": False, "stderr_truncated": False,
                            "t": time.time()}) + "\n").encode()
        if size + len(line) > max_bytes:
            rotate()
            size = 0
        with open(base, "ab") as fh:
            fh.write(line)
        size += len(line)
        n += 1
    time.sleep(0.0005)
print(n)
"""


def cpu_seconds() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def latency_run(rate: float, seconds: float, poll: bool) -> dict[str, object]:
    os.environ["TRACETUI_POLL"] = "1" if poll else "0"
    folder = tempfile.mkdtemp(prefix="tracetui-bench-")
    base = os.path.join(folder, "run.jsonl")
    open(base, "wb").close()
    lat: list[float] = []
    ids: list[str] = []
    bad = 0
    done = threading.Event()

    def on_rows(first: int, items: list[object]) -> None:
        nonlocal bad
        now = time.time()
        for item in items:
            if isinstance(item, BadLine):
                bad += 1
                continue
            ids.append(item.command_id)  # type: ignore[attr-defined]
            lat.append(now - item.raw["t"])  # type: ignore[attr-defined]
        done.set()

    follower = Follower(open_path(base)[0], on_rows=on_rows)
    follower.start()
    time.sleep(0.6)  # let the watcher come up, as it would in the UI
    out = subprocess.run(
        [sys.executable, "-c", WRITER, base, str(rate), str(seconds), str(256 << 10)],
        capture_output=True,
        text=True,
        check=True,
    )
    written = int(out.stdout)
    deadline = time.time() + 5
    while len(ids) < written and time.time() < deadline:
        done.wait(0.1)
        done.clear()
    follower.stop()
    expected = [f"b{i:08d}" for i in range(written)]
    lat_ms = sorted(x * 1000 for x in lat)
    return {
        "mode": "poll" if poll else "events",
        "rate": rate,
        "written": written,
        "seen": len(ids),
        "lost": len(set(expected) - set(ids)),
        "dup": len(ids) - len(set(ids)),
        "in_order": ids == expected,
        "bad": bad,
        "p50": statistics.median(lat_ms) if lat_ms else float("nan"),
        "p95": lat_ms[int(len(lat_ms) * 0.95) - 1] if lat_ms else float("nan"),
        "max": lat_ms[-1] if lat_ms else float("nan"),
    }


def idle_run(seconds: float, poll: bool) -> float:
    os.environ["TRACETUI_POLL"] = "1" if poll else "0"
    folder = tempfile.mkdtemp(prefix="tracetui-bench-")
    base = os.path.join(folder, "run.jsonl")
    with open(base, "wb") as fh:
        fh.write(b'{"schema": "tracetui/1", "command_id": "x", "argv": ["true"], "exit_code": 0}\n')
    follower = Follower(open_path(base)[0])
    follower.start()
    time.sleep(1.0)  # start-up (catch-up, watcher thread) is not idle time
    c0, t0 = cpu_seconds(), time.monotonic()
    time.sleep(seconds)
    c1, t1 = cpu_seconds(), time.monotonic()
    follower.stop()
    return 100.0 * (c1 - c0) / (t1 - t0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=4.0, help="writer run time per rate")
    ap.add_argument("--idle", type=float, default=10.0, help="idle measurement time")
    args = ap.parse_args()
    print(
        f"{'mode':<7} {'rate/s':>7} {'written':>8} {'seen':>8} {'lost':>5} {'dup':>4} "
        f"{'order':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}"
    )
    ok = True
    for poll in (False, True):
        for rate in (500.0, 2000.0):
            r = latency_run(rate, args.seconds, poll)
            ok = ok and r["lost"] == 0 and r["dup"] == 0 and bool(r["in_order"])
            print(
                f"{r['mode']:<7} {rate:>7.0f} {r['written']:>8} {r['seen']:>8} {r['lost']:>5} "
                f"{r['dup']:>4} {'yes' if r['in_order'] else 'NO':>6} {r['p50']:>8.1f} "
                f"{r['p95']:>8.1f} {r['max']:>8.1f}"
            )
    print()
    print(f"{'mode':<7} {'idle CPU (% of one core)':>26}")
    for poll in (False, True):
        pct = idle_run(args.idle, poll)
        print(f"{'poll' if poll else 'events':<7} {pct:>25.2f}%")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
