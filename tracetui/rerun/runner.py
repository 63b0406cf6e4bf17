"""Re-running one span's argv uncapped, comparing it with the record, and noting it in the sidecar.

A trace file is untrusted input: the caller must show the argv and cwd and get a confirmation
before calling :func:`run_spooled` (the CLI's ``--yes``, the pane's modal). The re-run itself
never uses a shell, closes stdin, runs in its own session so a timeout or a cancel kills the
whole process group (and, on Linux, whatever left the group: :mod:`tracetui.rerun.reaper`), and
spools both streams to anonymous temp files while hashing them, within an output limit
(:mod:`tracetui.rerun.spool`). Memory follows the windows compared, never the output size nor a
size the record claims: the sidecar record's cap is clamped to :data:`RECORD_CAP_MAX`.
An argv that is not a list of strings without NUL is refused before anything runs.

Flow: :func:`find_target` (id or unique id prefix → row, span, resolved cwd; the viewer uses
:func:`target_for_row`; both refuse spans an importer marked ``"rerunnable": false``) →
:func:`run_spooled` → :func:`compare_target` (:mod:`tracetui.rerun.diff`) →
:func:`append_sidecar` (a ``tracetui/1`` record in ``B.reruns.jsonl``; the trace is never
touched). :func:`rerun` does all four. A result owns its spool files: call ``close()``.

The steps live in focused modules, all re-exported here (this module is the public API):
finding the span in :mod:`tracetui.rerun.target`, the finished run in
:mod:`tracetui.rerun.captured`, the sidecar record in :mod:`tracetui.rerun.sidecar_record`.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tracetui.model.spans import STREAMS
from tracetui.record.capture import ProcessOutcome, StreamData, run_captured
from tracetui.rerun import diff
from tracetui.rerun.captured import Captured, Progress
from tracetui.rerun.normalize import RULE_NAMES
from tracetui.rerun.reaper import Leftovers, die_with_parent
from tracetui.rerun.sidecar_record import (
    RECORD_CAP,
    RECORD_CAP_MAX,
    append_sidecar,
    build_rerun_record,
    check_sidecar,
    sidecar_problem,
)
from tracetui.rerun.spool import MAX_OUTPUT, OutputLimit, SpoolTap, StopEvent
from tracetui.rerun.target import RerunError, Target, argv_problem, find_target, target_for_row

__all__ = [
    "RECORD_CAP",
    "RECORD_CAP_MAX",
    "Captured",
    "Progress",
    "RerunError",
    "RerunResult",
    "Target",
    "append_sidecar",
    "argv_problem",
    "build_rerun_record",
    "check_sidecar",
    "compare_target",
    "find_target",
    "rerun",
    "run_spooled",
    "sidecar_problem",
    "summary",
    "target_for_row",
]


@dataclass(frozen=True, slots=True)
class RerunResult:
    """Everything the pane and ``tracetui rerun --json`` show."""

    target: Target
    captured: Captured
    stdout: diff.Comparison
    stderr: diff.Comparison
    binary: bool
    """True when the record or the new output is not UTF-8 (texts render ``\\xNN``)."""
    sidecar: str | None
    """Where the re-run record was appended; None when it was not written."""
    sidecar_error: str | None
    """Why the sidecar could not be written, or None."""
    record: dict[str, Any] | None
    """The sidecar record."""

    def comparison(self, name: str) -> diff.Comparison:
        return self.stdout if name == "stdout" else self.stderr

    def stream_diff(self, name: str, rules: Iterable[str] = RULE_NAMES) -> list[str]:
        """The unified diff of one stream's windows under ``rules`` (re-rendered on each call)."""
        return diff.diff_lines(self.comparison(name).texts, rules, name=name)

    def unseen(self, name: str, offset: int = 0, limit: int = diff.EXCERPT) -> bytes:
        """Bytes ``offset`` … ``offset + limit`` of the part of one stream the agent never saw."""
        return diff.read_unseen(
            self.captured.stream(name), self.comparison(name).windows, offset, limit
        )

    def unseen_excerpt(self, name: str, limit: int = diff.EXCERPT) -> diff.Excerpt:
        """The start and the end of what the agent never saw (at most ``2 * limit`` bytes)."""
        return diff.unseen_excerpt(
            self.captured.stream(name), self.comparison(name).windows, limit, self.binary
        )

    def close(self) -> None:
        self.captured.close()

    def __enter__(self) -> RerunResult:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ------------------------------------------------------------------ running
