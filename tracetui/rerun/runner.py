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
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tracetui.model.spans import FEEDBACK, STREAMS, Span
from tracetui.record.capture import JSON_LIMIT, ProcessOutcome, StreamData, run_captured
from tracetui.record.redact import redacted_argv_refusal
from tracetui.rerun import diff
from tracetui.rerun.normalize import RULE_NAMES
from tracetui.rerun.reaper import Leftovers
from tracetui.rerun.spool import MAX_OUTPUT, OutputLimit, SpoolTap, StopEvent
from tracetui.store import ids, sidecars
from tracetui.store.index import RunIndex
from tracetui.store.runset import sidecar_path

RECORD_CAP = 64 << 10
"""Smallest cap of the sidecar record's previews (the original's cap when that is larger)."""
RECORD_CAP_MAX = 1 << 20
"""Largest cap of the sidecar record's previews, whatever cap the original record claims."""
_JSON_READ = 1 << 20
"""Streams up to this size are read back whole to count JSON items for the sidecar record."""
_CONTEXT = 4096
_NEVER_ROTATE = 1 << 62

Progress = Callable[[float, int, int], None]
"""``progress(elapsed_seconds, stdout_bytes, stderr_bytes)``, called about ten times a second."""


class RerunError(Exception):
    """A re-run that cannot even be attempted (unknown or ambiguous id, no argv)."""


@dataclass(frozen=True, slots=True)
class Target:
    """The span to re-run, found in an index."""

    index: RunIndex
    row: int
    span: Span
    argv: tuple[str, ...]
    """Exactly the argv the record holds."""
    cwd: str
    """The recorded cwd, a relative one resolved against the run's folder."""

    @property
    def command_id(self) -> str | None:
        return self.span.command_id


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


# ------------------------------------------------------------------ finding the span
def find_target(indexes: Sequence[RunIndex], ident: str) -> Target:
    """The span ``ident`` names (the rule: :func:`tracetui.store.ids.resolve`)."""
    try:
        index, row = ids.resolve(indexes, ident)
    except ids.IdError as err:
        raise RerunError(str(err)) from None
    return target_for_row(index, row, index.ids[row])


def target_for_row(index: RunIndex, row: int, ident: str | None = None) -> Target:
    """The span at ``row`` of ``index`` as a re-run target, or RerunError saying why it is not one.

    Refused: a row that is no span (a bad line, rotated away), a span with no argv, and a span
    an importer marked ``"rerunnable": false`` (another agent's non-shell tool, e.g. a file
    read: its argv is a description, not a command), and an argv whose secrets the recorder
    replaced (``argv_redacted``: it would run with ``[REDACTED]`` in their place).
    """
    span = index.span(row)
    name = ident if ident is not None else index.ids[row] if row < len(index.ids) else None
    if span is None:
        what = f"span {name!r}" if name else f"row {row + 1}"
        raise RerunError(f"{what} cannot be read as a span (a bad line, or rotated away?)")
    if span.raw.get("rerunnable") is False:
        tool = span.tool_name or "this tool"
        source = span.raw.get("source_format")
        origin = f" imported from {source}" if isinstance(source, str) else ""
        raise RerunError(
            f"span {span.command_id!r} is a {tool} call{origin}, not a shell command: "
            "it cannot be re-run (rerunnable: false)"
        )
    # The record's own value, not Span.argv (which turns any item into text for display).
    raw = span.raw.get("command" if span.dialect == FEEDBACK else "argv")
    if raw is None or (isinstance(raw, list) and (not raw or raw[0] == "")):
        raise RerunError(f"span {span.command_id!r} records no argv to re-run")
    problem = argv_problem(raw) or redacted_argv_refusal(span.raw, raw)
    if problem is not None:
        raise RerunError(f"span {span.command_id!r} cannot be re-run: {problem}")
    return Target(index, row, span, tuple(raw), index.run.resolve_cwd(span.cwd))


_KINDS = {bool: "true or false", int: "a number", float: "a number", dict: "an object"}


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return _KINDS.get(type(value), "a list" if isinstance(value, list) else type(value).__name__)


