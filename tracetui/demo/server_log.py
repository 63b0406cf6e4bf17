"""A service's start-up log: the interesting line is early, the wrapper keeps only the tail."""

import argparse
import sys


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--lines", type=int, default=160)
    args = p.parse_args()
    print("2026-11-02T09:20:00Z INFO  starting billing-api 4.2.1")
    print("2026-11-02T09:20:00Z ERROR migration 0042_currency_precision skipped: lock held")
    for i in range(args.lines):
        print(f"2026-11-02T09:20:{i % 60:02d}Z INFO  worker {i % 8} warmed cache shard {i}")
    print("2026-11-02T09:21:00Z INFO  listening on :8080 (ready)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
