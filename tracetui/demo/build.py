"""A compiler-like build: one line per unit on stdout, warnings on stderr, an error near the end.

With ``--ok`` every unit compiles; otherwise unit ``--fail-at`` (default: the third from last)
fails and the exit status is 1. Its error goes to stdout, among the unit lines, the way a harness
that records ``2>&1`` sees it: with a head cap the error lies past the cap, where the agent never
read it (the README's "a build whose error lies past the cap"); make's last word is on stderr.
"""

import argparse
import sys


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--units", type=int, default=120)
    p.add_argument("--fail-at", type=int, default=-3)
    p.add_argument("--ok", action="store_true")
    args = p.parse_args()
    fail = None if args.ok else args.fail_at % args.units
    for i in range(args.units):
        unit = f"src/billing/module_{i:03d}.c"
        if i % 25 == 7:
            print(f"{unit}:12:5: warning: unused variable 'tmp{i}'", file=sys.stderr)
        if i == fail:
            print(f"[{i + 1:3d}/{args.units}] CC {unit}")
            print(f"{unit}:88:14: error: 'ledger_round' undeclared (first use in this function)")
            print("make: *** [Makefile:42: build] Error 1", file=sys.stderr)
            return 1
        print(f"[{i + 1:3d}/{args.units}] CC {unit}")
    print("LINK build/billing")
    return 0


if __name__ == "__main__":
    sys.exit(main())
