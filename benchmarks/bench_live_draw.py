"""Live viewer, end to end: from a record's append to its row drawn, and the viewer's idle CPU.

Latency: a writer *process* appends records at a fixed rate (500, 1,000 and 2,000 a second by
default), each stamped with its write time (``"t"``, ``time.time()``), rotating the base by
rename every 256 KiB (64 generations kept: none is deleted before the rows are checked). The viewer is the real ``TraceApp`` run headless (``App.run_test``,
120x40) following the run. Each record is stamped twice in the viewer's process:

* *taken*: when the span list took the row in (``LiveUpdate`` handled, ``rows_appended`` done);
* *drawn*: when the span list's ``render_line`` first drew that row, or a later one: at
  2,000 a second a frame may bring more rows than the list is high, and a row scrolled past
  between two frames is counted at the frame that showed the rows after it.

Idle CPU: ``tracetui view RUN`` in a real terminal (a private ``tmux`` server, 120x40) on a run
nobody writes; its process's CPU time (``/proc/PID/stat`` utime + stime) over 10 s, after a
few seconds to settle. Measured with file-system events and with ``TRACETUI_POLL=1``.

The machine's load (``/proc/loadavg``) is printed before and after: it is shared; compare the
rates with each other, within one run. Usage::

    .venv/bin/python benchmarks/bench_live_draw.py [--seconds 4] [--rates 500,1000,2000]
        [--idle 10] [--no-idle] [--against DIR [--rounds 3]]

``--against DIR`` measures another checkout's code (a ``git worktree add DIR COMMIT`` with its
compiled extensions copied in) in turns with this one, ``--rounds`` times each, latency only:
on a shared machine the load moves from minute to minute, and only turns compare.

Target (issue 18, item 5): p95 ≤ 100 ms from append to drawn at 2,000 spans/s; idle < 1 %.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from textual.strip import Strip

from tracetui.store.runset import open_paths
from tracetui.ui import app as app_module
from tracetui.ui.app import TraceApp
from tracetui.ui.live import LiveUpdate
from tracetui.ui.widgets.span_list import SpanList

WRITER = r"""
import json, os, sys, time
base, rate, seconds, max_bytes, keep = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), 64
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
        line = (json.dumps({"schema": "tracetui/1", "span_type": "tool", "command_id": f"d{n:08d}",
                            "argv": ["bench", str(n)], "exit_code": 1 if n % 50 == 0 else 0,
                            "stdout_bytes": 10, "stderr_bytes": 0, "stdout_cap": 8192,
                            "stderr_cap": 8192, "stdout_truncated": False,
                            "stderr_truncated": False, "t": time.time()}) + "\n").encode()
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


class ProbeApp(TraceApp):
    """Stamps each row when the list took it in."""

    CSS_PATH = os.path.join(os.path.dirname(app_module.__file__), TraceApp.CSS_PATH)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.taken: list[float] = []
        """``taken[pos]``: when view position ``pos`` was first in the list."""
        self.drawn: list[float] = []
        """``drawn[pos]``: when the list first drew position ``pos`` or a later one."""
        self.exact = 0
        """Rows drawn themselves (the rest were scrolled past between two frames)."""

    def on_live_update(self, msg: LiveUpdate) -> None:
        super().on_live_update(msg)
        view = self.spans.view
        if view is not None and len(view) > len(self.taken):
            now = time.time()
            self.taken.extend([now] * (len(view) - len(self.taken)))


def install_draw_probe() -> None:
    """Wrap ``SpanList.render_line``: the first drawing of a row (or a later one) stamps it."""
    original = SpanList.render_line

    def render_line(self: SpanList, y: int) -> Strip:
        strip = original(self, y)
        app = self.app
        view = self.view
        if isinstance(app, ProbeApp) and view is not None:
            pos = int(self.scroll_y) + y
            if len(app.drawn) <= pos < len(view):
                if pos == len(app.drawn):
                    app.exact += 1
                app.drawn.extend([time.time()] * (pos + 1 - len(app.drawn)))
        return strip

    SpanList.render_line = render_line  # type: ignore[method-assign]


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(len(values) * q) - 1))]


