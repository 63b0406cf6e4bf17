"""Bounded-memory line reading and record parsing for run members.

Lines are read in fixed-size chunks; a line longer than ``max_line`` is reported (with its
offset and length) without ever being held whole, so a 100 MB single line costs one chunk of
memory. Parsing turns a line into a :class:`~tracetui.model.spans.Span` or a :class:`BadLine`
with a reason a person can act on; one bad line never stops the rest of the file.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

from tracetui.model.facts import quick_facts
from tracetui.model.spans import Facts, NotASpan, Span, normalize
from tracetui.store.file_kinds import file_kind

CHUNK = 1 << 20
MAX_LINE = 16 << 20
"""Lines longer than this are reported as bad without being parsed (SPEC §6)."""


@dataclass(frozen=True, slots=True)
class RawLine:
    """One line of a member, as bytes (without the newline)."""

    line_no: int
    """1-based line number within the member."""
    offset: int
    """Byte offset of the line's start (in the decompressed stream for gz members)."""
    length: int
    """Length in bytes, without the newline."""
    data: bytes | None
    """The bytes, or None when the line was over the size limit."""
    complete: bool = True
    """False for a last line with no newline (a writer may still be writing it)."""


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line that could not be read as a span: kept as a row with its reason."""

    file: str
    line: int
    offset: int
    reason: str
    text: str = ""
    """The start of the line (neutralise before rendering), for the raw view."""


class NotRegularFile(OSError):
    """A path that names a FIFO, a device, a socket or a directory: never read as a trace."""


def open_regular(path: str) -> IO[bytes]:
    """Open ``path`` for reading bytes, only if it is a regular file (links are followed).

    Opened without blocking, then checked on the open descriptor (not by name, which could be
    swapped in between): a FIFO would block the open itself and a device would never end.
    Raises :class:`NotRegularFile` (an OSError) for anything else.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = file_kind(mode)
            raise NotRegularFile(errno.EINVAL, f"not a regular file ({kind})", path)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        os.close(fd)
        raise


def open_member(path: str, gz: bool = False) -> IO[bytes]:
    """Open a plain member for reading bytes (regular files only). A gzip member is read
    through its decompressed copy (:func:`tracetui.store.gz.gunzip_to`), never directly."""
    if gz:
        raise ValueError("gzip members are read through their decompressed copy")
    return open_regular(path)


def iter_lines(
    stream: IO[bytes], *, start_offset: int = 0, start_line: int = 1, max_line: int = MAX_LINE
) -> Iterator[RawLine]:
    """Yield every line of ``stream`` from its current position, bounded in memory."""
    offset = start_offset
    line_no = start_line
    pending = bytearray()
    pending_start = offset
    overlong = False  # the current line passed max_line: we only count its bytes
    overlong_len = 0
    while True:
        chunk = stream.read(CHUNK)
        if not chunk:
            break
        pos = 0
        while True:
            nl = chunk.find(b"\n", pos)
            if nl < 0:
                piece = chunk[pos:]
                if overlong:
                    overlong_len += len(piece)
                elif len(pending) + len(piece) > max_line:
                    overlong = True
                    overlong_len = len(pending) + len(piece)
                    pending.clear()
                else:
                    pending += piece
                break
            if overlong:
                length = overlong_len + (nl - pos)
                yield RawLine(line_no, pending_start, length, None)
                overlong = False
                overlong_len = 0
            elif pending:
                pending += chunk[pos:nl]
                if len(pending) > max_line:
                    yield RawLine(line_no, pending_start, len(pending), None)
                else:
                    yield RawLine(line_no, pending_start, len(pending), bytes(pending))
                pending.clear()
            else:
                length = nl - pos
                if length > max_line:
                    yield RawLine(line_no, pending_start, length, None)
                else:
                    yield RawLine(line_no, pending_start, length, chunk[pos:nl])
            line_no += 1
            pending_start = offset + nl + 1
            pos = nl + 1
        offset += len(chunk)
    if overlong:
        yield RawLine(line_no, pending_start, overlong_len, None, complete=False)
    elif pending:
        yield RawLine(line_no, pending_start, len(pending), bytes(pending), complete=False)


def loads(data: bytes) -> tuple[Any, str | None]:
    """Parse JSON bytes: ``(value, note)``; invalid UTF-8 is replaced, and noted, not fatal."""
    try:
        return orjson.loads(data), None
    except orjson.JSONDecodeError as exc:
        msg = str(exc)
        if "utf-8" in msg.lower() or "surrogate" in msg.lower():
            text = data.decode("utf-8", errors="replace")
            return orjson.loads(text.encode("utf-8")), "invalid UTF-8 (replaced with U+FFFD)"
        raise


def parse_line(raw: RawLine, file: str) -> Span | BadLine:
    """A line → a Span, or a BadLine saying exactly why not."""
    if raw.data is None:
        return BadLine(
            file,
            raw.line_no,
            raw.offset,
            f"line of {raw.length:,} bytes is over the {MAX_LINE >> 20} MiB limit; not parsed",
        )
    try:
        value, note = loads(raw.data)
    except orjson.JSONDecodeError as exc:
        reason = _json_reason(raw, exc)
        return BadLine(file, raw.line_no, raw.offset, reason, _head(raw.data))
    try:
        span = normalize(value)
    except NotASpan as exc:
        return BadLine(file, raw.line_no, raw.offset, str(exc), _head(raw.data))
    if note:
        span = _with_problem(span, note)
    return span


def parse_facts(raw: RawLine, file: str) -> Facts | BadLine:
    """A line → the index's facts about it, or a BadLine (same verdicts as :func:`parse_line`)."""
    if raw.data is None:
        return parse_line(raw, file)  # type: ignore[return-value]  # always a BadLine here
    try:
        value, note = loads(raw.data)
    except orjson.JSONDecodeError as exc:
        return BadLine(file, raw.line_no, raw.offset, _json_reason(raw, exc), _head(raw.data))
    try:
        facts = quick_facts(value)
    except NotASpan as exc:
        return BadLine(file, raw.line_no, raw.offset, str(exc), _head(raw.data))
    if note and not facts.problems:
        from dataclasses import replace

        facts = replace(facts, problems=True)
    return facts


def _with_problem(span: Span, note: str) -> Span:
    from dataclasses import replace

    return replace(span, problems=(*span.problems, note))


def _json_reason(raw: RawLine, exc: orjson.JSONDecodeError) -> str:
    msg = str(exc).split(":", 1)[0]
    if "infinity" in msg:  # 1e400: valid JSON text, but no number a reader can hold
        return f"number out of range at column {exc.colno} (beyond what a double holds, ±1.8e308)"
    if not raw.complete:
        return f"truncated line (no newline at end of file): {msg}"
    return f"malformed JSON at column {exc.colno}: {msg}"


def _head(data: bytes, n: int = 200) -> str:
    return data[:n].decode("utf-8", errors="replace")


def is_blank(raw: RawLine) -> bool:
    return raw.data is not None and not raw.data.strip()


def file_size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
