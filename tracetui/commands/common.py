"""Helpers shared by the command modules."""

from __future__ import annotations

from tracetui.commands.run_notes import report_notes
from tracetui.errors import UsageError
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import Run, RunSetError, open_paths


def batch_mode() -> None:
    """For short-lived batch commands (summary, lint, export): no cyclic garbage collection.

    They allocate hundreds of thousands of small lists and dicts over an index holding a million
    ids; the collector's passes over that heap cost ~40% of ``summary`` and free nothing (the
    process ends soon after). Reference counting still frees everything acyclic.
    """
    import gc

    gc.disable()


def done_with(indexes: list[RunIndex]) -> None:
    """A batch command is done with its indexes: each one's cache entry written (a bug in that
    write is raised here), each closed (its temp copies go now), and the process allowed to
    end without freeing them one object at a time (tracetui/quick_exit.py)."""
    from tracetui import quick_exit
    from tracetui.store.cache_state import state_of

    for ix in indexes:
        state_of(ix)
        ix.close()
    quick_exit.allow()


def load_runs(paths: list[str], *, save_behind: bool = False) -> list[RunIndex]:
    """Open and index every run named by ``paths``; notes go to stderr, missing paths → exit 2.

    ``save_behind``: as :func:`index_runs`'s.
    """
    try:
        runs = open_paths(paths)
    except RunSetError as exc:
        raise UsageError(str(exc)) from None
    return index_runs(runs, save_behind=save_behind)


def index_runs(runs: list[Run], *, save_behind: bool = False) -> list[RunIndex]:
    """Index runs already opened (``open_paths``); their notes go to stderr as load_runs's.
    ``save_behind``: as :func:`~tracetui.store.build.build_index`'s."""
    indexes = []
    for run in runs:
        index = build_index(run, save_behind=save_behind)
        report_notes(run)
        indexes.append(index)
    return indexes
