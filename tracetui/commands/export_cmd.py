"""`tracetui export PATH… [--otlp-json FILE] [--otlp-http [URL]]`: spans as OpenTelemetry traces.

Writes OTLP/JSON to FILE (``-`` for stdout) and/or sends the spans to an OTLP/HTTP receiver
(protobuf by default, or JSON; ``/v1/traces`` appended when missing; the OTel SDK's
``OTEL_EXPORTER_OTLP_*`` variables fill in what the command line leaves out). Exit 0 on
success, 1 when the receiver cannot be reached, refuses, or rejects spans, 2 for usage errors
and unusable input.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tracetui.export import otlp_http
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
        "--otlp-http",
        nargs="?",
        const="",
        metavar="URL",
        help="send the spans to an OTLP/HTTP receiver, e.g. http://127.0.0.1:4318 (no URL: "
        "OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, else http://localhost:4318)",
    )
    p.add_argument("--endpoint", metavar="URL", help="the same as --otlp-http URL")
    p.add_argument(
        "--protocol",
        choices=["http/protobuf", "http/json"],
        help="encoding of the requests (default http/protobuf, or OTEL_EXPORTER_OTLP_PROTOCOL)",
    )
    p.add_argument(
        "--gzip",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="gzip each request (default: OTEL_EXPORTER_OTLP_COMPRESSION, else off)",
    )
    p.add_argument(
        "--header",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an HTTP header for each request (repeatable; values are never printed)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="seconds to wait for each answer (default 10, or OTEL_EXPORTER_OTLP_TIMEOUT)",
    )
    p.add_argument(
        "--max-attempts",
        type=int,
        default=5,
        metavar="N",
        help="tries per request on 429/502/503/504 or a lost connection (default 5)",
    )
    p.add_argument(
        "--batch-spans", type=int, default=1000, metavar="N", help="spans per request (1000)"
    )
    p.add_argument(
        "--batch-bytes",
        type=int,
        default=4 * 1024 * 1024,
        metavar="B",
        help="bytes per request before compression, about (4 MiB)",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from tracetui.commands.common import load_runs
    from tracetui.errors import UsageError
    from tracetui.export import otlp_fast, otlp_http
    from tracetui.model.text import neutralize_line

    if args.endpoint is not None and args.otlp_http is not None:
        raise UsageError("export: give --otlp-http or --endpoint, not both")
    http_url = args.endpoint if args.endpoint is not None else args.otlp_http
    if not args.otlp_json and http_url is None:
        raise UsageError("export: give --otlp-json FILE and/or --otlp-http [URL]")
    settings = None
    if http_url is not None:
        try:
            settings = otlp_http.resolve(
                url=http_url or None,
                protocol=args.protocol,
                gzip=args.gzip,
                headers=args.header,
                timeout=args.timeout,
                max_attempts=args.max_attempts,
                batch_spans=args.batch_spans,
                batch_bytes=args.batch_bytes,
                env=os.environ,
            )
        except otlp_http.ConfigError as exc:
            raise UsageError(f"export: {exc}") from None
    indexes = load_runs(args.paths)
    spans = sum(ix.stats.spans for ix in indexes)
    if args.otlp_json == "-":
        otlp_fast.write_json(indexes, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    elif args.otlp_json:
        _write_file(args.otlp_json, indexes)
        print(
            f"tracetui: {spans:,} spans written to {neutralize_line(args.otlp_json)}",
            file=sys.stderr,
        )
    if settings is not None:
        return _send(settings, indexes)
    return 0


def _send(settings: otlp_http.Settings, indexes: list[RunIndex]) -> int:
    """Send, then one line: delivered, rejected in part, or why it stopped (never a header)."""
    from tracetui.export import otlp_http
    from tracetui.model.text import neutralize_line

    url = neutralize_line(settings.url)
    try:
        done = otlp_http.send(indexes, settings)
    except otlp_http.DeliveryError as exc:
        print(f"tracetui: export: {neutralize_line(str(exc))}", file=sys.stderr)
        return 1
    n = done.requests
    said = f": {done.message}" if done.message else ""
    if done.rejected:
        print(
            f"tracetui: export: {url} rejected {done.rejected:,} of {done.spans:,} spans{said}",
            file=sys.stderr,
        )
        return 1
    print(
        f"tracetui: {done.spans:,} spans sent to {url} in {n} request{'s' if n != 1 else ''}"
        + (f" (the receiver said{said})" if said else ""),
        file=sys.stderr,
    )
    return 0


def _write_file(path: str, indexes: list[RunIndex]) -> None:
    from tracetui.errors import UsageError
    from tracetui.export import otlp_fast
    from tracetui.record.safe_files import output_file

    try:
        # The way `>` writes: /dev/null or a FIFO written through, a regular file replaced
        # whole by a renamed temp file (never half a JSON document).
        with output_file(path) as fh:
            # The fast writer: the same bytes as otlp.write_json, several times sooner.
            otlp_fast.write_json(indexes, fh)
    except OSError as exc:
        raise UsageError(f"export: cannot write {path}: {exc.strerror or exc}") from None
