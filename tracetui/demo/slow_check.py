"""A check that takes a while, printing as it goes (watch its duration in the list)."""

import argparse
import sys
import time


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--seconds", type=float, default=1.5)
    args = p.parse_args()
    steps = 6
    for i in range(steps):
        print(f"probe {i + 1}/{steps}: ok", flush=True)
        time.sleep(args.seconds / steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
