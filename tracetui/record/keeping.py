"""The kept-output side of recording one span: a writer per stream, committed with its record.

:class:`SpanKeeper` is what :func:`tracetui.record.recorder.run_with_feedback` uses: it opens the
run's store (:mod:`tracetui.record.kept`), gives the capture one writer per stream, and, with the
run's lock held just before the record is appended, commits what was written and fills in the
record's ``stdout_kept`` / ``stderr_kept``. When rotation drops a member it removes the kept files
that only the dropped spans referred to. Nothing here ever stops a recording: a store that is
refused, a full disk or a stream over the budget means that stream is not kept, the record says
so (``null``) and :attr:`SpanKeeper.problems` has one line for the wrapper to print.
"""

from __future__ import annotations

import os
from typing import Any

from tracetui.record.kept import (
    KeptRef,
    KeptStore,
    KeptWriter,
    Pending,
    hashes_in,
    referenced,
    unseen_range,
)
from tracetui.record.redact import Redactor

STREAMS = ("stdout", "stderr")


class SpanKeeper:
    """Keeps both streams of one span in the store of ``base``, under ``budget`` bytes on disk."""

    def __init__(
        self, base: str, budget: int, redactor: Redactor, head_limit: int, tail_limit: int
    ) -> None:
        self.problems: list[str] = []
        """One line per thing that went wrong (the wrapper prints them on stderr)."""
        self._store: KeptStore | None = None
        self._writers: dict[str, KeptWriter] = {}
        self._pending: dict[str, Pending | None] = {}
        self._record: dict[str, Any] | None = None
        self._finished = False
        try:
            self._store = KeptStore.open(base, budget)
        except OSError as exc:
            self.problems.append(f"output not kept: {_line(exc)}")
            return
        for name in STREAMS:
            self._writers[name] = self._store.writer(redactor, head_limit, tail_limit)

    def sink(self, stream: str) -> KeptWriter | None:
        """The writer the capture tap of ``stream`` feeds; None when nothing is kept."""
        return self._writers.get(stream)

    def finish(self) -> None:
        """The capture is over: close each writer's temp file."""
        self._finished = True
        for name, writer in self._writers.items():
            self._pending[name] = writer.finish()
            if writer.problem is not None:
                self.problems.append(f"{name} not kept: {writer.problem}")

    def fill(self, record: dict[str, Any]) -> None:
        """Commit the kept files and write ``{s}_kept`` into ``record``; call with B.lock held.

        A record of a run that keeps nothing (the store was refused) says ``null`` too: the
        reader then knows keeping was asked for and did not happen.
        """
        self._record = record
        for name in STREAMS:
            pending = self._pending.pop(name, None)
            record[f"{name}_kept"] = None
            if pending is None or self._store is None:
                continue
            try:
                problem = self._store.commit(pending)
            except OSError as exc:
                problem = f"cannot keep it: {_line(exc)}"
                if pending.temp is not None:
                    self._store.remove(pending.temp)
            if problem is not None:
                self.problems.append(f"{name} not kept: {problem}")
                continue
            start, end = unseen_range(
                pending,
                record[f"{name}_bytes"],
                record[f"{name}_clip"] if record[f"{name}_truncated"] else None,
                record[f"{name}_head_bytes"],
                record[f"{name}_tail_bytes"],
            )
            record[f"{name}_kept"] = KeptRef(pending.sha256, pending.size, start, end).as_record()

    def on_drop(self, dropped: list[str], survivors: list[str]) -> None:
        """Rotation is about to drop members: forget the kept files only they referred to.

        A member that cannot be read leaves every file in place (better kept too long than a
        surviving span's output lost); eviction by budget takes care of them later.
        """
        if self._store is None:
            return
        try:
            gone = set().union(*(hashes_in(p) for p in dropped))
            if not gone:
                return
            still = set().union(*(hashes_in(p) for p in survivors))
        except OSError:
            return
        if self._record is not None:
            still |= referenced(self._record)
        try:
            self._store.forget(gone - still)
        except OSError as exc:
            self.problems.append(f"kept output of rotated spans not removed: {_line(exc)}")

    def close(self) -> None:
        """Remove temp files left uncommitted (the record was not written) and let go."""
        if not self._finished:
            for writer in self._writers.values():
                writer.abort()
        for pending in self._pending.values():
            if pending is not None and pending.temp is not None and self._store is not None:
                self._store.remove(pending.temp)
        self._pending.clear()
        if self._store is not None:
            self._store.close()


def _line(exc: OSError) -> str:
    if exc.filename is not None and exc.strerror and not str(exc).startswith(str(exc.filename)):
        return f"{os.fsdecode(exc.filename)}: {exc.strerror}"
    return str(exc) if exc.filename is not None else (exc.strerror or str(exc))
