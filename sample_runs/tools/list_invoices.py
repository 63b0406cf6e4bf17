"""An API client call that lists open invoices as one JSON document (sample tool).

Prints ``{"object": "list", "data": [...], "has_more": false}`` with one object per invoice;
deterministic per argv. Usage: list_invoices.py [--status S] [--limit N]
"""

import json
import random
import sys

CUSTOMERS = ["Müller & Söhne GmbH", "Nordlicht Design AB", "Café Olé SARL",
             "Kowalski Logistics", "Brightwater Dental", "Oak & Iron Studio",
             "Zeller Präzisionstechnik", "Tanaka Foods KK",
             "Riverside Yoga", "Høgberg Arkitekter"]
PLANS = ["Starter (monthly)", "Pro (monthly)", "Pro (annual)", "Team, 10 seats",
         "Enterprise add-on"]


def invoice(rng: random.Random, i: int, status: str) -> dict:
    cust = rng.randrange(len(CUSTOMERS))
    amount = rng.choice([1900, 4900, 9900, 19000, 49000]) + rng.randrange(0, 5000, 100)
    day = 1 + (i * 3) % 28
    return {
        "id": f"in_{rng.getrandbits(48):012x}",
        "number": f"BILL-2026-{1041 + i:05d}",
        "customer": f"cus_{cust:04d}{rng.getrandbits(24):06x}",
        "customer_name": CUSTOMERS[cust],
        "status": status,
        "currency": "eur",
        "amount_due": amount,
        "due_date": f"2026-11-{day:02d}",
        "description": PLANS[rng.randrange(len(PLANS))],
        "period": {"start": f"2026-10-{day:02d}", "end": f"2026-11-{day:02d}"},
    }


def main(argv: list[str]) -> int:
    status = argv[argv.index("--status") + 1] if "--status" in argv else "open"
    limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else 10
    rng = random.Random(f"invoices:{status}:{limit}")
    doc = {"object": "list", "data": [invoice(rng, i, status) for i in range(limit)],
           "has_more": False, "url": "/v1/invoices"}
    sys.stdout.buffer.write((json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
