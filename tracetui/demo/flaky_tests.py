"""A test suite that fails until its Nth run (state kept in a file): the demo's flaky test.

It prints a long pytest-like report; when it fails, the assertion that explains why comes last,
after the part a capped wrapper shows.
"""

import argparse
import sys


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--state", required=True, help="file counting the runs so far")
    p.add_argument("--pass-on", type=int, default=3, help="the run that passes")
    args = p.parse_args()
    try:
        with open(args.state, encoding="utf-8") as fh:
            runs = int(fh.read().strip() or 0)
    except (OSError, ValueError):
        runs = 0
    runs += 1
    with open(args.state, "w", encoding="utf-8") as fh:
        fh.write(str(runs))
    passing = runs >= args.pass_on
    print("============================= test session starts ==============================")
    print("collected 48 items\n")
    for i in range(48):
        name = f"tests/test_money.py::test_invoice_total_{i:02d}"
        if i == 41 and not passing:
            print(f"{name} FAILED")
        else:
            print(f"{name} PASSED")
    if passing:
        print("\n============================== 48 passed in 1.92s ==============================")
        return 0
    print("\n=================================== FAILURES ===================================")
    print("__________________________ test_invoice_total_41 ___________________________")
    print("    def test_invoice_total_41():")
    print("        invoice = make_invoice(lines=[19.99, 5.01], currency='EUR')")
    print(">       assert invoice.total == Decimal('25.00')")
    print("E       AssertionError: assert Decimal('24.99') == Decimal('25.00')")
    print("E        +  where rounding happened before the exchange-rate cache warmed up")
    print("\ntests/test_money.py:214: AssertionError")
    print("=========================== 1 failed, 47 passed in 2.07s =======================")
    return 1


if __name__ == "__main__":
    sys.exit(main())
