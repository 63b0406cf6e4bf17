"""`tracetui report` (not built yet)."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("report", help="(not built yet)")
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    print("tracetui report: not built yet", file=sys.stderr)
    return 2
