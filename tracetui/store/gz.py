"""Bounded, damage-tolerant gzip decompression: the one way tracetui inflates a ``.gz`` member.

A gzip member comes from the trace folder, so it is untrusted. :func:`gunzip_to` inflates it
incrementally into a file and, instead of raising, stops with a note (naming the member and what
happened) on damage or at a limit:

- a corrupt stream (``zlib.error``) or one cut off before its end: what came before the damage is
  kept, trimmed to its last complete line;
- a checksum that does not match (damage inflate itself cannot see): every complete line is
  kept, each still checked as JSON;
- bytes after the end that are neither another gzip member nor zero padding: ignored;
- no line break in the first :data:`NEWLINE_WITHIN` bytes: not JSON Lines (a classic bomb is a
  run of NULs), nothing is kept;
- more than :data:`MAX_RATIO` times its compressed size once past :data:`RATIO_AFTER`, or more
  than :func:`max_output` bytes in all: stopped there, the complete lines before it kept.

Memory stays bounded whatever the input: at most :data:`IN_CHUNK` compressed and
:data:`OUT_CHUNK` decompressed bytes are held at a time.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO

from tracetui.store.reader import open_regular
from tracetui.store.temp_files import make_temp

IN_CHUNK = 64 << 10
"""Compressed bytes fed to zlib at a time."""
OUT_CHUNK = 1 << 20
"""Most decompressed bytes taken from zlib at a time (a bomb cannot balloon one call)."""
NEWLINE_WITHIN = 1 << 20
"""JSON Lines data has a line break in its first MiB; data without one is refused."""
MAX_RATIO = 1000
"""Decompressed over compressed size past which a member is taken for a bomb (once past
RATIO_AFTER). Traces compress 5 to 150 times (one record repeated word for word: about 200);
only runs of one byte go near deflate's own limit, about 1,032 times."""
RATIO_AFTER = 64 << 20
"""The ratio is judged only past this many decompressed bytes: a small member may compress
very well and still be a trace. (At 1 GiB a bomb of blank lines still cost 43 s to index.)"""
MAX_OUTPUT = 16 << 30
"""Decompressed bytes of one member at most, by default (the copy lives in the temp folder)."""
MAX_OUTPUT_ENV = "TRACETUI_GUNZIP_MAX_MIB"
"""Environment variable that replaces MAX_OUTPUT, in MiB."""
_MAGIC = b"\x1f\x8b"
_RETRY_PIECE = 64
"""On damage the failing input is fed again this many bytes at a time, to keep what precedes
the damage (zlib returns nothing from a call that fails)."""


class Cancelled(Exception):
    """The caller asked to stop (the viewer is quitting): nothing more is read."""


@dataclass(frozen=True, slots=True)
class Gunzipped:
    """What :func:`gunzip_to` wrote."""

    size: int
    """Bytes written to ``out`` and kept."""
    lines: int
    """Line breaks among them."""
    note: str | None
    """What stopped it early or was odd, naming the member; None for a sound member."""


def max_output() -> int:
    """The cap on one member's decompressed bytes: TRACETUI_GUNZIP_MAX_MIB, else MAX_OUTPUT."""
    value = os.environ.get(MAX_OUTPUT_ENV, "").strip()
    if value.isdigit() and 0 < int(value) < (1 << 40):
        return int(value) << 20
    return MAX_OUTPUT


