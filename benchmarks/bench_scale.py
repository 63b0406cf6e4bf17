"""Does the work grow linearly with the input? Times at doubling sizes, and the ratio per doubling.

Three probes, each on inputs generated in a temporary folder:

- ``dir``: ``tracetui summary DIR --json`` on a directory of N tiny runs (one span each);
- ``export``: ``tracetui export --otlp-json OUT RUN`` on one run holding a single retry chain
  of N spans (each span a retry of the one before);
- ``viewer``: the viewer opened headless on that chain run, until the chain pane has drawn,
  then ``]`` pressed a few times (stepping along the chain).

The CLI probes run in their own process (start-up included, as a user waits for it). Linear
work doubles when the input doubles: a ratio near 2 per doubling is linear, near 4 quadratic.
Usage: ``python benchmarks/bench_scale.py [--probe dir|export|viewer] [--sizes 500,1000,…]``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

DEFAULT_SIZES = {
    "dir": [500, 1000, 2000, 4000],
    "export": [1000, 2000, 4000, 8000],
    "viewer": [1500, 3000, 6000],
}


def record(cid: str, parent: str | None) -> dict[str, Any]:
    return {
        "schema": "tracetui/1",
        "span_type": "tool",
        "command_id": cid,
        "parent_command_id": parent,
        "tool_name": "pytest",
        "argv": ["pytest", "-x", "tests/"],
        "cwd": ".",
        "started_at": "2026-11-02T09:00:00Z",
        "duration_ms": 1200,
        "exit_code": 1,
        "stdout_bytes": 20000,
        "stdout_cap": 8192,
        "stdout_truncated": True,
        "preview_stdout": "FAILED tests/test_x.py::test_y\n",
        "stderr_bytes": 0,
        "stderr_cap": 8192,
        "stderr_truncated": False,
        "preview_stderr": "",
    }


def make_dir(folder: str, n: int) -> str:
    """A directory of ``n`` runs of one span each (some with rotated members)."""
    root = os.path.join(folder, f"dir{n}")
    os.mkdir(root)
    line = (json.dumps(record("c", None)) + "\n").encode()
    for i in range(n):
        base = os.path.join(root, f"run{i:05d}.jsonl")
        with open(base, "wb") as fh:
            fh.write(line)
        if i % 10 == 0:  # a tenth of them rotated once, so members are listed too
            with open(base + ".1", "wb") as fh:
                fh.write(line)
    return root


def make_chain(folder: str, n: int) -> str:
    """One run whose ``n`` spans are one retry chain: span i retries span i-1."""
    path = os.path.join(folder, f"chain{n}.jsonl")
    with open(path, "wb") as fh:
        for i in range(n):
            rec = record(f"s{i}", f"s{i - 1}" if i else None)
            fh.write((json.dumps(rec) + "\n").encode())
    return path


def timed_cli(args: list[str]) -> float:
    t = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "tracetui", *args], capture_output=True, check=False
    )
    took = time.perf_counter() - t
    if done.returncode not in (0, 1):
        raise SystemExit(f"{args}: exit {done.returncode}: {done.stderr.decode()[-500:]}")
    return took


async def open_viewer(path: str, steps: int) -> tuple[float, float]:
    """Seconds until the chain pane has drawn the chain, and for ``steps`` steps back along it."""
    from tracetui.store.runset import open_path
    from tracetui.ui.app import TraceApp
    from tracetui.ui.widgets.chain import ChainPane

    t = time.perf_counter()
    app = TraceApp(open_path(path), follow=False)
    async with app.run_test(size=(160, 48)) as pilot:
        pane = app.query_one(ChainPane)
        while not pane.order:
            await pilot.pause(0.01)
            if time.perf_counter() - t > 600:
                raise SystemExit("gave up after 600 s")
        await pilot.pause()
        opened = time.perf_counter() - t
        t = time.perf_counter()
        for _ in range(steps):
            await pilot.press("[")
            await pilot.pause()
        stepped = time.perf_counter() - t
    return opened, stepped


def timed_viewer(path: str, steps: int) -> tuple[float, float]:
    # In a child process, so each size starts from a cold interpreter like the CLI probes.
    code = (
        "import asyncio, sys; sys.path.insert(0, 'benchmarks'); import bench_scale; "
        f"print(*asyncio.run(bench_scale.open_viewer({path!r}, {steps})))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"viewer: {done.stderr.decode()[-800:]}")
    opened, stepped = done.stdout.decode().split()[-2:]
    return float(opened), float(stepped)


def probe(name: str, folder: str, n: int, steps: int) -> tuple[float, ...]:
    """Seconds for one probe at size ``n`` (the viewer: to open, then for its steps)."""
    if name == "dir":
        return (timed_cli(["summary", make_dir(folder, n), "--json"]),)
    path = make_chain(folder, n)
    if name == "export":
        return (timed_cli(["export", "--otlp-json", os.path.join(folder, "out.json"), path]),)
    return timed_viewer(path, steps)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probe", choices=sorted(DEFAULT_SIZES), action="append")
    ap.add_argument("--sizes", help="comma-separated sizes (default per probe)")
    ap.add_argument("--repeat", type=int, default=1, help="best of this many runs per size")
    ap.add_argument("--steps", type=int, default=5, help="viewer: steps along the chain timed")
    args = ap.parse_args()
    for name in args.probe or ["dir", "export", "viewer"]:
        sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else DEFAULT_SIZES[name]
        previous: tuple[float, ...] = ()
        for n in sizes:
            runs = []
            for _ in range(args.repeat):
                with tempfile.TemporaryDirectory(prefix="tt-scale-") as folder:
                    runs.append(probe(name, folder, n, args.steps))
            best = tuple(min(column) for column in zip(*runs, strict=True))
            out: dict[str, Any] = {"probe": name, "n": n, "seconds": round(best[0], 3)}
            if len(best) > 1:
                out[f"{args.steps} steps"] = round(best[1], 3)
            if previous:
                out["ratio"] = "/".join(
                    f"{b / p:.2f}x" for b, p in zip(best, previous, strict=True)
                )
            print(json.dumps(out))
            previous = best


if __name__ == "__main__":
    main()
