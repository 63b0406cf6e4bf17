"""Live following in the viewer: append-to-visible latency in a headless app.

A writer thread appends records (rotating every 64 KiB) to a run the viewer follows, at a
fixed rate; the app is the real ``TraceApp`` run headless (``run_test``). For each record we
take the time from its write to the moment the list took it in (``rows_appended`` done, the
row on screen at the next refresh), and check that none was lost or taken twice.

    .venv/bin/python benchmarks/bench_live_ui.py [--seconds 3] [--rates 20,500,2000]

Target (SPEC §5): new spans appear within 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import threading
import time

from tracetui.record.rotate import append_record
from tracetui.store.runset import open_paths
from tracetui.ui import app as app_module
from tracetui.ui.app import TraceApp
from tracetui.ui.live import LiveUpdate


class ProbeApp(TraceApp):
    """Stamps each row when the list has taken it in."""

    CSS_PATH = os.path.join(os.path.dirname(app_module.__file__), TraceApp.CSS_PATH)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.written: dict[str, float] = {}
        self.seen: dict[str, float] = {}
        self.dupes = 0
        self._done = 0

    def on_live_update(self, msg: LiveUpdate) -> None:
        super().on_live_update(msg)
        now = time.perf_counter()
        view = self.spans.view
        if self.index is None or view is None:
            return
        for row in range(self._done, len(view)):
            cid = self.index.ids[view.row_at(row)]
            if cid in self.seen:
                self.dupes += 1
            elif cid is not None:
                self.seen[cid] = now
        self._done = len(view)


def record(n: int) -> dict[str, object]:
    return {
        "schema": "tracetui/1",
        "span_type": "tool",
        "command_id": f"ui{n:08d}",
        "argv": ["bench", str(n)],
        "exit_code": 1 if n % 50 == 0 else 0,
        "stdout_bytes": 10,
        "stderr_bytes": 0,
        "stdout_cap": 8192,
        "stderr_cap": 8192,
        "stdout_truncated": False,
        "stderr_truncated": False,
        "preview_stdout": "0123456789",
    }


async def probe(rate: float, seconds: float) -> dict[str, object]:
    folder = tempfile.mkdtemp(prefix="tracetui-bench-ui-")
    base = os.path.join(folder, "run.jsonl")
    open(base, "wb").close()
    app = ProbeApp(open_paths([base]), follow=True)
    stop = threading.Event()
    total = int(rate * seconds)

    def writer() -> None:
        start = time.perf_counter()
        for n in range(total):
            due = start + n / rate
            while (now := time.perf_counter()) < due:
                time.sleep(min(0.001, due - now))
            rec = record(n)
            app.written[str(rec["command_id"])] = time.perf_counter()
            append_record(base, rec, 64 * 1024, 50)
            if stop.is_set():
                return

    async with app.run_test(size=(120, 40)) as pilot:
        while app.live.follower is None or app.index is None or app.live.waiter is None:
            await pilot.pause(0.01)
        thread = threading.Thread(target=writer)
        thread.start()
        deadline = time.perf_counter() + seconds + 5
        while len(app.seen) < total and time.perf_counter() < deadline:
            await asyncio.sleep(0.05)  # the app's own loop does the work meanwhile
        stop.set()
        thread.join()
    lat = sorted((app.seen[k] - t) * 1000 for k, t in app.written.items() if k in app.seen)
    return {
        "rate": rate,
        "records": total,
        "lost": total - len(lat),
        "duplicated": app.dupes,
        "p50": statistics.median(lat) if lat else float("nan"),
        "p95": lat[int(len(lat) * 0.95) - 1] if lat else float("nan"),
        "max": lat[-1] if lat else float("nan"),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--rates", default="20,500,2000")
    args = p.parse_args()
    mode = "polling" if os.environ.get("TRACETUI_POLL", "") not in ("", "0") else "events"
    print("| mode | rate | p50 | p95 | max | lost / duplicated |")
    print("|---|---:|---:|---:|---:|---|")
    for rate in (float(r) for r in args.rates.split(",")):
        r = asyncio.run(probe(rate, args.seconds))
        print(
            f"| {mode} | {rate:,.0f}/s | {r['p50']:.1f} ms | {r['p95']:.1f} ms | {r['max']:.1f} ms "
            f"| {r['lost']} / {r['duplicated']} |"
        )


if __name__ == "__main__":
    main()
