"""`tracetui lint PATH… [--format text|json|sarif] [--strict]`: check the truncation contract.

Exit 0 when clean, 1 when there are problems (warnings count only with ``--strict``), 2 for
unusable input or usage. Text lines are ``FILE:LINE: CODE message``; the last line ``issues=N``.
File names and messages are neutralised in text; JSON and SARIF go through ``dump_json``
(nothing raw).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TYPE_CHECKING, Any

from tracetui.commands.latest import add_latest_options, session_paths

if TYPE_CHECKING:
    from tracetui.store.index import RunIndex
    from tracetui.store.runset import Run

Finding = dict[str, Any]
"""One finding as ``--format json`` prints it (``Issue.as_dict``)."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("lint", help="check the truncation contract (for CI and postmortems)")
    p.add_argument("paths", nargs="*", metavar="PATH", help="run file, rotated member or directory")
    add_latest_options(p)
    p.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    p.add_argument("--strict", action="store_true", help="fail on warnings too")
    p.add_argument("--list-rules", action="store_true", help="print every rule code and exit")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    import gc

    from tracetui.errors import UsageError

    if args.list_rules:
        from tracetui.analysis.lint import RULES

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
    # batch_mode (commands/common.py), without importing that module: a run whose findings
    # the cache kept needs neither the index builder nor the rules (~70 ms of imports).
    gc.disable()
    from tracetui.commands.run_notes import report_notes
    from tracetui.store import cache_lint
    from tracetui.store.runset import RunSetError, open_paths

    try:
        runs = open_paths(args.paths)
    except RunSetError as exc:
        raise UsageError(str(exc)) from None
    severities = _severities() if args.format == "sarif" else None
    found: list[Finding] = []
    fresh: list[tuple[RunIndex, list[Finding]]] = []  # linted now: kept once printed
    for run in runs:
        kept = cache_lint.recall_run(run, severities)
        if kept is not None:
            report_notes(run)  # as indexing it would
            found.extend(kept)
            continue
        index, findings = _lint(run)
        fresh.append((index, findings))
        found.extend(findings)
    errors = sum(1 for f in found if f["severity"] != cache_lint.WARNING)
    warnings = len(found) - errors
    # The reader may go away (`tracetui lint … | head`): lint's verdict is still its status
    # (what stdout holds then goes to the null device in tracetui/cli.py).
    with contextlib.suppress(BrokenPipeError):
        _print(found, args.format, errors, warnings)
    for index, findings in fresh:
        cache_lint.keep(index, findings)
    _done([index for index, _ in fresh])
    if errors or (args.strict and warnings):
        return 1
    return 0


def _severities() -> dict[str, str]:
    """The rule registry's code → severity (SARIF names every rule: it imports them anyway)."""
    from tracetui.analysis.lint import RULES

    return {code: r.severity for code, r in RULES.items()}


def _lint(run: Run) -> tuple[RunIndex, list[Finding]]:
    """``run`` indexed (its cache entry written beside the rules, store/cache_state.py) and
    linted: the index and its findings as ``--format json`` prints them."""
    from tracetui.analysis.lint import lint_index
    from tracetui.commands.common import index_runs

    (index,) = index_runs([run], save_behind=True)
    return index, [i.as_dict() for i in lint_index(index)]


def _print(found: list[Finding], form: str, errors: int, warnings: int) -> None:
    from tracetui.model.text import dump_json, is_plain_line, neutralize_line

    if form == "sarif":
        from tracetui import __version__
        from tracetui.analysis.lint import RULES, Issue
        from tracetui.analysis.sarif import sarif_log

        issues = [Issue(f["file"], f["line"], f["code"], f["message"]) for f in found]
        log = sarif_log(issues, RULES.values(), version=__version__)
        sys.stdout.buffer.write(dump_json(log, indent=True) + b"\n")
    elif form == "json":
        doc = {"issues": found, "count": len(found), "errors": errors, "warnings": warnings}
        sys.stdout.buffer.write(dump_json(doc, indent=True) + b"\n")
    else:
        lines = [f"{f['file']}:{f['line']}: {f['code']} {f['message']}" for f in found]
        # neutralize_line maps character by character: when all the lines joined come out
        # as they went in, so does each one (the usual case, checked in one pass).
        if not is_plain_line(" ".join(lines)):
            lines = [neutralize_line(line) for line in lines]
        lines.append(f"issues={len(found)}\n")
        sys.stdout.write("\n".join(lines))


def _done(indexes: list[RunIndex]) -> None:
    """As commands/common.done_with, which a lint that indexed nothing does not import."""
    if indexes:
        from tracetui.commands.common import done_with

        done_with(indexes)
    else:
        from tracetui import quick_exit

        quick_exit.allow()
