"""The OTLP/JSON file written at collector speed: the same bytes as :func:`otlp.write_json`.

:func:`tracetui.export.otlp.write_json` builds a :class:`~tracetui.model.spans.Span` per row and
then a dict per attribute, and spends most of its time doing so. This module writes the same
document without either, in three roads per row:

1. the C extension ``_otlp_row`` (when built, and unless ``TRACETUI_NO_C`` is set) validates the
   line, reads the fields and writes the span's bytes for the ordinary shape of record;
2. :class:`~tracetui.export.otlp_rows.RowWriter` (Python, orjson) for a row the C code refuses,
   or every row without the extension (or with ``TRACETUI_NO_C_OTLP=1``);
3. the reference exporter for a row RowWriter refuses (odd types: it normalises and notes them).

Each member is read in large sequential chunks, and the spans are written a batch at a time, so
memory stays bounded. :func:`iter_span_json` is the per-span iterator (the OTLP/HTTP sender takes
its spans from it). tests/unit/test_otlp_fast*.py and test_otlp_row.py hold the roads to
identical output.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import IO, Any

import orjson

from tracetui.export import otlp, otlp_proto
from tracetui.export.otlp_rows import RowWriter
from tracetui.model import markers
from tracetui.model.flags import BAD, SIDECAR
from tracetui.model.text import dump_json
from tracetui.store.index import RunIndex

try:
    from tracetui.export import _otlp_row  # type: ignore[attr-defined]
except ImportError:  # built without a compiler: the Python road reads every row
    _otlp_row = None

CHUNK = 8 << 20
"""Bytes read from a member at a time (rows are read in file order)."""
BATCH = 1000
"""Spans assembled before they are written (the memory held is one batch)."""
_HINTS = tuple(h.encode() for h in markers._HINTS)


def c_available() -> bool:
    """Whether the C road is taken: built, and not turned off with ``TRACETUI_NO_C=1`` (every C
    extension off) or ``TRACETUI_NO_C_OTLP=1`` (this one only: the index keeps its scanner)."""
    env = os.environ
    return (
        _otlp_row is not None and not env.get("TRACETUI_NO_C") and not env.get("TRACETUI_NO_C_OTLP")
    )


def _c_rows(index: RunIndex, py: RowWriter) -> Any:
    """The C writer of one run, sharing the Python road's exporter (roots, parents, clock)."""
    if not c_available() or py.imported:  # an imported run's line numbers come from its records
        return None
    run_key, ref = index.run.name, py.ref
    return _otlp_row.Rows(
        f"tracetui span\0{run_key}\0".encode("utf-8", "surrogatepass"),
        f"tracetui trace\0{run_key}\0".encode("utf-8", "surrogatepass"),
        index.ids,
        index.duplicates,
        index.parent_ids,
        lambda row: otlp.row_key(index, row),
        ref.root,
        ref.chains.parent_row,
        markers.find_marker,
        _HINTS,
    )


def _path_json(path: str) -> bytes | None:
    """A member's path as the span's JSON string; None when it is no valid UTF-8 (an undecodable
    name): the reference then writes the span through its fallback encoder, so Python does."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return dump_json(path)


Piece = tuple[bytes | bytearray, int, bool]
"""Spans joined with commas, how many, and whether escaped already (else dump_json them)."""


def _pieces(index: RunIndex, batch: int = BATCH) -> Iterator[Piece]:
    """One run's spans in set order, up to ``batch`` in a piece."""
    py = RowWriter(index)
    crows = _c_rows(index, py)
    if crows is None:
        yield from ((span, 1, False) for span in _python_spans(index, py))
    else:
        yield from _c_pieces(index, py, crows, batch, bytearray)


def _python_spans(index: RunIndex, py: RowWriter) -> Iterator[bytes]:
    """Each span of one run as the Python road writes it (no C writer), in set order."""
    for row, data, path in _rows(index):
        span = py.row(row, data, path)
        if span is not None:
            yield span


def _c_pieces(index: RunIndex, py: RowWriter, crows: Any, batch: int, sink: Any) -> Iterator[Any]:
    """:func:`_pieces` with the C road: runs of rows inside the chunk read go to ``crows.run``,
    into a fresh ``sink()`` each time (a bytearray: the spans joined; a list: one bytes each); a
    row it declines is read by ``py`` (the two share the exporter's clock) and comes as one span.
    """
    flags, member_no, offsets, lengths = index.flags, index.member_no, index.offset, index.length
    columns = (offsets, lengths, flags, member_no, index.line_no)
    ref = py.ref
    handle: IO[bytes] | None = None
    current, path, path_json = -1, "", None
    buf, buf_start = b"", 0
    row, n = 0, len(flags)
    try:
        while row < n:
            if flags[row] & (BAD | SIDECAR):
                row += 1
                continue
            mno = member_no[row]
            if mno != current:
                if handle is not None:
                    handle.close()
                current, buf, buf_start = mno, b"", 0
                im = index.members[mno]
                path = im.member.path
                path_json = _path_json(path)
                try:
                    # Open across this member's rows (not a `with`); closed here or below.
                    handle = open(im.readable, "rb")  # noqa: SIM115
                except OSError:
                    handle = None
            if handle is None:
                row += 1  # the member vanished (rotated away): its spans cannot be exported
                continue
            off, length = offsets[row], lengths[row]
            at = off - buf_start
            if at < 0 or at + length > len(buf):
                handle.seek(off)
                buf, buf_start, at = handle.read(max(CHUNK, length)), off, 0
            if path_json is not None:
                out = sink()
                done, spans = crows.run(
                    buf, buf_start, row, n, mno, path_json, out, batch, *columns
                )
                if spans:
                    yield out, spans, True
                if done != row:
                    row = done
                    continue
            ref.last_end = crows.last_end  # the C road declined this row: Python reads it
            span = py.row(row, buf[at : at + length], path)
            crows.last_end = ref.last_end
            if span is not None:
                yield span, 1, False
            row += 1
    finally:
        if handle is not None:
            handle.close()


