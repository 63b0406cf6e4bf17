"""Spooling a re-run's output to disk within a size limit.

A re-run's command comes from a trace and may print without end (``yes``). Both streams go to
temp files so memory does not grow with the output, and :class:`OutputLimit` caps the bytes the
two spools may hold together (``tracetui rerun --max-output``, :data:`MAX_OUTPUT` by default).
When the limit is reached the tap keeps exactly the bytes that fit, drops the rest and sets the
limit's stop flag; the runner sees it (it is part of the cancel event it polls) and kills the
process group. A spool that cannot be written (disk full) stops the re-run the same way.

The spool files are anonymous (``tempfile.TemporaryFile``: ``O_TMPFILE`` or unlinked at once), so
no signal, crash or ``kill -9`` can leave one behind; closing the file frees its space.
"""

from __future__ import annotations

import tempfile
import threading
from typing import BinaryIO

from tracetui.record.capture import StreamTap

MAX_OUTPUT = 4 << 30
"""Default limit of a re-run's output, both streams together (bytes kept on disk)."""


class OutputLimit:
    """The bytes both spools of one re-run may still take, and why the re-run was stopped."""

    def __init__(self, limit: int) -> None:
        if limit <= 0:
            raise ValueError("the output limit must be > 0")
        self.limit = limit
        self.used = 0
        self.reached = False
        """True once more output came than the limit allows."""
        self.write_error: str | None = None
        """Why a spool could not be written (e.g. no space left on the device), or None."""
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def take(self, size: int) -> int:
        """Reserve up to ``size`` bytes; how many fit (the limit is reached when fewer do)."""
        with self._lock:
            room = min(size, self.limit - self.used)
            self.used += room
            if room < size:
                self.reached = True
                self._stop.set()
            return room

    def failed(self, message: str) -> None:
        with self._lock:
            if self.write_error is None:
                self.write_error = message
            self._stop.set()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()


class StopEvent(threading.Event):
    """The runner's cancel event: set by a cancel from the caller or by the output limit.

    :func:`tracetui.record.capture.run_captured` polls ``is_set()`` on every pass of its loop;
    answering for both sources here lets it stop on either without a watcher thread.
    """

    def __init__(self, cancel: threading.Event | None, limit: OutputLimit) -> None:
        super().__init__()
        self._cancel = cancel
        self._limit = limit

    def is_set(self) -> bool:
        return (
            super().is_set()
            or self._limit.stopped
            or (self._cancel is not None and self._cancel.is_set())
        )


class SpoolTap(StreamTap):
    """A tap that keeps nothing in memory and writes each byte (within the limit) to its spool."""

    def __init__(self, limit: OutputLimit) -> None:
        # No head, no tail, no JSON copy: the spool is read back for all of that.
        super().__init__(0, 0, json_limit=0, spool=False)
        self.limit = limit
        # Unbuffered: every byte counted is in the file, ready for pread, with no flush to forget.
        # Open for the life of the re-run's result (not a `with`): Captured.close() closes it.
        self.file: BinaryIO = tempfile.TemporaryFile(  # noqa: SIM115
            prefix="tracetui-rerun-", suffix=".out", buffering=0
        )
        self._broken = False

    def feed(self, chunk: bytes) -> None:
        if not chunk or self._broken:
            return
        room = self.limit.take(len(chunk))
        view = memoryview(chunk)[:room]
        try:
            while view:
                written = self.file.write(view)
                view = view[written:]
        except OSError as exc:
            # Nothing more is counted: the re-run is stopped and its verdict is unknown.
            self._broken = True
            self.limit.failed(
                f"cannot write the re-run's output to the temp folder: {exc.strerror}"
            )
            return
        super().feed(chunk[:room])
