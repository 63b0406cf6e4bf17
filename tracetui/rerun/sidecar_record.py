"""The sidecar record of a re-run: built as a ``tracetui/1`` retry and appended to ``B.reruns.jsonl``.

The trace itself is never touched. The sidecar and its lock are checked before a re-run runs
(:func:`check_sidecar`) and opened the safe way when written (:func:`append_sidecar`); the
record's previews are read back from the spools, within a clamped cap, so its line stays small
whatever size the original record claims. :mod:`tracetui.rerun.runner` re-exports all of it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from tracetui.record.capture import JSON_LIMIT, StreamData
from tracetui.rerun import diff
from tracetui.rerun.captured import Captured
from tracetui.rerun.target import Target
from tracetui.store import sidecars
from tracetui.store.runset import sidecar_path

RECORD_CAP = 64 << 10
"""Smallest cap of the sidecar record's previews (the original's cap when that is larger)."""
RECORD_CAP_MAX = 1 << 20
"""Largest cap of the sidecar record's previews, whatever cap the original record claims."""
_JSON_READ = 1 << 20
"""Streams up to this size are read back whole to count JSON items for the sidecar record."""
_NEVER_ROTATE = 1 << 62
"""The sidecar is one file: a re-run record never rotates it."""


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
