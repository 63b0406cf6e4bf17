"""A deploy gate: refuses while the migration is pending (exit 2)."""

import sys


def main() -> int:
    print("checking deploy preconditions for billing-api 4.2.1")
    print("  tests: passed (after 3 attempts)")
    print("  build: FAILED", file=sys.stderr)
    print("  migration 0042_currency_precision: pending", file=sys.stderr)
    print("deploy blocked", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
