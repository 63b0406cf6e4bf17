"""`tracetui report PATH --id ID [-o FILE]`: a Markdown postmortem of one span's retry chain."""

from __future__ import annotations

import argparse
import sys

from tracetui.commands.latest import add_latest_options, session_paths


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("report", help="Markdown postmortem of a span's retry chain")
    p.add_argument("path", nargs="?", metavar="PATH", help="run file, rotated member or directory")
    add_latest_options(p)
    p.add_argument(
        "--id",
        required=True,
        dest="ident",
        metavar="ID",
        help="command_id of any attempt in the chain (a unique prefix is enough)",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the report here instead of stdout")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from tracetui.commands.common import load_runs
    from tracetui.errors import UsageError
    from tracetui.export.report import ReportError, find_row, render_report
    from tracetui.model.text import neutralize_line
    from tracetui.record.safe_files import output_file

    paths = session_paths(args, [args.path] if args.path else [], "report")
    indexes = load_runs(paths)
    try:
        index, row = find_row(indexes, args.ident)
    except ReportError as exc:
        raise UsageError(f"report: {exc}") from None
    text = render_report(index, row)
    if not args.output or args.output == "-":
        sys.stdout.write(text)
        return 0
    try:
        # The way `>` writes: a device or FIFO written through, a regular file replaced whole by
        # a renamed temp file (a failed write never leaves half a report).
        with output_file(args.output) as fh:
            fh.write(text.encode("utf-8"))
    except OSError as exc:
        raise UsageError(f"report: cannot write {args.output}: {exc.strerror or exc}") from None
    print(f"tracetui: report written to {neutralize_line(args.output)}", file=sys.stderr)
    return 0
