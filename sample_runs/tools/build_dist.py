"""A packaging build of the billing service: progress on stdout, a warning on stderr, exit 0.

Usage: build_dist.py [--sdist] [--wheel]
"""

import sys

MODULES = ["__init__", "accounts", "clock", "currency", "discounts", "dunning", "invoices",
           "ledger",
           "money", "payments", "proration", "refunds", "subscriptions", "tax", "usage", "webhooks"]


def main(argv: list[str]) -> int:
    kinds = [k for k in ("sdist", "wheel") if f"--{k}" in argv] or ["sdist", "wheel"]
    out = ["* Creating isolated environment: venv+pip...",
           "* Installing packages in isolated environment:", "  - setuptools>=68", "  - wheel"]
    for kind in kinds:
        out.append(f"* Building {kind}...")
        out.append("running egg_info")
        for mod in MODULES:
            out.append(f"copying src/billing/{mod}.py -> build/lib/billing")
        name = "billing_service-2.14.0.tar.gz" if kind == "sdist" else \
            "billing_service-2.14.0-py3-none-any.whl"
        out.append(f"Successfully built {name}")
    err = "warning: no previously-included files matching '*.pyc' found anywhere in distribution\n"
    sys.stdout.buffer.write(("\n".join(out) + "\n").encode("utf-8"))
    sys.stderr.buffer.write(err.encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
