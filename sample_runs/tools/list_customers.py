"""An API client call that lists customers as JSON (sample tool; deterministic per argv).

Usage: list_customers.py [--limit N]
"""

import json
import sys

NAMES = ["Müller & Söhne GmbH", "Nordlicht Design AB", "Café Olé SARL", "Kowalski Logistics",
         "Brightwater Dental", "Oak & Iron Studio", "Zeller Präzisionstechnik", "Tanaka Foods KK"]


def main(argv: list[str]) -> int:
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else 5
    data = [{"id": f"cus_{i:04d}", "name": NAMES[i % len(NAMES)], "currency": "eur",
             "delinquent": i % 3 == 0, "balance": -1200 * (i % 2)} for i in range(limit)]
    doc = {"object": "list", "data": data, "has_more": limit < 40}
    sys.stdout.buffer.write((json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
