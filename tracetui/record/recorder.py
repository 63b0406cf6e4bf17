"""The recorder: run one command, show the consumer a capped view, write one honest span.

:func:`run_with_feedback` is the Python API behind ``tracetui run``. It captures both streams
(:mod:`tracetui.record.capture`), cuts each to the cap with tracetui's marker at the clip point,
redacts the previews (and the argv, tool name, note and error), and appends a ``tracetui/1``
record (:mod:`tracetui.record.rotate`). The preview in the record is byte for byte the text
the wrapper prints, so the trace shows exactly what the agent saw, and the counts and hashes
show what it did not.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import signal
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from tracetui.model.markers import marker_line
from tracetui.record.capture import (
    ProcessOutcome,
    StreamData,
    StreamTap,
    head_window,
    run_captured,
    tail_window,
)
from tracetui.record.keeping import SpanKeeper
from tracetui.record.kept import DEFAULT_BUDGET, KeptWriter
from tracetui.record.redact import Redactor
from tracetui.record.rotate import append_record

SCHEMA = "tracetui/1"
DEFAULT_LOG = "feedback_record.jsonl"
DEFAULT_CAP = 8192
DEFAULT_CLIP = "head"
DEFAULT_MAX_BYTES = 1 << 20
DEFAULT_KEEP = 4
CLIPS = ("head", "tail", "head_tail")
CONTEXT = 4096
"""Withheld bytes kept on each side of a window so a secret cut by the cap is still recognised."""


@dataclass(frozen=True, slots=True)
class Result:
    """What one recorded run produced."""

    record: dict[str, Any]
    """The ``tracetui/1`` record as written (or as it would have been, when ``log`` is None)."""
    stdout_view: str
    """Exactly the stdout text the consumer is shown (equals ``record["preview_stdout"]``)."""
    stderr_view: str
    """Exactly the stderr text the consumer is shown (equals ``record["preview_stderr"]``)."""
    exit_status: int
    """Shell-style status: the child's code, 128+N for signal N, 126/127 when it could not start."""
    log: str | None
    """Absolute path of the base file the record was appended to; None when not written."""
    kept_problems: tuple[str, ...] = ()
    """Why a stream was not kept (a refused store, the budget, a full disk), one line each."""


