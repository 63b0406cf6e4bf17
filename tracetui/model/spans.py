"""The span model, and normalisation of every dialect a run may contain into it.

A *span* is one run of one command. Records arrive in several dialects (SPEC §2): tracetui's own
``tracetui/1``, the minimal *truncation-span* contract, and the *feedback-record* shape fed to the
next agent turn. :func:`normalize` turns any of them into a :class:`Span`; keys it does not know
are kept in ``Span.raw`` for the raw view. Truncation is judged from evidence (a flag, bytes over
the cap, or a marker in the preview), never trusted from flags alone, by
:func:`tracetui.model.truncation.judge_stream` — here and in the index's fast facts
(:mod:`tracetui.model.facts`) alike. Fields are read through :class:`~tracetui.model.fields.Fields`,
which notes a wrong type as a problem instead of raising.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from tracetui.model.fields import Fields
from tracetui.model.markers import Marker, find_marker
from tracetui.model.truncation import judge_stream

STREAMS = ("stdout", "stderr")

TRACETUI = "tracetui/1"
TRUNCATION_SPAN = "truncation-span"
FEEDBACK = "feedback-record"


class NotASpan(ValueError):
    """A JSON value that is no record of any known dialect (reported as a bad line)."""


@dataclass(frozen=True, slots=True)
class KeptFacts:
    """A record's ``{s}_kept``: the stream kept whole, redacted, named by the hash of its bytes."""

    sha256: str
    """sha256 of the bytes stored (after redaction; ``{s}_full_sha256`` is of the raw stream)."""
    bytes: int
    """Length of the bytes stored."""
    unseen_start: int
    """Where, in the bytes stored, the part the consumer never saw begins."""
    unseen_end: int
    """Where it ends (equal to ``unseen_start`` when the stream was shown whole)."""


@dataclass(frozen=True, slots=True)
class StreamFacts:
    """What a record says, and what the evidence shows, about one output stream."""

    name: str
    """``stdout`` or ``stderr``."""
    bytes: int | None
    """Length of the whole stream before any cap; None when the dialect records no byte count."""
    cap: int | None
    """The cap in bytes; None when uncapped or unknown."""
    flag: bool | None
    """The ``{s}_truncated`` flag as recorded; None when absent."""
    truncated: bool | None
    """Judged from evidence (flag, bytes > cap, marker); None means "truncation unknown"."""
    clip: str | None
    """Which part the consumer saw: ``head``, ``tail``, ``head_tail``; None when not cut or unsaid."""
    preview: str
    """Exactly the text the consumer was shown (untrusted: neutralise before rendering)."""
    marker: Marker | None
    """The truncation marker found in the preview, if any."""
    sha256: str | None
    """Hash of the whole stream, recorded only when it was not truncated."""
    full_sha256: str | None
    """Hash of the whole stream, always (tracetui/1 only)."""
    head_sha256: str | None
    """Hash of the kept head window (truncation-span dialect: of the first min(len, 256) bytes)."""
    head_bytes: int | None
    """Length of the kept head window; None when not recorded."""
    tail_sha256: str | None
    """Hash of the kept tail window (truncation-span dialect: of the last min(len, 256) bytes)."""
    tail_bytes: int | None
    """Length of the kept tail window; None when not recorded."""
    items: int | None
    """Items in the JSON list at the source; None when the stream is not such JSON."""
    preview_items: int | None
    """Complete items in what the consumer was shown; None when unknown."""

    hidden_bytes: int | None
    """Bytes the consumer never saw: 0 when not truncated, None when it cannot be told."""
    kept: KeptFacts | None = None
    """Where the whole stream was kept (``{s}_kept``, tracetui run's kept-output store); None
    when it was not (the record says null, or has no such field)."""

    @property
    def shown_bytes(self) -> int | None:
        """Bytes the consumer was shown, when known."""
        hidden = self.hidden_bytes
        if self.bytes is None or hidden is None:
            return None
        return self.bytes - hidden