async def latency_run(rate: float, seconds: float) -> dict[str, object]:
    folder = tempfile.mkdtemp(prefix="tracetui-bench-draw-")
    base = os.path.join(folder, "run.jsonl")
    open(base, "wb").close()
    app = ProbeApp(open_paths([base]), follow=True)
    async with app.run_test(size=(120, 40)) as pilot:
        while app.live.follower is None or app.index is None or app.live.waiter is None:
            await pilot.pause(0.01)
        await asyncio.sleep(0.6)  # the watcher thread comes up, as it would for a user
        cpu0 = cpu_seconds()
        writer = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            WRITER,
            base,
            str(rate),
            str(seconds),
            str(256 << 10),
            stdout=asyncio.subprocess.PIPE,
        )
        out, _ = await writer.communicate()  # the app's loop runs meanwhile
        written = int(out)
        deadline = time.time() + 5
        while len(app.drawn) < written and time.time() < deadline:
            await asyncio.sleep(0.05)
        cpu = cpu_seconds() - cpu0
        index = app.index
        view = app.spans.view
        assert index is not None and view is not None
        stamps = []
        ids = []
        for pos in range(len(view)):
            span = index.get(view.row_at(pos))
            raw = getattr(span, "raw", None) or {}
            stamps.append(float(raw.get("t", 0.0)))
            ids.append(str(raw.get("command_id", "")))
    shutil.rmtree(folder, ignore_errors=True)
    n = min(len(stamps), len(app.drawn))
    drawn = [(app.drawn[i] - stamps[i]) * 1000 for i in range(n)]
    taken = [(app.taken[i] - stamps[i]) * 1000 for i in range(min(len(stamps), len(app.taken)))]
    expected = [f"d{i:08d}" for i in range(written)]
    wrong = next((i for i, (a, b) in enumerate(zip(ids, expected, strict=False)) if a != b), None)
    if wrong is not None or len(ids) != written:
        # Say where, so a lost, doubled or misplaced row can be looked into.
        at = wrong if wrong is not None else min(len(ids), written)
        print(f"  rows differ from row {at}: {ids[at : at + 3]} for {expected[at : at + 3]}")
    return {
        "rate": rate,
        "written": written,
        "drawn": n,
        "exact": app.exact,
        "in_order": ids == expected,
        "taken_p50": statistics.median(taken) if taken else float("nan"),
        "taken_p95": pct(taken, 0.95),
        "p50": statistics.median(drawn) if drawn else float("nan"),
        "p95": pct(drawn, 0.95),
        "max": max(drawn) if drawn else float("nan"),
        "cpu_ms_per_1000": 1000 * cpu / max(1, written) * 1000,
    }


