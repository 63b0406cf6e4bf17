"""Open the viewer headless on a big run and time what a person waits for.

Prints JSON lines for bench_index.py: time to the first rows on screen, time to a complete
index, and the time to render one screen of rows after jumping to the end (strip cache and
parsed-span cache cleared first, so every row is read from disk and drawn). Usage:
``python benchmarks/bench_tui_open.py PATH [--follow ROWS]``.

Also printed: the complete index from the process's start (imports included), and the time
to the index's retry chains (the viewer links them after it shows the list: the chain pane
says so meanwhile). The probe polls every 20 ms once the first rows show.

Without ``--follow`` the viewer is opened as ``view --no-follow`` opens it (``build_index``,
which reads the persistent index); with it, as a plain ``view`` does: the live follower reads
the run from its start, shows its index early and streams the rest in: the index is complete
once it holds ``ROWS`` rows (the run's rows, as ``build_index`` counts them).
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()
"""About when the process started (before the imports below and the viewer's own)."""

import asyncio  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402


async def measure(path: str, follow: bool = False, rows: int = 0) -> list[dict]:
    from tracetui.store.runset import open_path
    from tracetui.ui.app import TraceApp
    from tracetui.ui.widgets.span_list import SpanList

    t0 = time.perf_counter()
    app = TraceApp(open_path(path), follow=follow)
    first = ready = linked = ready_cpu = drawn = None
    cpu = time.process_time()
    async with app.run_test(size=(160, 48)) as pilot:
        spans = app.query_one(SpanList)
        drawn_at: list[float] = []
        while ready is None or linked is None or drawn is None:
            # Poll finely until the first rows show, then less: the probe must not be the load.
            await pilot.pause(0.005 if first is None else 0.02)
            now = time.perf_counter() - t0
            chains = app.chains
            if ready is not None and chains is not None and chains.index is app.index:
                linked = now
            if first is None and spans.view is not None and len(spans.view):
                first = now
            # Complete: the index shown is no longer the peek at the newest member's end, no
            # progress is shown, and (following: the follower shows its index early and streams
            # the rest in) it holds every row.
            index = app.index
            done = index is not None and not index.partial and len(index) >= rows
            if ready is None and done and not app.query_one("RunHeader").progress:
                ready = now
                ready_cpu = time.process_time() - cpu
                # Drawn: after the refresh after the next one (the next may have been queued
                # before the index was swapped in), as the app itself waits for it.
                app.call_after_refresh(
                    app.call_after_refresh, lambda: drawn_at.append(time.perf_counter())
                )
            if drawn is None and drawn_at:
                drawn = drawn_at[0] - t0
            if now > 600:
                raise SystemExit("gave up after 600 s")
        await pilot.press("G")
        await pilot.pause()
        height = spans.size.height
        spans._strips.clear()
        app.index._cache.clear()
        t = time.perf_counter()
        for y in range(height):
            spans.render_line(y)
        render = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return [
        {"name": "TUI first rows on screen", "seconds": first, "rss_mb": rss},
        {"name": "TUI complete index", "seconds": ready, "cpu": ready_cpu, "rss_mb": rss},
        {"name": "TUI complete index from process start", "seconds": ready + t0 - STARTED},
        {"name": "TUI complete index drawn", "seconds": drawn},
        {"name": "TUI chains linked", "seconds": linked, "rss_mb": rss},
        {"name": f"TUI render {height} rows at the end", "seconds": render, "rss_mb": rss},
    ]


if __name__ == "__main__":
    follow = sys.argv[2:3] == ["--follow"]
    for row in asyncio.run(measure(sys.argv[1], follow, int(sys.argv[3]) if follow else 0)):
        print(json.dumps(row))