@dataclass(frozen=True, slots=True)
class Span:
    """One run of one command, normalised from any dialect."""

    dialect: str
    """``tracetui/1``, ``truncation-span``, ``feedback-record``, or an importer's name."""
    command_id: str | None
    """Unique id of this run; None when the dialect carries none."""
    parent_command_id: str | None
    """Id of the attempt this one retries; None for a first attempt."""
    tool_name: str | None
    """The tool's name; None when unrecorded (derived from argv[0] for display)."""
    argv: tuple[str, ...]
    """The exact argv; empty when the record has none."""
    cwd: str | None
    """Working directory as recorded (may be relative to the run's folder); None when unknown."""
    started_at: str | None
    """RFC 3339 start time as recorded; None when unknown."""
    duration_ms: float | None
    """Wall time in ms; None when unknown."""
    exit_code: int | None
    """Exit status (negative = killed by that signal); None when the runner captured none."""
    error: str | None
    """Why the runner failed before capturing an exit; None otherwise."""
    agent_note: str | None
    """One-line expectation written before the result was read; None when absent."""
    encoding: str | None
    """``utf-8`` or ``binary``; None when unrecorded."""
    ok_preview: bool | None
    """The record's own claim (exit 0 and nothing truncated); None when absent."""
    redacted: int | None
    """Secrets replaced on write; None when unrecorded."""
    stdout: StreamFacts
    stderr: StreamFacts
    problems: tuple[str, ...]
    """Field-level problems met while normalising (wrong types), for lint and the detail pane."""
    raw: dict[str, Any]
    """The record as read, unknown keys included (for the raw view)."""

    @property
    def streams(self) -> tuple[StreamFacts, StreamFacts]:
        return (self.stdout, self.stderr)

    @property
    def failed(self) -> bool:
        """Nonzero exit, or no exit and an error recorded (see :func:`judge_exit`)."""
        return judge_exit(self.exit_code, self.error)

    @property
    def exit_unknown(self) -> bool:
        """No exit and no error: the record does not say how the call ended (not a failure)."""
        return self.exit_code is None and not self.failed

    @property
    def exit_note(self) -> str | None:
        """Why no exit is known (an importer's ``exit_note``); None when it says nothing."""
        note = self.raw.get("exit_note")
        return note if isinstance(note, str) and note else None

    @property
    def is_submission(self) -> bool:
        """The agent's submission step (``kind: submission``): its output is what it submitted."""
        return self.raw.get("kind") == "submission"

    @property
    def truncated(self) -> bool | None:
        """True when any stream was cut; None when unknown for a stream and no cut seen."""
        states = [s.truncated for s in self.streams]
        if True in states:
            return True
        if None in states:
            return None
        return False

    @property
    def hidden_bytes(self) -> int | None:
        """Sum over both streams; None when neither is known."""
        values = [s.hidden_bytes for s in self.streams]
        known = [v for v in values if v is not None]
        return sum(known) if known else None

    @property
    def display_name(self) -> str:
        if self.tool_name:
            return self.tool_name
        if self.argv:
            return os.path.basename(self.argv[0])
        return "?"

    def stream(self, name: str) -> StreamFacts:
        return self.stdout if name == "stdout" else self.stderr


def judge_exit(exit_code: int | None, error: str | None) -> bool:
    """Whether a call failed: a nonzero exit, or no exit but an error said why.

    A call with neither an exit nor an error is *exit unknown* (many agents' formats record no
    exit code), which is not a failure. The C scanner (``_scan.c`` line_facts) applies the same
    rule; tests/unit/test_exit_unknown.py holds both to it.
    """
    if exit_code is not None:
        return exit_code != 0
    return bool(error)


def detect_dialect(obj: dict[str, Any]) -> str:
    """Which dialect a record is written in; raises :class:`NotASpan` for none."""
    schema = obj.get("schema")
    if schema == TRACETUI:
        return TRACETUI
    if isinstance(schema, str) and schema.startswith("import/"):
        return schema[len("import/") :]  # an importer's record: read like tracetui/1
    if isinstance(obj.get("schema"), str) and str(obj["schema"]).startswith("tracetui/"):
        return TRACETUI  # a newer minor version: read what we know
    if "stdout_tail" in obj or "stderr_tail" in obj or ("command" in obj and "argv" not in obj):
        return FEEDBACK
    if obj.get("span_type") == "tool" or "stdout_bytes" in obj or "returncode" in obj:
        return TRUNCATION_SPAN
    if "argv" in obj and ("exit_code" in obj or "preview_stdout" in obj):
        return TRUNCATION_SPAN
    keys = ", ".join(sorted(obj)[:6]) or "no keys"
    raise NotASpan(f"not a span record of any known dialect (keys: {keys})")


