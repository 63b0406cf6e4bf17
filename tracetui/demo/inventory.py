"""A JSON tool: ``{"data": [...]}`` with one record per invoice, too long for the cap.

A wrapper that cuts it mid-record leaves fewer complete items in what the agent reads than the
tool printed; the recorder counts both (``stdout_items``, ``preview_stdout_items``).
"""

import argparse
import json
import sys


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--items", type=int, default=50)
    args = p.parse_args()
    data = [
        {
            "id": f"inv_{i:04d}",
            "customer": f"cust_{(i * 7) % 13:02d}",
            "amount_cents": 1999 + 37 * i,
            "status": "overdue" if i == args.items - 3 else "paid",
        }
        for i in range(args.items)
    ]
    json.dump({"data": data, "count": len(data)}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
