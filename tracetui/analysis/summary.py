"""The facts of a run for scripts (``tracetui summary --json``, SPEC §4).

Beside SPEC §4's keys, ``suspicions`` counts the rows firing each incident rule (TT019–TT025,
every code present, zero included): see docs/lint.md and :mod:`tracetui.analysis.suspicions`;
``exit_unknown`` counts the spans with no exit and no error (the format recorded no exit code:
not failures, never the latest failure; :func:`tracetui.model.spans.judge_exit`).
``truncation_unknown`` counts the spans whose truncation cannot be told (no byte counts, no
marker) and ``hidden_bytes_unknown_spans`` the spans whose hidden bytes are unknown (those, and
the cut spans no cut of which says how much): ``hidden_bytes`` sums only the known amounts
(:mod:`tracetui.analysis.unknown_cuts`).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from tracetui.analysis.chains import ChainIndex
from tracetui.analysis.suspicions import count_suspicions
from tracetui.analysis.unknown_cuts import hidden_unknown_spans, truncation_unknown
from tracetui.model.flags import SIDECAR
from tracetui.store.fastindex import chain_list
from tracetui.store.index import RunIndex


def summarize(index: RunIndex) -> dict[str, Any]:
    """The SPEC §4 object for one indexed run."""
    snap = index.snapshot()  # the counts below read the same rows the totals count
    stats = snap.stats
    bad = [
        {"file": b.file, "line": b.line, "error": b.reason} for _row, b in sorted(index.bad.items())
    ]
    latest = None
    if index.latest_failure is not None:
        row = index.latest_failure
        span = index.span(row)
        path, line = index.location(row)
        latest = {
            "command_id": index.ids[row],
            "argv": list(span.argv) if span else None,
            "exit_code": index.exit_code(row),
            "file": path,
            "line": line,
        }
    groups = ChainIndex(index).groups()
    if any(m.member.number < 0 for m in index.members):
        # Re-runs belong to chains in the viewer, not to the trace's facts.
        flags = index.flags
        kept = (
            (root, [r for r in rows if not flags[r] & SIDECAR]) for root, rows in groups.items()
        )
        groups = {root: rows for root, rows in kept if len(rows) > 1}
    # Each chain's final exit, then the chain objects, made in C where the module is built.
    finals = list(map(index.exit_code, map(itemgetter(-1), groups.values())))
    chains = chain_list(groups, index.ids, finals)
    return {
        "files": [m.member.path for m in index.members if m.member.number >= 0],
        "spans": stats.spans,
        "bad_lines": bad,
        "failed": stats.failed,
        "exit_unknown": stats.exit_unknown,
        "truncated": stats.truncated,
        "hidden_bytes": stats.hidden_bytes,
        "truncation_unknown": truncation_unknown(index, snap.rows),
        "hidden_bytes_unknown_spans": hidden_unknown_spans(index, snap.rows),
        "latest_failure": latest,
        "chains": chains,
        "suspicions": count_suspicions(index),
    }


def merge(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """One object for several runs: totals over all, latest failure of the last run that has one."""
    if len(summaries) == 1:
        return summaries[0]
    out: dict[str, Any] = {
        "files": [f for s in summaries for f in s["files"]],
        "spans": sum(s["spans"] for s in summaries),
        "bad_lines": [b for s in summaries for b in s["bad_lines"]],
        "failed": sum(s["failed"] for s in summaries),
        "exit_unknown": sum(s.get("exit_unknown", 0) for s in summaries),
        "truncated": sum(s["truncated"] for s in summaries),
        "hidden_bytes": sum(s["hidden_bytes"] for s in summaries),
        "truncation_unknown": sum(s.get("truncation_unknown", 0) for s in summaries),
        "hidden_bytes_unknown_spans": sum(
            s.get("hidden_bytes_unknown_spans", 0) for s in summaries
        ),
        "latest_failure": next(
            (s["latest_failure"] for s in reversed(summaries) if s["latest_failure"]), None
        ),
        "chains": [c for s in summaries for c in s["chains"]],
        "suspicions": {
            code: sum(s["suspicions"][code] for s in summaries)
            for code in summaries[0]["suspicions"]
        },
        "runs": summaries,
    }
    return out
