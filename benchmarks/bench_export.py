"""`export --otlp-json` speed: the writers against each other, in the same run.

Issue 18's target: ≥ 50,000 spans/s to an OTLP/JSON file on the 200 MB set, streaming. Each
probe is a fresh process on the same files, run in turns (reference, Python road, C road, the
orjson loop, …) so the shared machine's load falls on all alike; the best of N is kept. The
writers are the reference ``otlp.write_json``, the fast writer on its Python road
(``TRACETUI_NO_C_OTLP=1``: the writer before the C span writer) and on its C road. For each: the
writing alone (the index built first, not counted), as wall and CPU seconds, spans/s and spans
per CPU second, and the peak RSS of the process. Then the whole ``tracetui export --otlp-json``
command, both roads, with the index built cold (``TRACETUI_NO_CACHE=1``) and from a warm index
cache (a private ``XDG_CACHE_HOME``), wall and CPU of the process (user + sys) and its peak RSS.
Every document is compared byte for byte (sha256). The plain orjson loop (every line parsed,
nothing else) is the floor of any Python writer. The load average is printed before and after.

Usage: ``python benchmarks/make_big_set.py --spans 200000 --out DIR`` once, then
``python benchmarks/bench_export.py --data DIR [--repeat N] [--reference-runs N]``.
"""

from __future__ import annotations

import argparse
import hashlib
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

writer = otlp.write_json if sys.argv[1] == "reference" else otlp_fast.write_json
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

# TRACETUI_NO_C_OTLP turns off the span writer only (TRACETUI_NO_C would turn off the index's
# scanner as well, which the command used before the span writer too).
ROADS = {"reference": {}, "python road": {"TRACETUI_NO_C_OTLP": "1"}, "C road": {}}


def loadavg() -> str:
    try:
        with open("/proc/loadavg") as fh:
            return " ".join(fh.read().split()[:3])
    except OSError:
        return "?"


def probe(code: str, env_extra: dict[str, str], *args: str) -> dict[str, Any]:
    env = {**os.environ, "TRACETUI_NO_CACHE": "1", **env_extra}
    for name in ("TRACETUI_NO_C", "TRACETUI_NO_C_OTLP"):
        if name not in env_extra:
            env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        sys.exit(f"probe failed (exit {done.returncode}):\n{done.stderr.strip()}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def digest_of(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def command(base: str, out: str, env_extra: dict[str, str]) -> dict[str, Any]:
    """The whole command in a child: wall, CPU (user + sys) and peak RSS from wait4."""
    env = {**os.environ, **env_extra}
    for name in ("TRACETUI_NO_C", "TRACETUI_NO_C_OTLP"):
        if name not in env_extra:
            env.pop(name, None)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tracetui", "export", base, "--otlp-json", out],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        sys.exit(f"export failed (status {status})")
    cpu = usage.ru_utime + usage.ru_stime
    return {"wall": wall, "cpu": cpu, "rss_mb": usage.ru_maxrss / 1024, "sha256": digest_of(out)}


def row(label: str, r: dict[str, Any], spans: float) -> str:
    rss = f"{r['rss_mb']:.0f} MB" if "rss_mb" in r else ""
    per_cpu = spans / r["cpu"] if r["cpu"] else 0.0
    return (
        f"{label:<34}{r['wall']:>8.2f}{r['cpu']:>8.2f}{spans / r['wall']:>11,.0f}"
        f"{per_cpu:>11,.0f}{rss:>10}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="a set made by make_big_set.py")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--reference-runs", type=int, default=1, help="the reference is slow")
    args = ap.parse_args()
    names = sorted(os.listdir(args.data))
    base = os.path.join(args.data, min(names, key=len))  # the live member names the set
    size = sum(os.path.getsize(os.path.join(args.data, n)) for n in names)
    print(f"set: {args.data} ({size / 1e6:.0f} MB, {len(names)} members); load {loadavg()}")
    best: dict[str, dict[str, Any]] = {}
    digests: set[str] = set()

    def keep(name: str, r: dict[str, Any]) -> None:
        if "sha256" in r:
            digests.add(r["sha256"])
        if name not in best or r["wall"] < best[name]["wall"]:
            best[name] = r

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        warm = {"XDG_CACHE_HOME": os.path.join(tmp, "cache")}
        command(base, out, warm)  # fills the private index cache
        for n in range(args.repeat):
            for name, env in ROADS.items():
                if name == "reference" and n >= args.reference_runs:
                    continue
                keep(f"writer: {name}", probe(WRITER, env, name, base, out))
            keep("orjson loop (parse only)", probe(LOOP, {}, args.data))
            for name in ("python road", "C road"):
                env = ROADS[name]
                keep(
                    f"command, cold: {name}", command(base, out, {**env, "TRACETUI_NO_CACHE": "1"})
                )
                keep(f"command, warm: {name}", command(base, out, {**env, **warm}))
    print(f"load after: {loadavg()}")
    spans = best["writer: C road"]["spans"]
    print(f"{'':<34}{'wall s':>8}{'CPU s':>8}{'spans/s':>11}{'/CPU s':>11}{'peak RSS':>10}")
    for name, r in best.items():
        print(row(name, r, spans))
    c, py = best["writer: C road"], best["writer: python road"]
    print(
        f"C road against Python road: {py['wall'] / c['wall']:.1f}x wall, {py['cpu'] / c['cpu']:.1f}x CPU"
    )
    if "writer: reference" in best:
        ref = best["writer: reference"]
        print(
            f"C road against reference: {ref['wall'] / c['wall']:.1f}x wall, {ref['cpu'] / c['cpu']:.1f}x CPU"
        )
    same = len(digests) == 1
    print(f"{int(spans):,} spans; documents identical: {'yes' if same else 'NO'}")
    for label in ("writer: C road", "command, warm: C road", "command, cold: C road"):
        met = spans / best[label]["wall"] >= 50_000
        print(f"target >= 50,000 spans/s ({label}): {'met' if met else 'not met'} on this machine")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
