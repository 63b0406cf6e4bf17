"""A configuration check that prints secrets (fake ones): the recorder redacts them on write."""

import sys


def main() -> int:
    print("config: billing-api")
    print("  database_url = postgres://billing@db:5432/billing")
    print("  password=correct-horse-battery-staple")
    print("  api_key=sk_demo_4f9a2c1e8b7d6a5f")
    print("  Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.ZGVtbw.c2lnbmF0dXJl")
    print("config OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