class _Inflater:
    """zlib over a gzip stream of one or more members, handing out bounded pieces."""

    __slots__ = ("ended", "held", "started", "trailing", "z")

    def __init__(self) -> None:
        self.z = zlib.decompressobj(wbits=31)
        self.started = False
        """Input went into the current member."""
        self.ended = False
        """The current member reached its end; what follows is a member, padding or garbage."""
        self.held = b""
        """A lone ``\\x1f`` after an end: the next read tells whether a member starts there."""
        self.trailing = 0
        """Bytes after the data that are not gzip."""

    def copy(self) -> _Inflater:
        other = _Inflater()
        other.z = self.z.copy()
        other.started, other.ended, other.held = self.started, self.ended, self.held
        other.trailing = self.trailing
        return other

    def restore(self, other: _Inflater) -> None:
        """Go back to the state ``other`` (a :meth:`copy`) was taken in."""
        self.z, self.started, self.ended = other.z, other.started, other.ended
        self.held, self.trailing = other.held, other.trailing

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decompressed pieces of ``data``, as they come; raises zlib.error at damage."""
        while data:
            if self.ended:
                data = self._after_end(data)
                continue
            self.started = True
            piece = self.z.decompress(data, OUT_CHUNK)
            if piece:
                yield piece
            while not self.z.eof and not self.z.unconsumed_tail and len(piece) == OUT_CHUNK:
                piece = self.z.decompress(b"", OUT_CHUNK)  # zlib may hold more output
                if piece:
                    yield piece
            if self.z.eof:
                self.ended = True
                data = self.z.unused_data  # at the end, the rest of the input is here only
            else:
                data = self.z.unconsumed_tail

    def _after_end(self, data: bytes) -> bytes:
        """Bytes after a member's end: the next member's input, or b"" (padding, garbage)."""
        if self.trailing:
            self.trailing += len(data)
            return b""
        data = (self.held + data).lstrip(b"\0")  # zero padding after gzip data is allowed
        self.held = b""
        if data == _MAGIC[:1]:
            self.held = data
            return b""
        if data.startswith(_MAGIC):
            self.z = zlib.decompressobj(wbits=31)
            self.started = self.ended = False
            return data
        self.trailing = len(data)
        return b""

    def finish(self) -> str | None:
        """At the end of the input: what is wrong with how it ended, or None."""
        if self.held:
            self.trailing += len(self.held)
        if self.started and not self.ended:
            return "gzip data ends early (cut off)"
        return None


class _Sink:
    """Writes pieces to ``out`` and keeps the counts the limits are judged on."""

    def __init__(self, out: IO[bytes], cap: int) -> None:
        self.out, self.cap = out, cap
        self.read_in = self.written = self.lines = 0
        self.last_nl = -1
        """Offset of the last line break written."""
        self.refused = False

    def take(self, piece: bytes) -> str | None:
        """Write ``piece``; why decompression must stop now, or None."""
        why = None
        if self.written + len(piece) > self.cap:
            piece = piece[: self.cap - self.written]
            why = f"over the {self.cap >> 20:,} MiB limit for one member ({MAX_OUTPUT_ENV})"
        nl = piece.rfind(b"\n")
        if nl >= 0:
            self.last_nl = self.written + nl
            self.lines += piece.count(b"\n")
        self.out.write(piece)
        self.written += len(piece)
        if self.last_nl < 0 and self.written >= NEWLINE_WITHIN:
            self.refused = True
            return "refused"
        if why is None and self.written > RATIO_AFTER and self.written > MAX_RATIO * self.read_in:
            why = (
                f"decompresses to over {MAX_RATIO:,} times its size (a gzip bomb?), "
                f"stopped after {self.written:,} bytes"
            )
        return why

    def keep(self, size: int) -> None:
        """Cut ``out`` back to its first ``size`` bytes."""
        self.out.flush()
        self.out.truncate(size)
        self.out.seek(size)
        self.written = size


def gunzip_to(
    src: IO[bytes],
    out: IO[bytes],
    name: str,
    *,
    cancelled: Callable[[], bool] | None = None,
) -> Gunzipped:
    """Decompress the gzip data read from ``src`` into ``out`` (opened for writing, empty).

    Bad data never raises: the result's note says what was wrong and what was kept. Raises
    OSError when ``src`` cannot be read or ``out`` written, :class:`Cancelled` when
    ``cancelled()`` turns true (checked between pieces).
    """
    sink = _Sink(out, max_output())
    inf = _Inflater()
    why: str | None = None  # the damage or limit that stopped decompression
    while why is None:
        if cancelled is not None and cancelled():
            raise Cancelled
        data = src.read(IN_CHUNK)
        if not data:
            why = inf.finish()
            if why is not None:
                why = f"{why} after {sink.written:,} decompressed bytes"
            break
        sink.read_in += len(data)
        saved = inf.copy()
        done = 0  # bytes of this input's output already written
        try:
            for piece in inf.feed(data):
                done += len(piece)
                why = sink.take(piece)
                if why is not None:
                    break
                if cancelled is not None and cancelled():
                    raise Cancelled
        except zlib.error as exc:
            inf.restore(saved)  # the state before this input: feed it again up to the damage
            why = _salvage(inf, data, done, sink) or _damage(exc, sink.written)
    if sink.refused:
        sink.keep(0)
        return Gunzipped(0, 0, _refusal(name))
    if why is not None and sink.written != sink.last_nl + 1:
        sink.keep(sink.last_nl + 1)  # the piece of a line before the damage is no line
    parts: list[str] = []
    if why is not None and why.startswith("gzip checksum"):
        parts.append(f"{why}; its {sink.lines:,} complete lines are read")
    elif why is not None:
        kept = (
            f"the {sink.lines:,} complete lines before it are read"
            if sink.lines
            else "nothing read"
        )
        parts.append(f"{why}; {kept}")
    if inf.trailing:
        s = "" if inf.trailing == 1 else "s"
        parts.append(f"{inf.trailing:,} byte{s} after the end of the gzip data, not gzip: ignored")
    return Gunzipped(sink.written, sink.lines, f"{name}: " + "; ".join(parts) if parts else None)


def _salvage(inf: _Inflater, data: bytes, done: int, sink: _Sink) -> str | None:
    """After zlib.error in ``data``: feed it again from ``inf`` (the state before it), a piece
    at a time and byte by byte within the piece that fails, and write what precedes the damage
    beyond the ``done`` bytes of its output already written. A reason when that output hits a
    limit, else None."""
    produced = 0  # output of ``data`` so far, counted from the state before it
    for k in range(0, len(data), _RETRY_PIECE):
        piece_in = data[k : k + _RETRY_PIECE]
        before, at = inf.copy(), produced
        try:
            for out in inf.feed(piece_in):
                why, produced, done = _write_new(sink, out, produced, done)
                if why is not None:
                    return why
        except zlib.error:
            inf.restore(before)
            produced = at
            for i in range(len(piece_in)):
                try:
                    for out in inf.feed(piece_in[i : i + 1]):
                        why, produced, done = _write_new(sink, out, produced, done)
                        if why is not None:
                            return why
                except zlib.error:
                    return None
            return None
    return None


def _write_new(sink: _Sink, out: bytes, produced: int, done: int) -> tuple[str | None, int, int]:
    """Write the part of ``out`` (at ``produced`` in the output) past ``done`` bytes."""
    end = produced + len(out)
    why = sink.take(out[done - produced :]) if end > done else None
    return why, end, max(done, end)


def decompressed_copy(
    path: str, adopt: Callable[[str], None], *, cancelled: Callable[[], bool] | None = None
) -> tuple[str, Gunzipped]:
    """Decompress the gzip member at ``path`` (a regular file) into a new temp file.

    ``adopt`` takes the temp file's path before anything is written (the index's
    ``adopt_temp``), so it is removed with its owner whatever happens here: damage, a full
    disk, Ctrl-C. Returns the copy's path and what :func:`gunzip_to` said.
    """
    fd, tmp = make_temp("gunzip", ".jsonl")
    adopt(tmp)
    with os.fdopen(fd, "wb") as out, open_regular(path) as src:
        return tmp, gunzip_to(src, out, os.path.basename(path), cancelled=cancelled)


def _damage(exc: zlib.error, written: int) -> str:
    text = str(exc).split(": ", 1)[-1]  # "Error -3 while decompressing data: invalid ..."
    if "incorrect data check" in text or "incorrect length check" in text:
        return f"gzip checksum does not match ({text}): the data may be damaged"
    if written == 0:
        return f"not readable as gzip ({text})"
    return f"gzip data damaged after {written:,} decompressed bytes ({text})"


def _refusal(name: str) -> str:
    return (
        f"{name}: no line break in the first {NEWLINE_WITHIN >> 20} MiB of its decompressed "
        "data: not a JSON Lines trace (a gzip bomb?); not read"
    )