def new_command_id(now: float | None = None) -> str:
    """A unique id whose string order is its time order: UTC timestamp, then random hex."""
    now = time.time() if now is None else now
    micros = int(now * 1_000_000)
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(micros // 1_000_000))
    return f"{stamp}.{micros % 1_000_000:06d}Z-{secrets.token_hex(4)}"


def rfc3339(ts: float) -> str:
    """RFC 3339 UTC timestamp with milliseconds: ``2026-01-02T03:04:05.678Z``."""
    millis = int(ts * 1000)
    return (
        time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(millis // 1000)) + f".{millis % 1000:03d}Z"
    )


def clean_text(value: str) -> str:
    """A string safe for JSON: undecodable argv bytes (surrogate escapes) become ``\\xNN``."""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def window_limits(cap: int, clip: str) -> tuple[int, int]:
    """Bytes kept at the head and at the tail of a truncated stream for a clip mode."""
    if clip == "head":
        return cap, 0
    if clip == "tail":
        return 0, cap
    return cap - cap // 2, cap // 2  # head_tail: half each, the odd byte to the head


def tap_limits(cap: int | None, clip: str) -> tuple[int | None, int]:
    """Head and tail buffer sizes for a :class:`StreamTap` feeding :func:`build_view`.

    Each side keeps its window plus redaction context; together they always cover a stream of
    at most ``cap`` bytes, so an untruncated preview can be rebuilt whole. Uncapped keeps all.
    """
    if cap is None:
        return None, 0
    head_n, tail_n = window_limits(cap, clip)
    return head_n + CONTEXT, (tail_n + CONTEXT) if tail_n else 0


@dataclass(frozen=True, slots=True)
class StreamView:
    """One stream cut, redacted and described."""

    preview: str
    """The text the consumer is shown, marker included."""
    fields: dict[str, Any]
    """The record's ``{s}_…`` fields for this stream (keys without the stream prefix)."""
    redacted: int
    """Secrets replaced in the preview."""


def build_view(data: StreamData, cap: int | None, clip: str, redactor: Redactor) -> StreamView:
    """Cut ``data`` to ``cap`` bytes the ``clip`` way; a binary stream renders with ``\\xNN``."""
    errors = "replace" if data.utf8 else "backslashreplace"
    truncated = cap is not None and data.total > cap
    fields: dict[str, Any] = {
        "bytes": data.total,
        "cap": cap,
        "truncated": truncated,
        "clip": clip if cap is not None else None,
        "sha256": None if truncated else data.sha256,
        "full_sha256": data.sha256,
        "head_sha256": None,
        "head_bytes": None,
        "tail_sha256": None,
        "tail_bytes": None,
    }
    if not truncated:
        full = data.full_bytes()
        assert full is not None  # the taps keep at least cap bytes on each side
        preview, count = redactor.redact(full.decode("utf-8", errors))
        return StreamView(preview, fields, count)
    assert cap is not None
    head_n, tail_n = window_limits(cap, clip)
    head = after = before = tail = b""
    if clip in ("head", "head_tail"):
        head, after = head_window(data, head_n)
        fields["head_sha256"], fields["head_bytes"] = _sha(head), len(head)
    if clip in ("tail", "head_tail"):
        before, tail = tail_window(data, tail_n)
        fields["tail_sha256"], fields["tail_bytes"] = _sha(tail), len(tail)
    withheld = data.total - len(head) - len(tail)
    head_text, n_head = (
        redactor.redact_window(head.decode("utf-8", errors), after=_ctx(after), cut_after=True)
        if clip != "tail"
        else ("", 0)
    )
    tail_text, n_tail = (
        redactor.redact_window(tail.decode("utf-8", errors), before=_ctx(before), cut_before=True)
        if clip != "head"
        else ("", 0)
    )
    return StreamView(head_text + marker_line(withheld) + tail_text, fields, n_head + n_tail)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _ctx(data: bytes) -> str:
    return data.decode("utf-8", "replace")


# JSON strings (with escapes) and the punctuation that shapes the document; scalars need no token.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{},:]', re.S)
_NONBLANK = re.compile(rb"[^ \t\r\n]")


def json_items(raw: bytes) -> tuple[int, str | None] | None:
    """``(items, list field)`` when ``raw`` is JSON holding a list: a top-level list (field None)
    or an object with exactly one list-valued field. None otherwise."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if isinstance(doc, list):
        return len(doc), None
    if isinstance(doc, dict):
        lists = [k for k, v in doc.items() if isinstance(v, list)]
        if len(lists) == 1:
            return len(doc[lists[0]]), lists[0]
    return None


def item_spans(raw: bytes, field: str | None, stop: int | None = None) -> list[tuple[int, int]]:
    """Byte spans ``[start, end)`` of the items of the list in ``raw`` (see :func:`json_items`).

    With ``stop``, scanning ends at the first token at or past it: every item ending by ``stop``
    is found (its delimiter is the first token after it), later ones may be missing.
    """
    spans: list[tuple[int, int]] = []
    depth = 0
    array_depth: int | None = None
    candidate: bytes | None = None
    key: bytes | None = None
    item_from = 0
    for m in _TOKEN.finditer(raw):
        tok = m.group()
        if array_depth is None:
            if tok == b"[" and (
                (field is None and depth == 0)
                or (
                    field is not None
                    and depth == 1
                    and key is not None
                    and orjson.loads(key) == field
                )
            ):
                array_depth = depth + 1
                item_from = m.end()
            elif depth == 1 and tok.startswith(b'"'):
                candidate = tok
            elif depth == 1 and tok == b":":
                key = candidate
            elif depth == 1 and tok == b",":
                key = None
        elif depth == array_depth and tok in (b",", b"]"):
            start = _NONBLANK.search(raw, item_from, m.start())
            if start is not None:
                end = m.start()
                while raw[end - 1] in b" \t\r\n":
                    end -= 1
                spans.append((start.start(), end))
            item_from = m.end()
            if tok == b"]":
                break
        if tok in (b"[", b"{"):
            depth += 1
        elif tok in (b"]", b"}"):
            depth -= 1
        if stop is not None and m.start() >= stop:
            break
    return spans


def item_counts(data: StreamData, view: StreamView) -> tuple[int | None, int | None]:
    """``(items at source, complete items shown)`` for a JSON stream, ``(None, None)`` otherwise."""
    if data.json_bytes is None:
        return None, None
    found = json_items(data.json_bytes)
    if found is None:
        return None, None
    items, field = found
    if not view.fields["truncated"]:
        return items, items
    head_n = view.fields["head_bytes"] or 0
    tail_n = view.fields["tail_bytes"] or 0
    tail_from = data.total - tail_n
    spans = item_spans(data.json_bytes, field, stop=None if tail_n else head_n)
    shown = sum(1 for s, e in spans if e <= head_n or (tail_n and s >= tail_from))
    return items, shown


def build_record(
    outcome: ProcessOutcome,
    *,
    argv: Sequence[str],
    cwd: str,
    cap: int | None,
    clip: str,
    redactor: Redactor,
    note: str | None = None,
    parent: str | None = None,
    tool_name: str | None = None,
    command_id: str | None = None,
    error: str | None = None,
) -> tuple[dict[str, Any], StreamView, StreamView]:
    """The ``tracetui/1`` record for a captured run, with both stream views."""
    views = {
        "stdout": build_view(outcome.stdout, cap, clip, redactor),
        "stderr": build_view(outcome.stderr, cap, clip, redactor),
    }
    if error is None:
        error = outcome.start_error
    # Secrets are hidden in every text written, not only the previews. The argv's count is
    # recorded (re-run refuses such an argv); the cwd and ids are kept as given: a re-run needs
    # them to resolve, and they hold no secret shapes in practice (docs/recording.md).
    argv_items, argv_redacted = redactor.redact_argv([clean_text(str(a)) for a in argv])
    shown_name = clean_text(tool_name or os.path.basename(str(argv[0])) or str(argv[0]))
    record: dict[str, Any] = {
        "schema": SCHEMA,
        "span_type": "tool",
        "command_id": command_id or new_command_id(outcome.started_at),
        "parent_command_id": parent,
        "tool_name": redactor.redact_text(shown_name),
        "argv": argv_items,
        "argv_redacted": argv_redacted,
        "cwd": clean_text(cwd),
        "started_at": rfc3339(outcome.started_at),
        "duration_ms": outcome.duration_ms,
        "exit_code": outcome.returncode,
        "error": None if error is None else redactor.redact_text(error),
        "agent_note": None if note is None else redactor.redact_text(clean_text(note)),
    }
    for name, view in views.items():
        for key, value in view.fields.items():
            record[f"{name}_{key}"] = value
    record["preview_stdout"] = views["stdout"].preview
    record["preview_stderr"] = views["stderr"].preview
    binary = not (outcome.stdout.utf8 and outcome.stderr.utf8)
    record["encoding"] = "binary" if binary else "utf-8"
    record["ok_preview"] = outcome.returncode == 0 and not any(
        v.fields["truncated"] for v in views.values()
    )
    record["redacted"] = views["stdout"].redacted + views["stderr"].redacted
    for name, view in views.items():
        items, shown = item_counts(getattr(outcome, name), view)
        record[f"{name}_items"] = items
        record[f"preview_{name}_items"] = shown
    return record, views["stdout"], views["stderr"]


def shell_status(outcome: ProcessOutcome) -> int:
    """The status a shell would report: code, 128+N for signal N, 126/127 for start failures."""
    if outcome.returncode is None:
        return outcome.start_code or 127
    if outcome.returncode < 0:
        return 128 - outcome.returncode
    return outcome.returncode


def _format_seconds(seconds: float) -> str:
    return f"{seconds:g}s"


def run_with_feedback(
    argv: Sequence[str],
    *,
    log: str | os.PathLike[str] | None = DEFAULT_LOG,
    cap: int | None = DEFAULT_CAP,
    clip: str = DEFAULT_CLIP,
    note: str | None = None,
    parent: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    keep: int = DEFAULT_KEEP,
    redactor: Redactor | None = None,
    tool_name: str | None = None,
    cancel: threading.Event | None = None,
    handle_signals: bool = False,
    keep_budget: int | None = DEFAULT_BUDGET,
) -> Result:
    """Run ``argv`` (no shell, stdin closed), record it, return what the consumer is shown.

    ``cap=None`` records uncapped (the whole output is kept in memory). ``log=None`` builds the
    record without writing it; a relative ``log`` is relative to the current directory, not
    ``cwd``. Setting ``cancel`` kills the child's process group. With ``handle_signals`` (main
    thread only) SIGINT/SIGTERM do the same and the record says which signal interrupted it.
    Raises ``ValueError`` for bad arguments; a command that cannot start is a record, not an error.
    Both streams are kept whole, redacted, in ``<log>.kept/`` under ``keep_budget`` bytes on disk
    (:mod:`tracetui.record.kept`); ``keep_budget=None`` (or ``log=None``) keeps nothing.
    """
    argv = list(argv)
    if not argv:
        raise ValueError("no command given")
    if clip not in CLIPS:
        raise ValueError(f"clip must be one of {', '.join(CLIPS)}, not {clip!r}")
    if cap is not None and cap < 0:
        raise ValueError("cap must be >= 0")
    if timeout is not None and timeout <= 0:
        raise ValueError("timeout must be > 0")
    if keep_budget is not None and keep_budget < 0:
        raise ValueError("keep_budget must be >= 0")
    redactor = redactor or Redactor()
    run_dir = os.path.abspath(os.fspath(cwd) if cwd is not None else os.getcwd())
    written = None if log is None else os.path.abspath(os.fspath(log))
    keeper = None
    if written is not None and keep_budget is not None:
        keeper = SpanKeeper(written, keep_budget, redactor, *window_limits(cap or 0, clip))
    head_keep, tail_keep = tap_limits(cap, clip)
    cancel = cancel or threading.Event()
    caught: list[int] = []
    try:
        previous = _install_handlers(cancel, caught) if handle_signals else {}
        try:
            outcome = run_captured(
                argv,
                cwd=run_dir,
                timeout=timeout,
                cancel=cancel,
                stdout_tap=StreamTap(head_keep, tail_keep, sink=_sink(keeper, "stdout")),
                stderr_tap=StreamTap(head_keep, tail_keep, sink=_sink(keeper, "stderr")),
            )
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        if keeper is not None:
            keeper.finish()
        error = None
        if outcome.timed_out:
            error = f"timed out after {_format_seconds(timeout or 0)}"
        elif outcome.cancelled:
            error = f"interrupted by {signal.Signals(caught[0]).name}" if caught else "cancelled"
        record, out_view, err_view = build_record(
            outcome,
            argv=argv,
            cwd=run_dir,
            cap=cap,
            clip=clip,
            redactor=redactor,
            note=note,
            parent=parent,
            tool_name=tool_name,
            error=error,
        )
        status = 128 + caught[0] if caught else shell_status(outcome)
        if written is not None:
            # The kept files are committed with the run's lock held, just before the record that
            # names them is appended: a rotation by another writer never sees one without the other.
            append_record(
                written,
                record,
                max_bytes,
                keep,
                locked=None if keeper is None else (lambda: keeper.fill(record)),
                on_drop=None if keeper is None else keeper.on_drop,
            )
        problems = tuple(keeper.problems) if keeper is not None else ()
        return Result(record, out_view.preview, err_view.preview, status, written, problems)
    finally:
        if keeper is not None:
            keeper.close()


def _sink(keeper: SpanKeeper | None, stream: str) -> KeptWriter | None:
    return None if keeper is None else keeper.sink(stream)


def _install_handlers(cancel: threading.Event, caught: list[int]) -> dict[int, Any]:
    def on_signal(signum: int, _frame: object) -> None:
        if not caught:
            caught.append(signum)
        cancel.set()

    previous: dict[int, Any] = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, on_signal)
    return previous