def argv_problem(argv: object) -> str | None:
    """Why ``argv`` cannot be run as it is (one line), or None for a non-empty list of strings
    without NUL whose first item is not empty. No item is ever turned into text to make it fit."""
    if isinstance(argv, str):
        return "its argv is a shell string, not a list of arguments"
    if not isinstance(argv, (list, tuple)):
        return f"its argv is {_kind(argv)}, not a list of strings"
    if not argv:
        return "its argv is empty"
    for i, item in enumerate(argv):
        if not isinstance(item, str):
            return f"argv[{i}] is {_kind(item)}, not a string"
        if "\x00" in item:
            return f"argv[{i}] holds a NUL character (no program can receive it)"
    if not argv[0]:
        return "its program name (argv[0]) is empty"
    return None


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


# ------------------------------------------------------------------ the sidecar record
def _record_data(
    data: StreamData, out: diff.SpooledOutput, head_keep: int, tail_keep: int
) -> StreamData:
    """The capture facts the recorder needs, with head/tail buffers read back from the spool."""
    head = out.read(0, head_keep)
    tail = out.read(max(0, out.total - tail_keep), tail_keep) if tail_keep else b""
    json_bytes = None
    if 0 < out.total <= min(_JSON_READ, JSON_LIMIT) and head.lstrip()[:1] in (b"[", b"{"):
        json_bytes = out.read(0, out.total)
    return dataclasses.replace(data, head=head, tail=tail, json_bytes=json_bytes)


def build_rerun_record(target: Target, captured: Captured) -> dict[str, Any]:
    """A ``tracetui/1`` record of the re-run: a retry of the original, marked ``rerun_of``."""
    from tracetui.record.recorder import CONTEXT, build_record, window_limits
    from tracetui.record.redact import Redactor

    span = target.span
    # The record's caps are untrusted sizes: clamped, so the sidecar line stays small.
    caps = [min(s.cap, RECORD_CAP_MAX) for s in span.streams if s.cap is not None]
    cap = max([RECORD_CAP, *caps])
    clips = [s.clip for s in span.streams if s.clip]
    clip = clips[0] if clips else "head"
    head_n, tail_n = window_limits(cap, clip)
    head_keep = max(head_n, cap - tail_n) + CONTEXT
    tail_keep = tail_n + CONTEXT if tail_n else 0
    outcome = dataclasses.replace(
        captured.outcome,
        stdout=_record_data(captured.outcome.stdout, captured.stdout, head_keep, tail_keep),
        stderr=_record_data(captured.outcome.stderr, captured.stderr, head_keep, tail_keep),
    )
    record, _out, _err = build_record(
        outcome,
        argv=list(target.argv),
        cwd=target.cwd,
        cap=cap,
        clip=clip,
        redactor=Redactor(),
        parent=span.command_id,
        tool_name=span.tool_name,
        error=captured.error,
    )
    record["rerun_of"] = span.command_id
    return record


def append_sidecar(target: Target, record: dict[str, Any]) -> str:
    """Append ``record`` to the run's ``B.reruns.jsonl`` (locked, never rotated); its path.

    The sidecar and its lock are opened the safe way (:mod:`tracetui.record.safe_files`): a link,
    FIFO, device or someone else's file planted there raises ``UnsafeFile`` and is not written.
    """
    from tracetui.record.rotate import append_record

    path = sidecar_path(target.index.run.base)
    sidecars.make_folder(path)  # the state folder's, for the bundled samples (store/sidecars.py)
    append_record(path, record, _NEVER_ROTATE, 1)
    return path


def check_sidecar(target: Target) -> None:
    """Raise ``UnsafeFile`` (naming the file) before a re-run whose record could not be kept:
    the sidecar or its lock exists and is not a regular file of this user (see append_sidecar).
    """
    from tracetui.record.rotate import lock_path
    from tracetui.record.safe_files import check_existing

    path = sidecar_path(target.index.run.base)
    sidecars.check_folder(path)  # a state folder refused after the run would lose the record
    check_existing(path)
    check_existing(lock_path(path), single_link=False)


def sidecar_problem(target: Target, exc: OSError) -> str:
    """The one line saying why the sidecar was not written."""
    from tracetui.record.safe_files import UnsafeFile

    if isinstance(exc, UnsafeFile):
        return str(exc)  # names the very file refused (the sidecar or its lock)
    return f"cannot write {sidecar_path(target.index.run.base)}: {exc.strerror or exc}"


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
