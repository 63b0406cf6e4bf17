"""lint and export against summary, on the same set in the same run (issue 18: lint at summary
speed, export at collector speed).

Each measurement is a fresh ``tracetui`` process on the same files, cold (``TRACETUI_NO_CACHE=1``:
no persistent index), run in turns (summary, lint, export, summary, …) so that the load of the
shared machine falls on all of them alike; the best of N wall times and its CPU time are kept.
Reported as ratios against ``summary --json`` measured in that same run, with the targets:
lint ≤ 2× summary, export ≥ 50,000 spans/s. ``--reference`` adds lint's full reading (every row
parsed, every rule: what lint did before it read the index's marks), which is slow.

``--baseline TREE`` (another version's ``tracetui`` package, e.g. from ``git archive``, its C
modules compiled) adds that version's summary and lint, run in the same turns, with their ratio.

Usage: ``python benchmarks/make_big_set.py --spans 200000 --out DIR`` once, then
``python benchmarks/bench_lint.py --data DIR [--repeat N] [--reference] [--baseline TREE]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

REFERENCE = """
import gc, sys
gc.disable()
from tracetui.analysis.lint import lint_index
from tracetui.store.build import build_index
from tracetui.store.runset import open_path
print(len(lint_index(build_index(open_path(sys.argv[1])[0]), every_row=True)))
"""


BASELINED = ("summary --json", "lint --format json")
"""The probes ``--baseline`` runs again with the other version."""


def commands(base: str, out: str, reference: bool) -> dict[str, list[str]]:
    exe = [sys.executable, "-m", "tracetui"]
    probes = {
        "summary --json": [*exe, "summary", "--json", base],
        "lint --format json": [*exe, "lint", "--format", "json", base],
        "export --otlp-json": [*exe, "export", base, "--otlp-json", out],
    }
    if reference:
        probes["lint, full reading"] = [sys.executable, "-c", REFERENCE, base]
    return probes


def baseline_env(tree: str, work: str) -> dict[str, str]:
    """The environment that imports ``tree``'s package before the installed one (checked)."""
    env = {**os.environ, "PYTHONPATH": os.path.abspath(tree)}
    where = subprocess.run(
        [sys.executable, "-c", "import tracetui; print(tracetui.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=work,
        check=True,
    ).stdout.strip()
    if not where.startswith(os.path.abspath(tree) + os.sep):
        sys.exit(f"--baseline {tree}: tracetui is imported from {where}, not from there")
    return env


def timed(
    cmd: list[str], env: dict[str, str] | None = None, cwd: str | None = None
) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(
        cmd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**(env or os.environ), "TRACETUI_NO_CACHE": "1"},
        cwd=cwd,
        check=False,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def spans_in(base: str) -> int:
    got = subprocess.run(
        [sys.executable, "-m", "tracetui", "summary", "--json", base],
        capture_output=True,
        env={**os.environ, "TRACETUI_NO_CACHE": "1"},
        check=False,
    )
    doc = json.loads(got.stdout)
    return int(doc.get("spans", 0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", required=True, help="folder made by make_big_set.py")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--reference", action="store_true", help="also time the full reading")
    ap.add_argument("--baseline", help="another version's tracetui package to compare")
    args = ap.parse_args()
    base = os.path.join(args.data, "feedback_record.jsonl")
    with open("/proc/loadavg") as fh:
        load_before = fh.read().split()[:3]
    spans = spans_in(base)
    best: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        probes = commands(base, os.path.join(tmp, "out.json"), args.reference)
        # The baseline's from the work folder: `-m` puts the current directory first on sys.path.
        old_env = baseline_env(args.baseline, tmp) if args.baseline else None
        for _ in range(args.repeat):
            for name, cmd in probes.items():
                wall, cpu = timed(cmd)
                if name not in best or wall < best[name][0]:
                    best[name] = (wall, cpu)
                if old_env is not None and name in BASELINED:
                    wall, cpu = timed(cmd, old_env, tmp)
                    old = f"{name} (baseline)"
                    if old not in best or wall < best[old][0]:
                        best[old] = (wall, cpu)
    with open("/proc/loadavg") as fh:
        load_after = fh.read().split()[:3]
    summary = best["summary --json"][0]
    print(f"{spans:,} spans in {args.data}; load {' '.join(load_before)} → {' '.join(load_after)}")
    print(f"{'measurement':30} {'wall':>8} {'cpu':>8} {'÷ summary':>10}")
    for name, (wall, cpu) in best.items():
        print(f"{name:30} {wall:7.2f}s {cpu:7.2f}s {wall / summary:9.2f}×")
    lint = best["lint --format json"][0] / summary
    rate = spans / best["export --otlp-json"][0]
    print(f"lint ≤ 2× summary: {'met' if lint <= 2 else 'missed'} ({lint:.2f}×)")
    if args.baseline:
        was = best["lint --format json (baseline)"][0] / best["summary --json (baseline)"][0]
        print(f"the baseline's lint ÷ its summary: {was:.2f}×")
    print(f"export ≥ 50,000 spans/s: {'met' if rate >= 50_000 else 'missed'} ({rate:,.0f}/s)")


if __name__ == "__main__":
    main()