def _stream(f: Fields, s: str, dialect: str) -> StreamFacts:
    if dialect == FEEDBACK:
        preview = f.text(f"{s}_tail")
        marker = find_marker(preview)
        # No byte counts in this dialect: a marker proves a cut, its absence proves nothing.
        truncated, hidden = judge_stream(None, None, None, marker, None, None)
        return StreamFacts(
            s,
            None,
            None,
            None,
            truncated,
            "tail" if marker else None,
            preview,
            marker,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            hidden,
        )
    nbytes = f.int_(f"{s}_bytes")
    cap = f.int_(f"{s}_cap")
    flag = f.bool_(f"{s}_truncated")
    preview = f.text(f"preview_{s}")
    marker = find_marker(preview)
    head_bytes = f.int_(f"{s}_head_bytes")
    tail_bytes = f.int_(f"{s}_tail_bytes")
    truncated, hidden = judge_stream(nbytes, cap, flag, marker, head_bytes, tail_bytes)
    clip = f.str_(f"{s}_clip")
    if clip not in (None, "head", "tail", "head_tail"):
        f.problems.append(f"{s}_clip: unknown clip mode {clip!r}")
        clip = None
    if truncated and clip is None:
        clip = (marker.clip if marker else None) or "head"
    if not truncated:
        clip = None
    return StreamFacts(
        name=s,
        bytes=nbytes,
        cap=cap,
        flag=flag,
        truncated=truncated,
        clip=clip,
        preview=preview,
        marker=marker,
        sha256=f.str_(f"{s}_sha256"),
        full_sha256=f.str_(f"{s}_full_sha256"),
        head_sha256=f.str_(f"{s}_head_sha256"),
        head_bytes=head_bytes,
        tail_sha256=f.str_(f"{s}_tail_sha256"),
        tail_bytes=tail_bytes,
        items=f.int_(f"{s}_items"),
        preview_items=f.int_(f"preview_{s}_items"),
        hidden_bytes=hidden,
        kept=_kept(f, f"{s}_kept"),
    )


def _kept(f: Fields, key: str) -> KeptFacts | None:
    """``{s}_kept`` when it is a well-formed object; a wrong one is a field problem (TT014)."""
    value = f.obj.get(key)
    if value is None:
        return None
    if not isinstance(value, dict):
        f.problems.append(f"{key}: expected an object or null, got {type(value).__name__}")
        return None
    sha, numbers = value.get("sha256"), [value.get(k) for k in _KEPT_NUMBERS]
    if not isinstance(sha, str) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers
    ):
        f.problems.append(f"{key}: expected sha256 and byte counts")
        return None
    size, start, end = numbers
    assert isinstance(size, int) and isinstance(start, int) and isinstance(end, int)
    return KeptFacts(sha, size, start, end)


_KEPT_NUMBERS = ("bytes", "unseen_start", "unseen_end")


def normalize(obj: Any) -> Span:
    """Turn one parsed JSON record into a :class:`Span`; raises :class:`NotASpan`."""
    if not isinstance(obj, dict):
        raise NotASpan(f"expected a JSON object, got {type(obj).__name__}")
    dialect = detect_dialect(obj)
    f = Fields(obj)
    if dialect == FEEDBACK:
        argv = f.argv("command")
        exit_code = f.int_("exit_code")
    elif dialect == TRUNCATION_SPAN:
        argv = f.argv("argv")
        exit_code = f.int_("returncode") if "returncode" in obj else f.int_("exit_code")
    else:
        argv = f.argv("argv")
        exit_code = f.int_("exit_code")
    stdout = _stream(f, "stdout", dialect)
    stderr = _stream(f, "stderr", dialect)
    return Span(
        dialect=dialect,
        command_id=f.id_("command_id"),
        parent_command_id=f.id_("parent_command_id"),
        tool_name=f.str_("tool_name"),
        argv=argv,
        cwd=f.str_("cwd"),
        started_at=f.str_("started_at"),
        duration_ms=f.num("duration_ms"),
        exit_code=exit_code,
        error=f.str_("error"),
        agent_note=f.str_("agent_note"),
        encoding=f.str_("encoding"),
        ok_preview=f.bool_("ok_preview"),
        redacted=f.int_("redacted"),
        stdout=stdout,
        stderr=stderr,
        problems=tuple(f.problems),
        raw=obj,
    )


@dataclass(frozen=True, slots=True)
class Facts:
    """What the index keeps of a span (:func:`tracetui.model.facts.quick_facts` reads it fast)."""

    failed: bool
    exit_code: int | None
    truncated: bool | None
    hidden_bytes: int | None
    command_id: str | None
    parent_command_id: str | None
    problems: bool

    @property
    def exit_unknown(self) -> bool:
        """No exit and no error recorded (not a failure)."""
        return self.exit_code is None and not self.failed
