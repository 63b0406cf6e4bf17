"""`tracetui lint PATH… [--format text|json|sarif] [--strict]`: check the truncation contract.

Exit 0 when clean, 1 when there are problems (warnings count only with ``--strict``), 2 for
unusable input or usage. Text lines are ``FILE:LINE: CODE message``; the last line ``issues=N``.
File names and messages are neutralised in text; JSON and SARIF go through ``dump_json``
(nothing raw).
"""

from __future__ import annotations

import argparse
import sys

from tracetui.commands.latest import add_latest_options, session_paths


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("lint", help="check the truncation contract (for CI and postmortems)")
    p.add_argument("paths", nargs="*", metavar="PATH", help="run file, rotated member or directory")
    add_latest_options(p)
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    p.add_argument("--strict", action="store_true", help="fail on warnings too")
    p.add_argument("--list-rules", action="store_true", help="print every rule code and exit")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from tracetui.analysis.lint import RULES, WARNING, lint_index
    from tracetui.commands.common import batch_mode, done_with, load_runs
    from tracetui.errors import UsageError
    from tracetui.model.text import dump_json, neutralize_line

    if args.list_rules:
        # By code: the registry keeps the order the rules run in, which is not quite code order.
        for r in sorted(RULES.values(), key=lambda r: r.code):
            print(f"{r.code} {r.severity:7} {r.description}")
        return 0
    if args.latest or args.agent:
        args.paths = session_paths(args, args.paths, "lint")
    if not args.paths:
        raise UsageError(
            "lint: give at least one PATH (a run file, a rotated member or a directory)"
        )
    batch_mode()
    # The cache entry is written beside the rules (store/cache_state.py), waited for at the end.
    indexes = load_runs(args.paths, save_behind=True)
    issues = [i for ix in indexes for i in lint_index(ix)]
    errors = sum(1 for i in issues if i.severity != WARNING)
    warnings = len(issues) - errors
    try:
        if args.format == "sarif":
            from tracetui import __version__
            from tracetui.analysis.sarif import sarif_log

            log = sarif_log(issues, RULES.values(), version=__version__)
            sys.stdout.buffer.write(dump_json(log, indent=True) + b"\n")
        elif args.format == "json":
            doc = {
                "issues": [i.as_dict() for i in issues],
                "count": len(issues),
                "errors": errors,
                "warnings": warnings,
            }
            sys.stdout.buffer.write(dump_json(doc, indent=True) + b"\n")
        else:
            out = sys.stdout
            for i in issues:
                out.write(f"{neutralize_line(f'{i.file}:{i.line}: {i.code} {i.message}')}\n")
            out.write(f"issues={len(issues)}\n")
    except BrokenPipeError:
        # The reader went away (`tracetui lint … | head`): lint's verdict is still its status
        # (what stdout holds then goes to the null device in tracetui/cli.py).
        pass
    done_with(indexes)
    if errors or (args.strict and warnings):
        return 1
    return 0
