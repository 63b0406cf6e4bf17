"""One command for issue 18's index targets, each against its baseline measured in the same run.

Measures, each in a fresh process, on one set of files (the machine is shared and noisy:
compare the ratios, not the seconds):

- ``summary --json`` cold (an empty index cache: it reads everything and fills the cache),
  warm (the same files again), and with ``--no-cache``;
- a plain per-line ``orjson.loads`` loop and ``jq`` finding the latest failure (skipped with a
  note when jq is not installed) over the same files; the loop, like the summaries and jq, as
  a whole process timed from outside (start, imports and exit included), once a repeat among
  the summaries' runs (also shown: the loop timed inside its process, as earlier passes took it);
- the index a viewer builds (``build_index``) from a warm cache, and optionally the viewer itself
  opened headless until its index is complete (``--viewer``);
- a folder of 500 and of 5,000 one-span runs: listing it (what the picker starts from) and
  ``summary --json`` over it, cold and warm; the ratio 5,000 / 500 is ~10 when linear.

Child processes run with bytecode caching on (in a temp ``PYTHONPYCACHEPREFIX``) as an installed
package would, and with their own ``XDG_CACHE_HOME``. The machine's load (``/proc/loadavg``) is
printed before and after; each figure is the best wall time of the repeats, with the CPU seconds
(all threads) of that same run.

``--baseline DIR`` (a copy of another version's ``tracetui`` package, e.g. from ``git archive``
with its compiled ``.so`` files copied in) also runs the cold, ``--no-cache``, warm and
``build_index`` probes against that copy, interleaved repeat by repeat with the current tree, so
before and after are measured under the same load. Usage::

    python benchmarks/run_all.py [--data DIR] [--spans 200000] [--repeat 3] [--viewer]
                                 [--skip jq,folders] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bench_index import PROBES, best, run_probe  # noqa: E402
from bench_scale import make_dir  # noqa: E402

TIMED = """
import json, resource, subprocess, sys, time
t0 = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
seconds = time.perf_counter() - t0
use = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": seconds, "cpu": use.ru_utime + use.ru_stime}))
"""

BUILD = """
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from tracetui.store.build import build_index
from tracetui.store.runset import open_path
ix = build_index(open_path(sys.argv[1])[0])
seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({"seconds": seconds, "cpu": cpu, "rows": len(ix)}))
"""

LOOP = "import sys\nFILES = sys.argv[1:]\n" + textwrap.dedent(PROBES["orjson.loads loop"])
"""The plain loop as a program of its own (bench_index's probe, timed as a whole process)."""

LISTING = """
import json, sys, time
t0 = time.perf_counter()
from tracetui.store.runset import open_path
runs = open_path(sys.argv[1])
print(json.dumps({"seconds": time.perf_counter() - t0, "runs": len(runs)}))
"""


def loadavg() -> str:
    try:
        with open("/proc/loadavg", encoding="ascii") as fh:
            return fh.read().strip()
    except OSError:
        return "unknown"


class Bench:
    def __init__(self, work: str, tree: str | None = None) -> None:
        self.work = work
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env["PYTHONPYCACHEPREFIX"] = os.path.join(work, "pycache")
        self.env.pop("TRACETUI_NO_CACHE", None)
        if tree is not None:  # another version's package, found before the installed one
            self.env["PYTHONPATH"] = os.path.abspath(tree)
            where = subprocess.run(
                [sys.executable, "-c", "import tracetui; print(tracetui.__file__)"],
                capture_output=True,
                text=True,
                env=self.env,
                cwd=work,
                check=True,
            ).stdout.strip()
            if not where.startswith(os.path.abspath(tree) + os.sep):
                sys.exit(f"--baseline {tree}: tracetui is imported from {where}, not from there")
        self._homes = 0
        self._prefix = "base" if tree is not None else "xdg"

    def fresh_cache(self) -> str:
        self._homes += 1
        home = os.path.join(self.work, f"{self._prefix}{self._homes}")
        os.mkdir(home)
        return home

    def run(self, code: str, *argv: str, home: str) -> dict:
        env = {**self.env, "XDG_CACHE_HOME": home}
        # In the work folder: `python -c` puts the current directory first on sys.path, and a
        # benchmark started from a checkout would import that checkout's package for both trees.
        out = subprocess.run(
            [sys.executable, "-c", code, *argv],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            cwd=self.work,
        )
        return json.loads(out.stdout.strip().splitlines()[-1])

    def tracetui(self, *argv: str, home: str) -> dict:
        return self.run(TIMED, sys.executable, "-m", "tracetui", *argv, home=home)


def fastest(results: list[dict]) -> dict:
    return min(results, key=lambda r: r["seconds"])


def cache_probes(
    benches: dict[str, Bench], base: str, files: list[str], repeat: int
) -> tuple[dict[str, dict[str, dict]], dict]:
    """Cold, ``--no-cache``, warm and the viewer's warm ``build_index``, for each tree, the
    trees interleaved within every repeat; the fastest of the repeats, per tree and probe.
    Also the plain loop, timed as the summaries are (a whole process, from outside), once a
    repeat among them: the fastest of those."""
    got: dict[str, dict[str, list[dict]]] = {name: {} for name in benches}
    homes = {}
    loops = []
    for name, bench in benches.items():
        homes[name] = bench.fresh_cache()
        bench.tracetui("summary", "--json", base, home=homes[name])  # the warm entry
    for _ in range(repeat):
        first = next(iter(benches.values()))
        loops.append(first.run(TIMED, sys.executable, "-c", LOOP, *files, home=homes[""]))
        for name, bench in benches.items():
            home = homes[name]
            runs = got[name]
            cold = bench.tracetui("summary", "--json", base, home=bench.fresh_cache())
            runs.setdefault("cold", []).append(cold)
            runs.setdefault("warm", []).append(bench.tracetui("summary", "--json", base, home=home))
            # Right after the warm summary: an entry is only used by the code that wrote it (a
            # module edited meanwhile, in a shared working tree, makes the next build cold).
            runs.setdefault("built", []).append(bench.run(BUILD, base, home=home))
            off = bench.tracetui("summary", "--no-cache", "--json", base, home=home)
            runs.setdefault("off", []).append(off)
    return {name: {k: fastest(v) for k, v in runs.items()} for name, runs in got.items()}, fastest(
        loops
    )


def figure(r: dict) -> str:
    return f"{r['seconds']:.3f} s ({r['cpu']:.2f} s CPU)"


def set_files(data: str) -> tuple[str, list[str]]:
    base = os.path.join(data, "feedback_record.jsonl")
    files = [*sorted(glob.glob(base + ".*"), key=lambda p: -int(p.rsplit(".", 1)[1])), base]
    return base, files


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", default=os.path.join(HERE, "data", "big200"))
    ap.add_argument("--spans", type=int, default=200_000, help="spans when --data must be made")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sizes", default="500,5000", help="runs in the two folders")
    ap.add_argument("--viewer", action="store_true", help="also open the viewer headless")
    ap.add_argument("--skip", default="", help="comma-separated: jq, folders (for a 1 GB set)")
    ap.add_argument("--baseline", help="a copy of another version's tracetui package to compare")
    args = ap.parse_args()
    args.data = os.path.abspath(args.data)  # the probes run in a folder of their own
    if not os.path.exists(os.path.join(args.data, "feedback_record.jsonl")):
        maker = os.path.join(HERE, "make_big_set.py")
        cmd = [sys.executable, maker, "--spans", str(args.spans), "--out", args.data]
        subprocess.run(cmd, check=True)
    base, files = set_files(args.data)
    size = sum(os.path.getsize(f) for f in files)
    print(f"set: {len(files)} members, {size / 1e6:.0f} MB ({args.data})")
    print(f"load before: {loadavg()}")
    rows: list[tuple[str, float, str]] = []
    with tempfile.TemporaryDirectory(prefix="tracetui-bench-") as work:
        bench = Bench(work)
        warmup = bench.fresh_cache()
        bench.tracetui("summary", "--json", base, home=warmup)  # bytecode and page cache
        rep = range(args.repeat)
        # Timed inside its process (the interpreter already started; bench_index's probe, the
        # figure earlier passes compared with): shown, not the baseline, since the summaries
        # are timed as whole processes, start and exit included.
        inside = best([run_probe(PROBES["orjson.loads loop"], files, base) for _ in rep])["seconds"]
        rows.append(("orjson.loads loop, timed inside", inside, "for reference"))
        jq = None
        skip = set(args.skip.split(","))
        if "jq" in skip:
            print("jq skipped (--skip jq)")
        elif shutil.which("jq"):
            query = (
                "jq -c -R 'fromjson? | select((.exit_code // .returncode // 1) != 0)"
                " | .command_id' " + " ".join(files) + " | tail -n 1"
            )
            jq = min(bench.run(TIMED, "sh", "-c", query, home=warmup)["seconds"] for _ in rep)
            rows.append(("jq latest failure", jq, "baseline"))
        else:
            print("jq is not installed: its baseline is skipped")
        benches = {"": bench}
        if args.baseline:
            benches = {"baseline": Bench(work, args.baseline), "": bench}
        probes, looped = cache_probes(benches, base, files, args.repeat)
        loop = looped["seconds"]
        rows.insert(1, ("orjson.loads loop", loop, f"baseline (a whole process); {figure(looped)}"))
        for name, got in probes.items():
            tag = f" [{name}]" if name else ""
            cold, off, warm = (got[k]["seconds"] for k in ("cold", "off", "warm"))
            built = got["built"]["seconds"]
            vs_jq = f", {jq / cold:.1f}x faster than jq" if jq else ""
            note = f"{loop / cold:.2f}x faster than the loop{vs_jq}; {figure(got['cold'])}"
            rows.append((f"summary --json, cold{tag}", cold, note))
            note = f"{loop / off:.2f}x faster than the loop; {figure(got['off'])}"
            rows.append((f"summary --json, --no-cache{tag}", off, note))
            note = f"{cold / warm:.1f}x faster than cold; {figure(got['warm'])}"
            rows.append((f"summary --json, warm{tag}", warm, note))
            note = f"{cold / built:.1f}x faster than cold summary; {figure(got['built'])}"
            rows.append((f"build_index (viewer), warm{tag}", built, note))
        home = bench.fresh_cache()
        bench.tracetui("summary", "--json", base, home=home)  # for the viewer probe
        if args.viewer:
            tui = os.path.join(HERE, "bench_tui_open.py")
            env = {**bench.env, "XDG_CACHE_HOME": home}
            # As `view --no-follow` opens a run (build_index: the persistent index) and as a
            # plain `view` does (the live follower reads the run from its start).
            rows_of_set = probes[""]["built"]["rows"]
            for how, extra in (("--no-follow", []), ("following", ["--follow", str(rows_of_set)])):
                out = subprocess.run(
                    [sys.executable, tui, base, *extra], capture_output=True, text=True, env=env
                )
                for line in out.stdout.splitlines():
                    r = json.loads(line)
                    if r["name"] == "TUI complete index":
                        what = f"viewer complete index, warm, {how}"
                        rows.append((what, r["seconds"], "from process start"))
        small, large = (int(n) for n in args.sizes.split(","))
        folders = {} if "folders" in skip else {n: make_dir(work, n) for n in (small, large)}
        for what, probe in (
            ()
            if not folders
            else (
                ("listing", lambda d, h: bench.run(LISTING, d, home=h)),
                ("summary, cold", lambda d, h: bench.tracetui("summary", "--json", d, home=h)),
            )
        ):
            times = {}
            for n, folder in folders.items():
                times[n] = min(probe(folder, bench.fresh_cache())["seconds"] for _ in rep)
            ratio = times[large] / times[small]
            rows.append((f"{small:,} runs: {what}", times[small], ""))
            rows.append(
                (
                    f"{large:,} runs: {what}",
                    times[large],
                    f"{ratio:.1f}x for {large // small}x the runs",
                )
            )
    print(f"load after: {loadavg()}\n")
    print(f"{'measurement':45} {'seconds':>9}  ratio (same run)")
    for name, seconds, note in rows:
        print(f"{name:45} {seconds:9.3f}  {note}")
    print(f"\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, best of {args.repeat}")


if __name__ == "__main__":
    main()