def iter_span_json(index: RunIndex) -> Iterator[bytes]:
    """Each span of one run as OTLP/JSON bytes, in set order: exactly what ``otlp.write_json``
    writes for the objects ``otlp.iter_spans`` yields (escaped as ``dump_json`` escapes)."""
    py = RowWriter(index)
    crows = _c_rows(index, py)
    if crows is None:
        yield from (dump_json(orjson.Fragment(span)) for span in _python_spans(index, py))
        return
    for piece, _, escaped in _c_pieces(index, py, crows, BATCH, list):
        if not escaped:
            yield dump_json(orjson.Fragment(piece))
        else:
            yield from piece


def span_proto(span_json: bytes) -> bytes:
    """The protobuf ``Span`` message of one span's OTLP/JSON bytes: what ``otlp_proto.span``
    makes of them read back, encoded in C when the extension is built (Python when it declines
    the shape)."""
    if c_available():
        done: bytes | None = _otlp_row.span_proto(span_json)
        if done is not None:
            return done
    return otlp_proto.span(orjson.loads(span_json))


def _rows(index: RunIndex) -> Iterator[tuple[int, bytes, str]]:
    """``(row, line bytes, member path)`` of the rows that may be spans, in set order.

    Each member is read in :data:`CHUNK`-sized sequential reads (the reference seeks and reads
    per row); a member that cannot be opened is skipped, as the reference skips it.
    """
    flags, member_no, offsets, lengths = index.flags, index.member_no, index.offset, index.length
    handle: IO[bytes] | None = None
    current = -1
    buf, buf_start = b"", 0
    try:
        for row in range(len(flags)):
            if flags[row] & (BAD | SIDECAR):
                continue
            mno = member_no[row]
            im = index.members[mno]
            if mno != current:
                if handle is not None:
                    handle.close()
                current, buf, buf_start = mno, b"", 0
                try:
                    # Open across this member's rows (not a `with`); closed here or below.
                    handle = open(im.readable, "rb")  # noqa: SIM115
                except OSError:
                    handle = None
            if handle is None:
                continue
            off, length = offsets[row], lengths[row]
            at = off - buf_start
            if at < 0 or at + length > len(buf):
                handle.seek(off)
                buf, buf_start, at = handle.read(max(CHUNK, length)), off, 0
            yield row, buf[at : at + length], im.member.path
    finally:
        if handle is not None:
            handle.close()


def write_json(indexes: Sequence[RunIndex], out: IO[bytes], batch: int = BATCH) -> int:
    """Stream the request to ``out`` as OTLP/JSON (byte for byte ``otlp.write_json``'s);
    returns the number of spans written."""
    count = 0
    out.write(b'{"resourceSpans":[')
    for n, ix in enumerate(indexes):
        head = dump_json(
            {"resource": otlp.resource(ix), "scopeSpans": [{"scope": otlp.SCOPE, "spans": []}]}
        )
        out.write((b"," if n else b"") + head[: -len(b"]}]}")])
        pending: list[bytes | bytearray] = []
        size, escaped, first = 0, True, True
        for piece, spans, done in _pieces(ix, batch):
            pending.append(piece)
            size += spans
            escaped = escaped and done
            count += spans
            if size >= batch:
                _flush(out, pending, first, escaped)
                pending, size, escaped, first = [], 0, True, False
        if pending:
            _flush(out, pending, first, escaped)
        out.write(b"]}]}")
    out.write(b"]}\n")
    return count


def _flush(out: IO[bytes], pieces: list[bytes | bytearray], first: bool, escaped: bool) -> None:
    # Through dump_json, as the reference writes each span: C1, bidi and zero-width characters
    # escaped (the escaping is per character, so a batch escapes as its spans would one by one,
    # and a span already escaped passes through unchanged).
    body = pieces[0] if len(pieces) == 1 else b",".join(pieces)
    if not escaped:
        body = dump_json(orjson.Fragment(bytes(body)))
    if not first:
        out.write(b",")
    out.write(body)
