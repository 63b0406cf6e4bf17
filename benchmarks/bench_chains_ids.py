"""Retry chains and the viewer's id table, this tree against a baseline copy, interleaved.

Each probe runs in a fresh process per tree (``PYTHONPATH`` = the tree, run from a neutral
folder so the working tree's package is not found first, bytecode cached), repeat by repeat,
each tree with its own ``XDG_CACHE_HOME`` (the index cache's entries are keyed on the code that made them, so two
trees sharing one would rebuild each other's):

- ``groups``: ``ChainIndex(index).groups()`` on a warm-built index (its ids owed, as in a cold
  ``summary``), and ``prepare``: ``ChainIndex(index).prepare()`` after the registry is settled
  (as on the viewer's indexing thread);
- ``table``: ``ids.table_for(index)`` on a warm-built, settled index (a tree that keeps the
  table in the cache restores it; the first, unmeasured, open of each tree fills its cache),
  and ``table-cold``: the same with no kept table (removed first: built, and kept again);
- ``summary``: a cold ``tracetui summary --json`` (an empty cache each time);
- ``viewer``: ``bench_tui_open.py``'s time to the complete index, warm.

Prints best-of-N wall seconds and the CPU seconds of that same run, per tree, and the machine's
load before and after. Usage::

    python benchmarks/bench_chains_ids.py --baseline DIR --data /tmp/j/big200 \
        [--probes groups,prepare,table,table-cold,summary,viewer] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

PROBE = r"""
import gc, json, sys, time
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

probe, path = sys.argv[1], sys.argv[2]
run = open_path(path)[0]
index = build_index(run)
if probe in ("table", "table-cold", "prepare"):
    index.settle_ids()
if probe == "table-cold":  # no kept table: built from the ids (and kept again)
    import glob, os
    for kept in glob.glob(os.path.join(os.environ["XDG_CACHE_HOME"], "tracetui", "index", "*.ids")):
        os.unlink(kept)
gc.collect()
t0, c0 = time.perf_counter(), time.process_time()
if probe == "groups":
    from tracetui.analysis.chains import ChainIndex
    ChainIndex(index).groups()
elif probe == "prepare":
    from tracetui.analysis.chains import ChainIndex
    ChainIndex(index).prepare()
else:
    from tracetui.store.ids import table_for
    table_for(index)
print(json.dumps({"wall": time.perf_counter() - t0, "cpu": time.process_time() - c0}))
"""


def child(tree: str, home: str, pycache: str, argv: list[str]) -> tuple[float, float, str]:
    """``(wall, cpu of the child, stdout)`` of one child process."""
    env = dict(os.environ, PYTHONPATH=os.path.abspath(tree), XDG_CACHE_HOME=home)
    env.pop("TRACETUI_NO_CACHE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, as an installed package has it
    env["PYTHONPYCACHEPREFIX"] = pycache
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(
        argv, env=env, cwd=tempfile.gettempdir(), capture_output=True, text=True, check=True
    ).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def measure(probe: str, tree: str, home: str, data: str) -> tuple[float, float]:
    """``(wall, cpu)`` of one run of ``probe`` in ``tree``."""
    py = sys.executable
    pycache = home + "-pycache"  # one per tree, kept across its cold caches
    if probe in ("groups", "prepare", "table", "table-cold"):
        _w, _c, out = child(tree, home, pycache, [py, "-c", PROBE, probe, data])
        got = json.loads(out.strip().splitlines()[-1])
        return got["wall"], got["cpu"]
    if probe == "summary":
        os.makedirs(home, exist_ok=True)
        cold = tempfile.mkdtemp(prefix="cold-", dir=home)
        wall, cpu, _out = child(
            tree, cold, pycache, [py, "-m", "tracetui", "summary", "--json", data]
        )
        return wall, cpu
    _w, cpu, out = child(tree, home, pycache, [py, os.path.join(HERE, "bench_tui_open.py"), data])
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return next(r["seconds"] for r in rows if r["name"] == "TUI complete index"), cpu


def load() -> str:
    with open("/proc/loadavg") as fh:
        return fh.read().strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="a copy of another version's package")
    ap.add_argument("--tree", default=os.path.dirname(HERE), help="this version's package root")
    ap.add_argument("--data", required=True)
    ap.add_argument("--probes", default="groups,prepare,table,summary,viewer")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data = os.path.abspath(args.data)  # the children run from a neutral folder
    work = tempfile.mkdtemp(prefix="bench-chains-ids-")
    trees = {"baseline": args.baseline, "this tree": args.tree}
    homes = {name: os.path.join(work, f"xdg-{i}") for i, name in enumerate(trees)}
    print("load before:", load())
    try:
        for name, tree in trees.items():  # fill each tree's cache (index, and a kept id table)
            measure("table", tree, homes[name], data)
        for probe in args.probes.split(","):
            best: dict[str, tuple[float, float]] = {}
            for _ in range(args.repeat):
                for name, tree in trees.items():
                    got = measure(probe, tree, homes[name], data)
                    if name not in best or got[0] < best[name][0]:
                        best[name] = got
            base = best["baseline"][0]
            for name, (wall, cpu) in best.items():
                ratio = base / wall if wall else float("inf")
                print(f"{probe:8} {name:10} best {wall:7.3f} s  cpu {cpu:7.3f} s  ({ratio:.2f}x)")
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the caches: ~100 MB a tree at 200k spans
    print("load after:", load())


if __name__ == "__main__":
    main()