def run_spooled(
    argv: Sequence[str],
    cwd: str,
    *,
    timeout: float | None = None,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
    grace: float = 2.0,
    max_output: int = MAX_OUTPUT,
) -> Captured:
    """Run ``argv`` (no shell, stdin closed) in ``cwd``, both streams spooled to temp files.

    A timeout, ``cancel.set()`` or more than ``max_output`` bytes of output (both streams
    together) kills the process group (TERM, then KILL after ``grace`` s); what the re-run left
    running outside the group is killed when it ends. A missing cwd or an unstartable program is
    a result with ``error`` set, not an exception; an argv that is not a list of strings without
    NUL is a :class:`RerunError`, raised before anything is spooled.
    """
    problem = argv_problem(argv)
    if problem is not None:
        raise RerunError(f"cannot run this argv: {problem}")
    if max_output <= 0:
        raise RerunError("the output limit must be > 0")
    t0 = time.monotonic()
    on_progress = None
    if progress is not None:

        def on_progress(out: int, err: int) -> None:
            progress(time.monotonic() - t0, out, err)

    limit = OutputLimit(max_output)
    taps = (SpoolTap(limit), SpoolTap(limit))
    try:
        killed: set[int] = set()
        if not os.path.isdir(cwd):
            what = "does not exist" if not os.path.exists(cwd) else "is not a directory"
            outcome = _not_started(f"working directory {what}: {cwd}", taps)
        else:
            with Leftovers() as left:
                outcome = run_captured(
                    list(argv),
                    cwd=cwd,
                    stdout_tap=taps[0],
                    stderr_tap=taps[1],
                    timeout=timeout,
                    cancel=StopEvent(cancel, limit),
                    grace=grace,
                    on_progress=on_progress,
                    preexec=die_with_parent(),  # a kill -9 of tracetui kills the child too
                )
                killed = left.kill(grace)
    except BaseException:
        for tap in taps:
            tap.file.close()
        raise
    cut = _cut_reason(limit)
    error = outcome.start_error
    if cut is not None:
        error = f"{cut}; process group killed"  # first: the limit stops it through the cancel
    elif outcome.timed_out:
        error = f"timed out after {timeout:g}s; process group killed"
    elif outcome.cancelled:
        error = "cancelled; process group killed"
    return Captured(
        _spooled(outcome.stdout, taps[0]),
        _spooled(outcome.stderr, taps[1]),
        outcome,
        error,
        cut,
        tuple(sorted(killed)),
    )


def _cut_reason(limit: OutputLimit) -> str | None:
    if limit.write_error is not None:
        return limit.write_error
    if limit.reached:
        return f"stopped at the output limit ({limit.limit:,} B)"
    return None


def _not_started(message: str, taps: tuple[SpoolTap, SpoolTap]) -> ProcessOutcome:
    out, err = taps[0].finish(), taps[1].finish()
    return ProcessOutcome(out, err, None, message, 127, time.time(), 0, False, False)


def _spooled(data: StreamData, tap: SpoolTap) -> diff.SpooledOutput:
    return diff.SpooledOutput(tap.file, data.total, data.sha256)


# ------------------------------------------------------------------ comparing
def compare_target(
    target: Target, captured: Captured, rules: Iterable[str] = RULE_NAMES
) -> tuple[diff.Comparison, diff.Comparison, bool]:
    """``(stdout, stderr, binary)`` comparisons of the re-run against the stored span."""
    rules = tuple(rules)
    binary = target.span.encoding == "binary" or not (
        captured.outcome.stdout.utf8 and captured.outcome.stderr.utf8
    )
    span = target.span
    out = diff.compare(span.stdout, span.dialect, captured.stdout, rules, binary=binary)
    err = diff.compare(span.stderr, span.dialect, captured.stderr, rules, binary=binary)
    if captured.output_cut is not None:
        # The spools hold a prefix of the output: a hash of it says nothing about the stream.
        reason = f"the whole output's hash cannot be compared: {captured.output_cut}"
        out = dataclasses.replace(out, verdict=diff.UNKNOWN, reason=reason)
        err = dataclasses.replace(err, verdict=diff.UNKNOWN, reason=reason)
    return out, err, binary


