"""The C scanner alone, against a baseline build of it: wall and CPU seconds, best of N.

Each member of a set is read into memory once, then scanned in 4 MiB windows the way
``tracetui.store.fastindex.scan_stream`` feeds the scanner (a window starts at the first byte
the previous scan left unconsumed), so the figures hold the scanner's own work and no file
reading. The baseline is another compiled ``_scan`` module (a copy of the ``.so`` taken before a
change), loaded under another name; the two are run in turn, repeat by repeat, and every
window's result is compared, so a faster scanner that answers differently is reported as such.

Usage: ``python benchmarks/bench_scan_words.py [--data DIR] [--baseline SO] [--repeat N]``
"""

from __future__ import annotations

import argparse
import glob
import importlib.machinery
import importlib.util
import os
import sys
import time
from types import ModuleType
from typing import Any

from tracetui.model import markers, marks
from tracetui.store import fastindex
from tracetui.store.reader import MAX_LINE


def load_scanner(path: str) -> ModuleType:
    """A compiled ``_scan`` module from ``path``, set up with the hint words as fastindex does."""
    # The init function is named after the last part of the module's name: keep it ``_scan``.
    loader = importlib.machinery.ExtensionFileLoader("tracetui_scan_baseline._scan", path)
    spec = importlib.util.spec_from_file_location(loader.name, path, loader=loader)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    mod.set_hints([h.encode() for h in markers._HINTS])
    mod.set_secret_hints(marks.secret_words())
    return mod


def scan_all(scanner: Any, members: list[bytes]) -> tuple[float, float, list[Any]]:
    """Scan every member in 4 MiB windows; (wall, CPU, results)."""
    results: list[Any] = []
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for data in members:
        view = memoryview(data)
        pos, line = 0, 0
        while pos < len(data):
            window = view[pos : pos + fastindex.CHUNK]
            res = scanner.scan(window, pos, line + 1, MAX_LINE)
            results.append(res)
            if not res[0]:
                break  # a line longer than the window: the Python reader's, not timed here
            pos += res[0]
            line += res[1]
    return time.perf_counter() - wall0, time.process_time() - cpu0, results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="/tmp/j/big200")
    parser.add_argument("--baseline", default="", help="a baseline _scan .so (default: none)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    compiled: Any = getattr(fastindex, "_scan", None)
    if compiled is None:
        print("no compiled scanner", file=sys.stderr)
        return 1
    files = sorted(glob.glob(os.path.join(args.data, "*.jsonl*")))
    members = []
    for path in files:
        with open(path, "rb") as fh:
            members.append(fh.read())
    size = sum(len(m) for m in members)
    scanners: dict[str, Any] = {"new": compiled}
    if args.baseline:
        scanners = {"baseline": load_scanner(args.baseline), **scanners}
    best: dict[str, tuple[float, float]] = {}
    same = True
    for _ in range(args.repeat):
        answers = []
        for name, scanner in scanners.items():
            wall, cpu, results = scan_all(scanner, members)
            answers.append(results)
            old = best.get(name, (wall, cpu))
            best[name] = (min(old[0], wall), min(old[1], cpu))
        same = same and all(a == answers[0] for a in answers)
    with open("/proc/loadavg") as fh:
        load = fh.read().split()[:3]
    print(
        f"{len(files)} members, {size / 1e6:.0f} MB, best of {args.repeat}, load {' '.join(load)}"
    )
    for name, (wall, cpu) in best.items():
        print(f"  {name:9} {wall:.3f} s wall  {cpu:.3f} s CPU  {size / wall / 1e6:.0f} MB/s")
    if "baseline" in best:
        ratio = best["baseline"][1] / best["new"][1]
        print(f"  baseline CPU / new CPU: {ratio:.2f}x; results identical: {same}")
    return 0 if same else 2


if __name__ == "__main__":
    sys.exit(main())
