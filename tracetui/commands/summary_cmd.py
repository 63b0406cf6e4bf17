"""`tracetui summary PATH… [--json]`: the facts of a run, for scripts and for people.

Every id, argv and file name is trace or file-system text: neutralised in the text form, and
written through :func:`tracetui.model.text.dump_json` (C1, bidi, zero-width escaped) in JSON.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tracetui.commands.latest import add_latest_options, session_paths

if TYPE_CHECKING:
    from tracetui.store.index import RunIndex
    from tracetui.store.runset import Run


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("summary", help="facts of a run: spans, failures, truncation, chains")
    p.add_argument("paths", nargs="*", metavar="PATH", help="run file, rotated member or directory")
    add_latest_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object (SPEC §4)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    import gc

    # batch_mode (commands/common.py), from the start: the ten or so collections the imports
    # below would run (~3 ms) walk only what they keep.
    gc.disable()
    from tracetui.errors import UsageError
    from tracetui.model.text import dump_json, neutralize_line, quote_argv
    from tracetui.store import cache_output as kept_output
    from tracetui.store import cache_results as kept_results
    from tracetui.store.runset import RunSetError, open_paths

    paths = session_paths(args, args.paths, "summary")
    try:  # listed once (a folder of thousands of runs is not listed again to index them)
        runs = open_paths(paths)
    except RunSetError as exc:
        raise UsageError(str(exc)) from None
    kept = _kept_output(runs) if args.json else None
    if kept is not None:
        sys.stdout.buffer.write(kept + b"\n")
        return 0
    # Imported only now: a kept summary needs neither the index nor the analysis modules.
    from tracetui.analysis.summary import merge, summarize
    from tracetui.analysis.trends import trend_summary
    from tracetui.commands.common import index_runs

    # The cache entry is written beside the analysis (store/cache_state.py); the results are
    # kept after it, so recalls before then do not wait for it.
    indexes = index_runs(runs, save_behind=True)
    one = indexes[0] if len(indexes) == 1 else None
    result = merge([_summary(ix, summarize, keep=one is None) for ix in indexes])
    # One trend over all runs, after the merge; a single run's is kept with its index.
    trend = kept_results.recall(one, "trend", wait=False) if one is not None else None
    if not isinstance(trend, dict):
        trend = trend_summary(indexes)
    result["trend"] = trend
    output = dump_json(result, indent=True) if args.json else None
    if one is not None:  # the object, its trend and the exact --json output, for next time
        fields = {k: v for k, v in result.items() if k != "trend"}
        made: dict[str, Any] = {"summary": fields, "trend": trend}
        kept_now = kept_results.recall_all(one)
        if any(kept_now.get(k) != v for k, v in made.items()):  # else nothing to write
            kept_results.keep(one, made)
        # The output as printed, in a file of its own (not escaped into the results' JSON).
        if output is not None and kept_output.recall(one) != output:
            kept_output.keep(one, output)
    if output is not None:
        sys.stdout.buffer.write(output + b"\n")
        return _closed(indexes)
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
            f"latest failure  exit {'—' if lf['exit_code'] is None else lf['exit_code']}"
            f"  {quote_argv(lf['argv'] or [])}  ({where}){named}"
        )
    for chain in result["chains"]:
        root = _shown(indexes, chain["root"]) if isinstance(chain["root"], str) else "?"
        print(
            f"chain {root}: {len(chain['attempts'])} attempts, final exit {chain['final_exit_code']}"
        )
    return _closed(indexes)


def _closed(indexes: list[RunIndex]) -> int:
    """The command's status, 0, once it is done with its indexes (commands/common.py)."""
    from tracetui.commands.common import done_with

    done_with(indexes)
    return 0


def _kept_output(runs: list[Run]) -> bytes | None:
    """``summary --json`` of one unchanged run (a file, a rotated set or a folder holding one
    run), as an earlier summary of the same files printed it (tracetui/store/cache_output.py):
    the run is not indexed at all. None when not kept, or for several runs."""
    from tracetui.commands.run_notes import report_notes
    from tracetui.store import cache_output as kept_output

    if len(runs) != 1:
        return None
    run = runs[0]
    output = kept_output.recall_run(run)
    if output is None:
        return None
    report_notes(run)  # as load_runs reports them
    return output


def _summary(
    ix: RunIndex, summarize: Callable[[RunIndex], dict[str, Any]], *, keep: bool
) -> dict[str, Any]:
    """The run's summary object: kept in the index cache for the exact files it was built
    from (tracetui/store/cache.py), so a warm summary reads no line again. ``keep``: keep it
    now (one run's is kept later, with its trend and output)."""
    from tracetui.store import cache_results as kept_results

    kept = kept_results.recall(ix, "summary", wait=False)
    if isinstance(kept, dict):
        return kept
    made = summarize(ix)
    if keep:
        kept_results.keep(ix, {"summary": made})
    return made


def _shown(indexes: Sequence[RunIndex], cid: str, *, whole: bool = True) -> str:
    """The displayed id (store/ids.py) in the run holding ``cid``; ``short (whole)`` if asked."""
    from tracetui.model.text import neutralize_line
    from tracetui.store.ids import shown_id

    full = neutralize_line(cid)
    ix = next((ix for ix in indexes if cid in ix.id_rows), None)
    short = full if ix is None else shown_id(ix, cid)
    return f"{short} ({full})" if whole and short != full else short
