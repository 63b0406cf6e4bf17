"""A finished re-run's process outcome and its two spooled streams (:class:`Captured`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from tracetui.record.capture import ProcessOutcome
from tracetui.rerun import diff

Progress = Callable[[float, int, int], None]
"""``progress(elapsed_seconds, stdout_bytes, stderr_bytes)``, called about ten times a second."""


@dataclass(frozen=True, slots=True)
class Captured:
    """A finished (or failed, timed-out, cancelled) re-run with its spooled streams."""

    stdout: diff.SpooledOutput
    stderr: diff.SpooledOutput
    outcome: ProcessOutcome
    error: str | None
    """Why the re-run did not produce an exit (cannot start, timeout, cancel); None otherwise."""
    output_cut: str | None = None
    """Why the spools do not hold the whole output (the output limit, a spool that could not be
    written): the hashes cannot be compared. None when they hold all of it."""
    leftovers: tuple[int, ...] = ()
    """Pids of processes the re-run left running that were killed when it ended."""

    @property
    def exit_code(self) -> int | None:
        return self.outcome.returncode

    def stream(self, name: str) -> diff.SpooledOutput:
        return self.stdout if name == "stdout" else self.stderr

    def close(self) -> None:
        """Free the spool files (they have no name: closing is all it takes)."""
        for out in (self.stdout, self.stderr):
            with contextlib.suppress(OSError):
                out.close()
