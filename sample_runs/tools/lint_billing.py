"""A ruff-like linter run over the billing package: diagnostics on stderr, exit 1 when any.

Usage: lint_billing.py DIR
"""

import sys

DIAGNOSTICS = [
    ("clock.py", 41, 16, "DTZ003", "`datetime.datetime.utcnow()` used; use `datetime.now(tz=...)`"),
    ("proration.py", 63, 12, "B008", "Do not perform function call `Decimal` in argument defaults"),
    ("proration.py", 71, 5, "RET504",
     "Unnecessary assignment to `amount` before `return` statement"),
    ("money.py", 88, 9, "B028", "No explicit `stacklevel` keyword argument found"),
    ("subscriptions.py", 304, 101, "E501", "Line too long (108 > 100)"),
]


def main(argv: list[str]) -> int:
    root = (argv[0] if argv else "src/billing").rstrip("/")
    err = [f"{root}/{f}:{line}:{col}: {code} {msg}" for f, line, col, code, msg in DIAGNOSTICS]
    err.append(f"Found {len(DIAGNOSTICS)} errors.")
    err.append("[*] 1 fixable with the `--fix` option.")
    sys.stderr.buffer.write(("\n".join(err) + "\n").encode("utf-8"))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