def cpu_seconds() -> float:
    """CPU time of this process (the viewer's threads; the writer is another process)."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_run(seconds: float, poll: bool) -> float | None:
    """Idle CPU (% of one core) of ``tracetui view`` in a tmux pane; None without tmux."""
    tmux = shutil.which("tmux")
    if tmux is None:
        return None
    folder = tempfile.mkdtemp(prefix="tracetui-bench-idle-")
    base = os.path.join(folder, "run.jsonl")
    with open(base, "wb") as fh:
        for n in range(200):
            fh.write(
                b'{"schema": "tracetui/1", "command_id": "i%05d", "argv": ["true"], '
                b'"exit_code": %d}\n' % (n, 1 if n % 7 == 0 else 0)
            )
    sock = os.path.join(folder, "tmux.sock")
    exe = os.path.join(os.path.dirname(sys.executable), "tracetui")
    env = f"TRACETUI_POLL={1 if poll else 0} XDG_CACHE_HOME={folder}/cache"
    command = f"exec env {env} {exe} view {base}"
    subprocess.run(
        [tmux, "-S", sock, "new-session", "-d", "-x", "120", "-y", "40", command], check=True
    )
    try:
        pid = int(
            subprocess.run(
                [tmux, "-S", sock, "display-message", "-p", "#{pane_pid}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        time.sleep(4.0)  # start-up (imports, catch-up, first frames) is not idle time
        c0, t0 = proc_cpu(pid), time.monotonic()
        time.sleep(seconds)
        c1, t1 = proc_cpu(pid), time.monotonic()
        return 100.0 * (c1 - c0) / (t1 - t0)
    finally:
        subprocess.run([tmux, "-S", sock, "kill-server"], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def loadavg() -> str:
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


def in_turns(against: str, rounds: int, seconds: float, rates: str) -> int:
    """Run this benchmark on ``against``'s code and on this checkout's, in turns."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    codes = [("before", os.path.abspath(against)), ("after", here)]
    print(f"load before: {loadavg()}  ({os.cpu_count()} cores)")
    print(
        "| code, round | mode | rate | written / drawn | in order | taken p50 / p95 | drawn p50 "
        "| drawn p95 | max | viewer CPU per 1,000 spans |"
    )
    print("|---|---|---:|---|---|---:|---:|---:|---:|---:|")
    ok = True
    for n in range(1, rounds + 1):
        for label, root in codes:
            script = os.path.join(root, "benchmarks", "bench_live_draw.py")
            argv = [sys.executable, script, "--seconds", str(seconds), "--rates", rates]
            env = {**os.environ, "PYTHONPATH": root}
            got = subprocess.run([*argv, "--no-idle"], env=env, capture_output=True, text=True)
            ok = ok and got.returncode == 0
            for line in got.stdout.splitlines():
                if line.startswith("| events") or line.startswith("| polling"):
                    print(f"| {label} {n} {line}")  # the child's row, after the code
            print(f"  (load {loadavg()})")
    return 0 if ok else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=4.0, help="writer run time per rate")
    p.add_argument("--rates", default="500,1000,2000")
    p.add_argument("--idle", type=float, default=10.0, help="idle measurement time (s)")
    p.add_argument("--no-idle", action="store_true", help="skip the idle CPU measurement")
    p.add_argument("--against", metavar="DIR", help="another checkout, measured in turns")
    p.add_argument("--rounds", type=int, default=3, help="turns of each with --against")
    args = p.parse_args()
    if args.against:
        return in_turns(args.against, args.rounds, args.seconds, args.rates)
    install_draw_probe()
    mode = "polling" if os.environ.get("TRACETUI_POLL", "") not in ("", "0") else "events"
    print(f"load before: {loadavg()}  ({os.cpu_count()} cores)")
    print(
        "| mode | rate | written / drawn | in order | taken p50 / p95 | drawn p50 | drawn p95 | max "
        "| viewer CPU per 1,000 spans |"
    )
    print("|---|---:|---|---|---:|---:|---:|---:|---:|")
    ok = True
    for rate in (float(r) for r in args.rates.split(",")):
        r = asyncio.run(latency_run(rate, args.seconds))
        ok = ok and r["written"] == r["drawn"] and bool(r["in_order"])
        print(
            f"| {mode} | {rate:,.0f}/s | {r['written']} / {r['drawn']} "
            f"| {'yes' if r['in_order'] else 'NO'} "
            f"| {r['taken_p50']:.1f} / {r['taken_p95']:.1f} ms | {r['p50']:.1f} ms "
            f"| {r['p95']:.1f} ms | {r['max']:.1f} ms | {r['cpu_ms_per_1000']:.0f} ms |"
        )
    print(f"load after: {loadavg()}")
    if not args.no_idle:
        for poll in (False, True):
            got = idle_run(args.idle, poll)
            name = "polling" if poll else "events"
            if got is None:
                print(f"idle CPU ({name}): skipped, tmux not installed")
            else:
                print(f"idle CPU ({name}), `tracetui view` over {args.idle:.0f} s: {got:.2f} %")
        print(f"load after idle: {loadavg()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
