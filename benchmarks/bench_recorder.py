"""Throughput of `tracetui run` on a command printing SIZE bytes, against the bare command.

Runs, side by side in one process:
  direct    the generator with stdout on /dev/null (no pipe at all: the floor)
  piped     the generator piped through `cat` to /dev/null (a pipe and a reader: the fair baseline)
  recorded  `tracetui run --log TMP -- <generator>` with the wrapper's stdout on /dev/null
and prints seconds, MB/s and the recorded/piped ratio, plus the peak RSS of the recorder (from
``resource.getrusage(RUSAGE_CHILDREN)``, measured first so the small baselines cannot mask it).

    python benchmarks/bench_recorder.py              # 1 GiB
    python benchmarks/bench_recorder.py --size 64M   # quick
    python benchmarks/bench_recorder.py --no-keep    # without the kept-output store
    python benchmarks/bench_recorder.py --content log  # a log with secrets instead of `yes`
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time

UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text: str) -> int:
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = text[-1] if text and text[-1] in UNITS else ""
    return int(float(text[: len(text) - len(unit)]) * UNITS[unit])


# A log block: 200 lines of a service's output, 4 of them holding a secret the recorder redacts
# (a password, a bearer token, a URL's credentials, an AWS key id), 3 more with near misses.
LOG_BLOCK = """
import sys
lines = []
for i in range(200):
    if i % 50 == 7:
        lines.append(f"2026-12-01T10:00:{i % 60:02d}Z DEBUG connect password=hunter{i}x ok")
    elif i % 50 == 19:
        lines.append(f"2026-12-01T10:00:{i % 60:02d}Z DEBUG Authorization: Bearer abcDEF{i}ghijklmnop")
    elif i % 50 == 31:
        lines.append(f"2026-12-01T10:00:{i % 60:02d}Z INFO fetch postgres://app:s3cret{i}@db:5432/app")
    elif i % 50 == 43:
        lines.append(f"2026-12-01T10:00:{i % 60:02d}Z WARN key AKIAIOSFODNN7EXAMPL{i % 10} in env")
    elif i % 50 in (11, 23, 37):
        lines.append(f"2026-12-01T10:00:{i % 60:02d}Z INFO test_login passed; token refresh scheduled")
    else:
        lines.append(f"2026-12-01T10:00:{i % 60:02d}Z INFO worker {i % 7} handled request id={i * 7919} in {i % 13}ms")
block = ("\\n".join(lines) + "\\n").encode() * 20  # ~290 KB a write
size, out = int(sys.argv[1]), sys.stdout.buffer
while size > 0:
    out.write(block[:size])
    size -= len(block)
"""


def generator(size: int, content: str) -> str:
    if content == "log":
        return f"{shlex.quote(sys.executable)} -c {shlex.quote(LOG_BLOCK)} {size}"
    # Text lines (valid UTF-8, so the recorder's UTF-8 check runs its fast ASCII path).
    return f"yes 'tracetui benchmark line: the quick brown fox jumps over the lazy dog' | head -c {size}"


def timed(argv: list[str], stdout: int = subprocess.DEVNULL) -> float:
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=stdout, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1G", help="bytes the command prints (e.g. 64M, 1G)")
    parser.add_argument("--cap", default="8192", help="the recorder's --cap")
    parser.add_argument("--clip", default="head_tail", help="the recorder's --clip")
    parser.add_argument(
        "--no-keep",
        action="store_true",
        help="pass --no-keep (measure without the kept-output store, docs/recording.md)",
    )
    parser.add_argument(
        "--content",
        choices=("yes", "log"),
        default="yes",
        help="yes: one line repeated; log: a service's log with a secret every 50 lines",
    )
    args = parser.parse_args()
    size = parse_size(args.size)
    gen = generator(size, args.content)
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "bench.jsonl")
        recorded = timed(
            [
                sys.executable,
                "-m",
                "tracetui",
                "run",
                "--log",
                log,
                "--cap",
                args.cap,
                "--clip",
                args.clip,
                *(["--no-keep"] if args.no_keep else []),
                "--",
                "sh",
                "-c",
                gen,
            ]
        )
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        direct = timed(["sh", "-c", f"{gen} > /dev/null"])
        piped = timed(["sh", "-c", f"{gen} | cat > /dev/null"])
        with open(log, "rb") as fh:
            last = fh.read().splitlines()[-1]
    import json

    rec = json.loads(last)
    assert rec["stdout_bytes"] == size, (rec["stdout_bytes"], size)
    mb = size / 1e6
    print(f"command: sh -c {shlex.quote(gen)}" if args.content == "yes" else "command: a log")
    kept = "not kept (--no-keep)" if args.no_keep else "kept whole (B.kept/)"
    print(
        f"size: {size} bytes ({size / (1 << 20):.0f} MiB), cap {args.cap}, clip {args.clip}, {kept}"
    )
    print(f"{'mode':<10}{'seconds':>10}{'MB/s':>10}")
    for name, secs in (("direct", direct), ("piped", piped), ("recorded", recorded)):
        print(f"{name:<10}{secs:>10.2f}{mb / secs:>10.0f}")
    print(
        f"ratio recorded/piped: {recorded / piped:.2f}x   recorded/direct: {recorded / direct:.2f}x"
    )
    print(f"peak RSS of the recorder: {peak_kib / 1024:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
