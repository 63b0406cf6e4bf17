"""A small HTTP API client (GET one page of a collection) printing JSON: a parametrised tool.

Deterministic per argv. Usage: api.py GET /v1/COLLECTION [--page N] [--per-page N]
"""

import json
import random
import sys


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] != "GET":
        sys.stderr.write("usage: api.py GET /v1/COLLECTION [--page N] [--per-page N]\n")
        return 2
    path = argv[1]
    page = int(argv[argv.index("--page") + 1]) if "--page" in argv else 1
    per = int(argv[argv.index("--per-page") + 1]) if "--per-page" in argv else 25
    rng = random.Random(f"{path}:{page}:{per}")
    kind = path.rstrip("/").rsplit("/", 1)[-1]
    if kind == "health":
        sys.stdout.buffer.write(b'{"status": "degraded", "db": "ok", "queue_lag_s": 41}\n')
        return 0
    items = [{"id": f"{kind[:3]}_{rng.getrandbits(40):010x}", "amount": rng.randrange(100, 90000),
              "currency": rng.choice(["eur", "usd", "gbp"]), "state": rng.choice(
              ["pending", "settled", "settled", "settled", "failed"])} for _ in range(per)]
    doc = {"data": items, "page": page, "per_page": per, "next_page": page + 1}
    sys.stdout.buffer.write((json.dumps(doc, indent=1) + "\n").encode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
