"""Every issue 18 target in one command: each benchmark in turn, on one set, with its baselines.

Runs, one after the other and each in processes of its own (so that one's caches and threads do
not colour the next):

- ``run_all.py``: cold and warm ``summary --json`` against the ``orjson.loads`` loop and ``jq``,
  the viewer's warm index, and folders of 500 and 5,000 runs;
- ``bench_lint.py``: ``lint`` and ``export --otlp-json`` against ``summary`` on the same set;
- ``bench_export.py``: the OTLP/JSON writer against the reference writer and the parse floor;
- ``export_http.py``: OTLP/HTTP (protobuf and JSON, with and without gzip) to a loopback
  receiver, against the file export;
- ``bench_live_draw.py``: append-to-drawn latency in the viewer at 500-2,000 spans/s, and idle CPU.

Each benchmark prints its own table (ratios within its run: the machine is shared and noisy) and
its verdicts; the lines that say ``met`` or ``missed`` are gathered again at the end, with the
machine's load before and after. Usage::

    python benchmarks/issue18.py [--data DIR] [--repeat 2] [--skip live,http,...]

``--data`` is a set made by ``make_big_set.py`` (200,000 spans by default, made when missing).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VERDICT = re.compile(r"\b(met|missed|not met)\b", re.IGNORECASE)


def loadavg() -> str:
    with open("/proc/loadavg") as fh:
        return " ".join(fh.read().split()[:3])


def benchmarks(data: str, repeat: int) -> dict[str, list[str]]:
    """Name → the command line of each benchmark, on ``data``."""
    py = sys.executable
    rep = str(repeat)
    return {
        "index": [py, os.path.join(HERE, "run_all.py"), "--data", data, "--repeat", rep],
        "lint": [py, os.path.join(HERE, "bench_lint.py"), "--data", data, "--repeat", rep],
        "export": [py, os.path.join(HERE, "bench_export.py"), "--data", data, "--repeat", rep],
        "http": [py, os.path.join(HERE, "export_http.py"), "--data", data, "--repeat", rep],
        "live": [py, os.path.join(HERE, "bench_live_draw.py")],
    }


def run(name: str, cmd: list[str]) -> list[str]:
    """Run one benchmark, echoing its output as it comes; its verdict lines."""
    print(f"\n## {name}: {' '.join(os.path.basename(c) for c in cmd[1:2])} (load {loadavg()})")
    sys.stdout.flush()
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    verdicts = []
    for line in proc.stdout:
        sys.stdout.write(line)
        if VERDICT.search(line):
            verdicts.append(line.strip())
    code = proc.wait()
    took = time.monotonic() - started
    if code:
        verdicts.append(f"{name}: the benchmark failed (exit {code}); see its output above")
    print(f"({name}: {took:.0f} s)")
    return verdicts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", default=os.path.join(HERE, "data", "big200"))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--skip", default="", help="comma-separated: index, lint, export, http, live")
    args = ap.parse_args()
    skip = {s for s in args.skip.split(",") if s}
    todo = benchmarks(args.data, args.repeat)
    unknown = skip - set(todo)
    if unknown:
        ap.error(f"unknown benchmark(s) to skip: {', '.join(sorted(unknown))}")
    if not os.path.isdir(args.data):
        print(f"making the set in {args.data} (once)")
        make = os.path.join(HERE, "make_big_set.py")
        subprocess.run([sys.executable, make, "--spans", "200000", "--out", args.data], check=True)
    before = loadavg()
    verdicts: list[str] = []
    failed = False
    for name, cmd in todo.items():
        if name in skip:
            continue
        got = run(name, cmd)
        failed = failed or any("the benchmark failed" in v for v in got)
        verdicts += [f"{name}: {v}" for v in got]
    print(f"\n## verdicts (load {before} before, {loadavg()} after)")
    for v in verdicts:
        print(f"- {v}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
