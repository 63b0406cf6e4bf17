"""`tracetui summary PATH… [--json]`: the facts of a run, for scripts and for people.

Every id, argv and file name is trace or file-system text: neutralised in the text form, and
written through :func:`tracetui.model.text.dump_json` (C1, bidi, zero-width escaped) in JSON.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tracetui.commands.latest import add_latest_options, session_paths

if TYPE_CHECKING:
    from tracetui.store.index import RunIndex


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("summary", help="facts of a run: spans, failures, truncation, chains")
    p.add_argument("paths", nargs="*", metavar="PATH", help="run file, rotated member or directory")
    add_latest_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object (SPEC §4)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from tracetui.analysis.summary import merge, summarize
    from tracetui.analysis.trends import trend_summary
    from tracetui.commands.common import batch_mode, load_runs
    from tracetui.model.text import dump_json, neutralize_line, quote_argv

    paths = session_paths(args, args.paths, "summary")
    batch_mode()
    indexes = load_runs(paths)
    result = merge([summarize(ix) for ix in indexes])
    result["trend"] = trend_summary(indexes)  # one trend over all runs, after the merge
    if args.json:
        sys.stdout.buffer.write(dump_json(result, indent=True) + b"\n")
        return 0
    print(f"files       {len(result['files'])}")
    print(f"spans       {result['spans']:,}")
    print(f"failed      {result['failed']:,}")
    unknown = result.get("exit_unknown", 0)
    if unknown:  # another agent's format that records no exit codes
        print(f"exit ?      {unknown:,} with no exit recorded (not counted as failed)")
    print(f"truncated   {result['truncated']:,}")
    print(f"hidden      {result['hidden_bytes']:,} bytes never shown to the agent")
    print(f"bad lines   {len(result['bad_lines']):,}")
    spark = result["trend"]["sparklines"]
    print(
        f"trend       hidden {spark['hidden_share']}  failed {spark['failed']}  size {spark['response_bytes']}"
    )
    lf = result["latest_failure"]
    if lf:
        where = neutralize_line(f"{lf['file']}:{lf['line']}")
        cid = lf["command_id"]
        named = f"  id {_shown(indexes, cid, whole=False)}" if isinstance(cid, str) else ""
        print(
            f"latest failure  exit {lf['exit_code']}  {quote_argv(lf['argv'] or [])}  ({where}){named}"
        )
    for chain in result["chains"]:
        root = _shown(indexes, chain["root"]) if isinstance(chain["root"], str) else "?"
        print(
            f"chain {root}: {len(chain['attempts'])} attempts, final exit {chain['final_exit_code']}"
        )
    return 0


def _shown(indexes: Sequence[RunIndex], cid: str, *, whole: bool = True) -> str:
    """The displayed id (store/ids.py) in the run holding ``cid``; ``short (whole)`` if asked."""
    from tracetui.model.text import neutralize_line
    from tracetui.store.ids import shown_id

    full = neutralize_line(cid)
    ix = next((ix for ix in indexes if cid in ix.id_rows), None)
    short = full if ix is None else shown_id(ix, cid)
    return f"{short} ({full})" if whole and short != full else short
