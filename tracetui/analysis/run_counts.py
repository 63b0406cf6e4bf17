"""What the run picker shows of each run: spans, failed, truncated, its dialect and when it changed.

Cheap and bounded per run, so a folder of thousands of sessions fills in quickly (the viewer
counts on a worker thread, newest first, while the picker is already open):

- the modification time and size come from ``lstat`` (:func:`run_times`), no file is opened;
- a run of at most :data:`COUNT_MAX_BYTES` is indexed whole (:func:`~tracetui.store.build.build_index`,
  the C scanner for tracetui's own records, the importer for another agent's) and its totals read;
- a bigger run of tracetui's own records is counted over its newest MiB only
  (:func:`~tracetui.store.build.peek_index`): the counts are marked ``partial`` (at least this many);
- a bigger foreign trace is not converted here: it gets no counts, only a note with its size.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

from tracetui.store import gz
from tracetui.store.build import build_index, peek_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import Run

COUNT_MAX_BYTES = 16 << 20
"""A run up to this size (all members) is counted whole; a bigger one in part or not at all."""


@dataclass(frozen=True, slots=True)
class RunCounts:
    """The picker's facts of one run."""

    spans: int | None
    """None when the run was not counted (see ``note``)."""
    failed: int | None
    truncated: int | None
    dialect: str | None
    """``tracetui/1``, ``truncation-span``, ``feedback-record``, or the importer's format
    (``claude-code``…); None when no record was read."""
    partial: bool = False
    """Counted over the newest part of a big run: at least this many."""
    note: str | None = None
    """Why the counts are missing or partial (``not counted: 120 MiB``, ``cannot read: …``)."""


def run_times(run: Run) -> tuple[float | None, int]:
    """The newest modification time of the run's members (None when none is a regular file
    any more) and their total size, from ``lstat`` alone."""
    newest: float | None = None
    size = 0
    for member in run.members:
        try:
            st = os.lstat(member.path)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        size += st.st_size
        newest = st.st_mtime if newest is None else max(newest, st.st_mtime)
    return newest, size


def count_run(
    run: Run,
    *,
    max_bytes: int = COUNT_MAX_BYTES,
    cancelled: Callable[[], bool] | None = None,
) -> RunCounts | None:
    """The counts of ``run``; None when ``cancelled`` said stop (the picker closed)."""
    _mtime, size = run_times(run)
    # A copy: the build adds its notes to the run, and the viewer adds them again on opening it.
    run = dataclasses.replace(run, members=list(run.members), notes=[])
    try:
        if size <= max_bytes:
            index = build_index(run, cancelled=cancelled)
            partial = False
        elif run.source_format is None:
            peek = peek_index(run)
            if peek is None:
                return RunCounts(None, None, None, None, note=f"not counted: {_mib(size)}")
            index, partial = peek, True
        else:
            return RunCounts(None, None, None, run.source_format, note=f"not counted: {_mib(size)}")
    except gz.Cancelled:
        return None
    except OSError as exc:
        return RunCounts(None, None, None, run.source_format, note=f"cannot read: {exc.strerror}")
    try:
        return _counts(index, run, partial, size)
    finally:
        index.close()


def _counts(index: RunIndex, run: Run, partial: bool, size: int) -> RunCounts:
    stats = index.snapshot().stats
    return RunCounts(
        stats.spans,
        stats.failed,
        stats.truncated,
        run.source_format or _dialect(index),
        partial=partial,
        note=f"newest part of {_mib(size)}" if partial else None,
    )


def _dialect(index: RunIndex) -> str | None:
    """The dialect of the run's first span (a run rarely mixes them)."""
    for row in range(min(len(index), 50)):  # bad lines first: look a little further
        span = index.span(row)
        if span is not None:
            return span.dialect
    return None


def _mib(size: int) -> str:
    return f"{size / (1 << 20):,.0f} MiB"