# ------------------------------------------------------------------ all of it
def rerun(
    target: Target,
    *,
    timeout: float | None = None,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
    rules: Iterable[str] = RULE_NAMES,
    write_sidecar: bool = True,
    grace: float = 2.0,
    max_output: int = MAX_OUTPUT,
) -> RerunResult:
    """Run ``target`` again (the caller has confirmed it), compare, and record it in the sidecar.

    With ``write_sidecar``, an unsafe sidecar or lock is refused (``UnsafeFile``) before anything runs.
    """
    if write_sidecar:
        check_sidecar(target)
    captured = run_spooled(
        target.argv,
        target.cwd,
        timeout=timeout,
        cancel=cancel,
        progress=progress,
        grace=grace,
        max_output=max_output,
    )
    try:
        out, err, binary = compare_target(target, captured, rules)
        record = build_rerun_record(target, captured)
        written = sidecar_error = None
        if write_sidecar:
            try:
                written = append_sidecar(target, record)
            except OSError as exc:
                sidecar_error = sidecar_problem(target, exc)
    except BaseException:
        captured.close()
        raise
    return RerunResult(target, captured, out, err, binary, written, sidecar_error, record)


def summary(
    result: RerunResult, rules: Iterable[str] = RULE_NAMES, excerpt: int = diff.EXCERPT
) -> dict[str, Any]:
    """The facts of a re-run as one JSON-ready object (``tracetui rerun --json``)."""
    rules = tuple(rules)
    span = result.target.span
    doc: dict[str, Any] = {
        "command_id": span.command_id,
        "argv": list(result.target.argv),
        "cwd": result.target.cwd,
        "exit_code_then": span.exit_code,
        "exit_code_now": result.captured.exit_code,
        "error_then": span.error,
        "error_now": result.captured.error,
        "duration_ms_then": span.duration_ms,
        "duration_ms_now": result.captured.outcome.duration_ms,
        "normalize": [r for r in RULE_NAMES if r in rules],
    }
    for s in STREAMS:
        c = result.comparison(s)
        doc[f"{s}_bytes_then"] = c.bytes_then
        doc[f"{s}_bytes_now"] = c.bytes_now
        doc[f"{s}_hidden_then"] = c.hidden_then
        doc[f"{s}_verdict"] = c.verdict
        doc[f"{s}_verdict_reason"] = c.reason
        doc[f"{s}_window"] = c.windows.clip
        doc[f"{s}_window_changed"] = c.changed
        doc[f"{s}_window_changed_raw"] = c.changed_raw
        doc[f"{s}_unseen_bytes"] = c.windows.unseen_bytes
        doc[f"{s}_unseen_start"] = c.windows.unseen_start
    doc["diff"] = "\n".join(result.stream_diff("stderr", rules))
    doc["stdout_diff"] = "\n".join(result.stream_diff("stdout", rules))
    excerpts = {s: result.unseen_excerpt(s, excerpt) for s in STREAMS}
    doc["unseen_excerpt"] = {s: e.start for s, e in excerpts.items()}
    doc["unseen_excerpt_skipped"] = {s: e.skipped for s, e in excerpts.items()}
    doc["unseen_excerpt_end"] = {s: e.end for s, e in excerpts.items()}
    doc["output_cut"] = result.captured.output_cut
    doc["leftovers_killed"] = len(result.captured.leftovers)
    doc["sidecar"] = result.sidecar
    doc["sidecar_error"] = result.sidecar_error
    doc["rerun_command_id"] = result.record.get("command_id") if result.record else None
    return doc
