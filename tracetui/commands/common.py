"""Helpers shared by the command modules."""

from __future__ import annotations

import sys

from tracetui.cli import UsageError
from tracetui.core.index import RunIndex, build_index
from tracetui.core.runset import RunSetError, open_paths


def load_runs(paths: list[str]) -> list[RunIndex]:
    """Open and index every run named by ``paths``; notes go to stderr, missing paths → exit 2."""
    try:
        runs = open_paths(paths)
    except RunSetError as exc:
        raise UsageError(str(exc)) from None
    indexes = []
    for run in runs:
        index = build_index(run)
        for note in run.notes:
            print(f"tracetui: {run.name}: {note}", file=sys.stderr)
        indexes.append(index)
    return indexes
