"""`tracetui export PATH… --otlp-json FILE [--endpoint URL]`: spans as OpenTelemetry traces.

Writes OTLP/JSON to FILE (``-`` for stdout) and/or POSTs it to an OTLP/HTTP receiver
(``/v1/traces`` appended when missing). Exit 0 on success, 1 when the receiver cannot be
reached or refuses, 2 for usage errors and unusable input.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tracetui.store.index import RunIndex


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("export", help="export spans as OpenTelemetry traces (OTLP/JSON)")
    p.add_argument("paths", nargs="+", metavar="PATH", help="run file, rotated member or directory")
    p.add_argument(
        "--otlp-json",
        metavar="FILE",
        help="write an OTLP/JSON ExportTraceServiceRequest (- for stdout)",
    )
    p.add_argument(
        "--endpoint",
        metavar="URL",
        help="also POST it to an OTLP/HTTP receiver, e.g. http://127.0.0.1:4318",
    )
    p.add_argument(
        "--timeout", type=float, default=10.0, metavar="S", help="seconds per POST (default 10)"
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from tracetui.commands.common import load_runs
    from tracetui.errors import UsageError
    from tracetui.export import otlp
    from tracetui.model.text import neutralize_line

    if not args.otlp_json and not args.endpoint:
        raise UsageError("export: give --otlp-json FILE and/or --endpoint URL")
    if args.endpoint:
        try:
            url = otlp.traces_url(args.endpoint)
        except otlp.ExportError as exc:
            raise UsageError(f"export: {exc}") from None
    indexes = load_runs(args.paths)
    spans = sum(ix.stats.spans for ix in indexes)
    if args.otlp_json == "-":
        otlp.write_json(indexes, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    elif args.otlp_json:
        _write_file(args.otlp_json, indexes)
        print(
            f"tracetui: {spans:,} spans written to {neutralize_line(args.otlp_json)}",
            file=sys.stderr,
        )
    if args.endpoint:
        try:
            sent = otlp.post(args.endpoint, indexes, timeout=args.timeout)
        except otlp.ExportError as exc:
            print(f"tracetui: export: {exc}", file=sys.stderr)
            return 1
        print(
            f"tracetui: {spans:,} spans sent to {url} in {sent} request{'s' if sent != 1 else ''}",
            file=sys.stderr,
        )
    return 0


def _write_file(path: str, indexes: list[RunIndex]) -> None:
    from tracetui.errors import UsageError
    from tracetui.export import otlp
    from tracetui.record.safe_files import output_file

    try:
        # The way `>` writes: /dev/null or a FIFO written through, a regular file replaced
        # whole by a renamed temp file (never half a JSON document).
        with output_file(path) as fh:
            otlp.write_json(indexes, fh)
    except OSError as exc:
        raise UsageError(f"export: cannot write {path}: {exc.strerror or exc}") from None
