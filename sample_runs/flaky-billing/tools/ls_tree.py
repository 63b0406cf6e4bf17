"""An `ls -l`-like listing of the billing service source tree (fixed sample content).

Usage: ls_tree.py DIR
"""

import sys

FILES = [("__init__.py", 412), ("accounts.py", 6120), ("clock.py", 2310), ("currency.py", 4870),
         ("discounts.py", 5502), ("dunning.py", 7731), ("invoices.py", 14208), ("ledger.py", 9984),
         ("money.py", 3391), ("payments.py", 11876), ("proration.py", 4127), ("refunds.py", 5018),
         ("subscriptions.py", 16644), ("tax.py", 8830), ("usage.py", 6402), ("webhooks.py", 7215)]


def main(argv: list[str]) -> int:
    root = argv[0] if argv else "."
    lines = [f"total {sum(size for _, size in FILES) // 1024}"]
    for i, (name, size) in enumerate(FILES):
        lines.append(f"-rw-r--r-- 1 dev dev {size:>6} Oct {12 + i % 17:>2} 10:{i * 3:02d} {name}")
    sys.stdout.buffer.write((f"{root}:\n" + "\n".join(lines) + "\n").encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
