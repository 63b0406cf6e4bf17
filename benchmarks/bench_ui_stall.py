"""How long the viewer's UI thread stops answering while it opens a big run and goes to ids.

A timer on the app ticks every 5 ms; a stall is the longest gap between two ticks, less the
5 ms, over a stretch of time. Printed as JSON lines (seconds):

- the open: the longest stall from the first tick (the peek is shown) until 1 s after the
  chains are linked (the complete index's arrival, drawing the list, the collector's pass
  after it, the chains' arrival), and how long each collector's pass the app made took;
- ``g`` with each query given (``Navigation.goto``, as Enter in its prompt calls it): the
  longest stall from the call until its answer is shown (the selection moved or a
  notification), twice each: the first searches the id column as it first is.

Usage: ``python benchmarks/bench_ui_stall.py PATH [QUERY...]`` (view --no-follow's open).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
import time
from typing import Any


async def measure(path: str, queries: list[str]) -> list[dict[str, Any]]:
    import tracetui.ui.app as app_module
    from tracetui.store.runset import open_path
    from tracetui.ui.app import TraceApp

    settled: list[tuple[str, float]] = []
    for name in ("_settle_heap", "_freeze_young"):  # the pass after the draw (either, by tree)
        plain = getattr(app_module, name, None)
        if plain is not None:
            setattr(app_module, name, _timed(name, plain, settled))
    app = TraceApp(open_path(path), follow=False)
    ticks: list[float] = []
    rows: list[dict[str, Any]] = []

    def stall(since: float, until: float) -> float:
        inside = [t for t in ticks if since <= t <= until]
        gaps = [b - a for a, b in itertools.pairwise(inside)]
        return max(0.0, max(gaps, default=until - since) - 0.005)

    async with app.run_test(size=(160, 48)) as pilot:
        app.set_interval(0.005, lambda: ticks.append(time.perf_counter()))
        ready = linked = None
        while linked is None or time.perf_counter() - linked < 1.0:
            await pilot.pause(0.02)
            index = app.index
            if ready is None and index is not None and not index.partial:
                ready = time.perf_counter()
            chains = app.chains
            if (
                ready is not None
                and linked is None
                and chains is not None
                and chains.index is index
            ):
                linked = time.perf_counter()
        assert ready is not None
        rows.append(
            {
                "name": "open: longest stall, the peek shown to the chains",
                "seconds": stall(ticks[0], time.perf_counter()),
            }
        )
        for name, seconds in settled:
            rows.append({"name": f"open: {name}", "seconds": seconds})
        for query in queries:
            for attempt in ("first", "again"):
                await pilot.pause(0.2)
                before_row = app.selected_row
                notes = len(app._notifications)
                start = time.perf_counter()
                app.goto(query)
                while app.selected_row == before_row and len(app._notifications) == notes:
                    await pilot.pause(0.005)
                    if time.perf_counter() - start > 120:
                        raise SystemExit("no answer after 120 s")
                end = time.perf_counter()
                await pilot.pause(0.05)
                rows.append(
                    {
                        "name": f"g {query!r} ({attempt}): longest stall",
                        "seconds": stall(start - 0.01, end),
                        "answered": end - start,
                    }
                )
                app.select_row(0)
    return rows


def _timed(name: str, call: Any, into: list[tuple[str, float]]) -> Any:
    def timed() -> None:
        t = time.perf_counter()
        call()
        into.append((name, time.perf_counter() - t))

    return timed


if __name__ == "__main__":
    for row in asyncio.run(measure(sys.argv[1], sys.argv[2:])):
        print(json.dumps(row))
