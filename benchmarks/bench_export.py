"""`export --otlp-json` speed: the fast writer against the reference writer, in the same run.

Issue 18's target: ≥ 50,000 spans/s to an OTLP/JSON file on the 200 MB set, streaming. Each
probe is a fresh process on the same files, cold (``TRACETUI_NO_CACHE=1``), run in turns
(reference, fast, the orjson loop, reference, …) so the shared machine's load falls on all
alike; the best of N is kept. For each writer: the writing alone (the index built first, not
counted), as wall and CPU seconds and spans/s, and the peak RSS of the process; then the whole
``tracetui export`` command. The two documents are compared byte for byte (sha256). The plain
orjson loop (every line parsed, nothing else) is the floor any Python writer stands on. The load
average is printed before and after.

Usage: ``python benchmarks/make_big_set.py --spans 200000 --out DIR`` once, then
``python benchmarks/bench_export.py --data DIR [--repeat N]``.
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

WRITER = """
import hashlib, json, resource, sys, time
from tracetui.export import otlp, otlp_fast
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

writer = otlp_fast.write_json if sys.argv[1] == "fast" else otlp.write_json
ix = build_index(open_path(sys.argv[2])[0])
with open(sys.argv[3], "wb") as out:
    wall, cpu = time.perf_counter(), time.process_time()
    n = writer([ix], out)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
digest = hashlib.sha256()
with open(sys.argv[3], "rb") as fh:
    for block in iter(lambda: fh.read(1 << 20), b""):
        digest.update(block)
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"spans": n, "wall": wall, "cpu": cpu, "rss_mb": rss / 1024,
                  "sha256": digest.hexdigest()}))
"""

LOOP = """
import json, os, sys, time, orjson
n, wall, cpu = 0, time.perf_counter(), time.process_time()
for name in sorted(os.listdir(sys.argv[1])):
    with open(os.path.join(sys.argv[1], name), "rb") as fh:
        for line in fh:
            try:
                orjson.loads(line)
                n += 1
            except orjson.JSONDecodeError:
                pass
print(json.dumps({"spans": n, "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}))
"""


def loadavg() -> str:
    try:
        with open("/proc/loadavg") as fh:
            return " ".join(fh.read().split()[:3])
    except OSError:
        return "?"


def probe(code: str, *args: str) -> dict[str, float]:
    env = {**os.environ, "TRACETUI_NO_CACHE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        sys.exit(f"probe failed (exit {done.returncode}):\n{done.stderr.strip()}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def command(base: str, out: str) -> float:
    env = {**os.environ, "TRACETUI_NO_CACHE": "1"}
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "tracetui", "export", base, "--otlp-json", out],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        check=True,
    )
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="a set made by make_big_set.py")
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    names = sorted(os.listdir(args.data))
    base = os.path.join(args.data, min(names, key=len))  # the live member names the set
    size = sum(os.path.getsize(os.path.join(args.data, n)) for n in names)
    print(f"set: {args.data} ({size / 1e6:.0f} MB, {len(names)} members); load {loadavg()}")
    best: dict[str, dict[str, float]] = {}
    commands: dict[str, float] = {}
    digests: dict[str, set[Any]] = {"reference": set(), "fast": set()}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        for _ in range(args.repeat):
            for name in ("reference", "fast"):
                r = probe(WRITER, name, base, out)
                digests[name].add(r["sha256"])
                if name not in best or r["wall"] < best[name]["wall"]:
                    best[name] = r
            r = probe(LOOP, args.data)
            if "loop" not in best or r["wall"] < best["loop"]["wall"]:
                best["loop"] = r
            w = command(base, out)
            commands["export --otlp-json"] = min(w, commands.get("export --otlp-json", w))
    print(f"load after: {loadavg()}")
    spans = best["fast"]["spans"]
    print(f"{'writer':<28}{'wall s':>9}{'cpu s':>9}{'spans/s':>11}{'peak RSS':>11}")
    for name in ("reference", "fast", "loop"):
        r = best[name]
        rss = f"{r['rss_mb']:.0f} MB" if "rss_mb" in r else ""
        label = "orjson loop (parse only)" if name == "loop" else f"{name} writer"
        print(f"{label:<28}{r['wall']:>9.2f}{r['cpu']:>9.2f}{spans / r['wall']:>11,.0f}{rss:>11}")
    ratio = best["reference"]["wall"] / best["fast"]["wall"]
    cpu_ratio = best["reference"]["cpu"] / best["fast"]["cpu"]
    print(f"fast against reference: {ratio:.1f}x (wall), {cpu_ratio:.1f}x (CPU)")
    print(
        f"fast against the orjson loop: {best['fast']['wall'] / best['loop']['wall']:.1f}x slower"
    )
    wall = commands["export --otlp-json"]
    print(
        f"`tracetui export --otlp-json` (index build included): {wall:.2f} s, "
        f"{spans / wall:,.0f} spans/s"
    )
    same = digests["reference"] == digests["fast"] and len(digests["fast"]) == 1
    print(f"{int(spans):,} spans; documents identical: {'yes' if same else 'NO'}")
    target = spans / best["fast"]["wall"] >= 50_000
    print(f"target >= 50,000 spans/s (writer): {'met' if target else 'not met'} on this machine")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
