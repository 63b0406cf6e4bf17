"""Index and open a big rotated set, side by side with the tools a user would otherwise pick.

Measures, in one run on the same files (the machine is shared and noisy, so compare ratios):
  (a) the newline-scan floor;  (b) a plain per-line ``orjson.loads`` loop;
  (c) ``jq`` finding the latest failure;  (d) ``tracetui summary --json``;
  (e) the TUI opened headless: time to first rows on screen and to a complete index;
  (f) peak RSS of each;  (g) time to render one screen of rows after jumping to the end.

Usage: ``python benchmarks/make_big_set.py`` once, then ``python benchmarks/bench_index.py
[--data DIR] [--repeat N]``. Each measurement runs in its own process (for a clean peak RSS); the
best of N runs is kept.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))

# Each probe prints one JSON object: {"seconds": …, "rss_mb": …, ...}.
PROBES = {
    "newline scan (floor)": """
        n = 0
        for f in FILES:
            with open(f, "rb") as fh:
                while chunk := fh.read(1 << 20):
                    n += chunk.count(b"\\n")
        extra = {"lines": n}
    """,
    "orjson.loads loop": """
        import orjson
        n = 0
        for f in FILES:
            with open(f, "rb") as fh:
                for line in fh:
                    try:
                        orjson.loads(line)
                        n += 1
                    except orjson.JSONDecodeError:
                        pass
        extra = {"records": n}
    """,
    "tracetui index": """
        from tracetui.store.build import build_index
        from tracetui.store.runset import open_path
        ix = build_index(open_path(BASE)[0])
        extra = {"rows": len(ix), "failed": ix.stats.failed}
    """,
    "tracetui index (no C)": """
        os.environ["TRACETUI_NO_C"] = "1"
        from tracetui.store.build import build_index
        from tracetui.store.runset import open_path
        ix = build_index(open_path(BASE)[0])
        extra = {"rows": len(ix)}
    """,
}

TEMPLATE = """
import json, os, resource, sys, time
FILES = {files!r}
BASE = {base!r}
t0 = time.perf_counter()
{body}
seconds = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"seconds": seconds, "rss_mb": rss, **extra}}))
"""


def run_probe(body: str, files: list[str], base: str) -> dict:
    code = TEMPLATE.format(files=files, base=base, body=textwrap.indent(textwrap.dedent(body), ""))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_command(argv: list[str], shell: bool = False) -> dict:
    code = (
        "import json, resource, subprocess, sys, time\n"
        f"t0 = time.perf_counter(); subprocess.run({argv!r}, shell={shell!r}, stdout=subprocess.DEVNULL, check=True)\n"
        "s = time.perf_counter() - t0\n"
        "print(json.dumps({'seconds': s, 'rss_mb': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def best(results: list[dict]) -> dict:
    return min(results, key=lambda r: r["seconds"])


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", default=os.path.join(HERE, "data", "big"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-tui", action="store_true")
    args = ap.parse_args()
    base = os.path.join(args.data, "feedback_record.jsonl")
    files = [*sorted(glob.glob(base + ".*"), key=lambda p: -int(p.rsplit(".", 1)[1])), base]
    size = sum(os.path.getsize(f) for f in files)
    print(f"set: {len(files)} members, {size / 1e9:.2f} GB ({args.data})\n")
    rows: list[tuple[str, dict]] = []
    for name, body in PROBES.items():
        rows.append((name, best([run_probe(body, files, base) for _ in range(args.repeat)])))
    if shutil.which("jq"):
        query = (
            "jq -c -R 'fromjson? | select((.exit_code // .returncode // 1) != 0) | .command_id' "
            + " ".join(files)
            + " | tail -n 1"
        )
        rows.append(
            (
                "jq latest failure",
                best([run_command([query], shell=True) for _ in range(args.repeat)]),
            )
        )
    summary = [sys.executable, "-m", "tracetui", "summary", base, "--json"]
    rows.append(
        ("tracetui summary --json", best([run_command(summary) for _ in range(args.repeat)]))
    )
    if not args.skip_tui:
        tui = os.path.join(HERE, "bench_tui_open.py")
        if os.path.exists(tui):
            out = subprocess.run([sys.executable, tui, base], capture_output=True, text=True)
            if out.returncode == 0:
                for line in out.stdout.strip().splitlines():
                    r = json.loads(line)
                    rows.append((r.pop("name"), r))
            else:
                print("TUI probe failed:", out.stderr.strip()[-400:])
    ref = dict(rows)
    loop = ref["orjson.loads loop"]["seconds"]
    jq = ref.get("jq latest failure", {}).get("seconds")
    print(
        f"{'measurement':34} {'seconds':>9} {'GB/s':>6} {'vs orjson':>10} {'vs jq':>7} {'peak RSS':>9}"
    )
    for name, r in rows:
        s = r["seconds"]
        gbs = f"{size / s / 1e9:6.2f}" if s > 0.05 else "     -"
        vs_jq = f"{s / jq:7.2f}" if jq else "      -"
        print(f"{name:34} {s:9.3f} {gbs} {s / loop:10.2f} {vs_jq} {r.get('rss_mb', 0):8.0f}M")
    print(
        "\nratios: < 1 means faster than the reference (targets: index <= 0.5x orjson, summary <= 0.2x jq)"
    )


if __name__ == "__main__":
    main()
