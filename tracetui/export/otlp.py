"""Spans as OpenTelemetry traces in OTLP/JSON, to a file or POSTed to an OTLP/HTTP receiver.

One OTLP span per span record (bad lines and sidecar re-runs are left out), named
``execute_tool {tool}`` with the GenAI semantic-convention attributes for a tool call, the
process exit code, and tracetui's byte counts, caps and truncation facts as ``tracetui.*``.

Ids are derived, not random, so the same run always exports the same trace: a span's id is a
hash of the run's name and its ``command_id`` (plus the occurrence number for a duplicated id,
or the row for a span without one); a trace is one retry chain, its id a hash of the run's
name and the chain root's id. A retry carries a ``links[]`` entry to the attempt it retries
(the same trace). OTLP/JSON wants ids as lowercase hex, enums as integers and 64-bit integers
as decimal strings.

Output is produced span by span (:func:`iter_spans`), so a run of a million spans is written
as a stream and POSTed in batches, never held whole in memory.
"""

from __future__ import annotations

import hashlib
import re
import urllib.error
import urllib.parse
import urllib.request
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta, timezone
from typing import IO, Any

from tracetui import __version__
from tracetui.analysis.chains import ChainIndex
from tracetui.model.flags import BAD, SIDECAR
from tracetui.model.spans import Span
from tracetui.model.text import dump_json, neutralize_line
from tracetui.store.index import RunIndex
from tracetui.store.reader import RawLine, parse_line

SPAN_KIND_INTERNAL = 1
STATUS_CODE_ERROR = 2
BATCH = 1000
"""Spans per POST request."""

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
RFC3339 = re.compile(
    r"^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9})\d*)?(Z|z|[+-]\d\d:?\d\d)?$"
)


class ExportError(Exception):
    """An export that could not be delivered (unreachable endpoint, non-2xx answer)."""


def unix_nanos(stamp: str | None) -> int | None:
    """Nanoseconds since the epoch of an RFC 3339 time (no zone means UTC); None when unparseable."""
    m = RFC3339.match(stamp.strip()) if stamp else None
    if m is None:
        return None
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    frac, zone = m.group(7) or "", m.group(8)
    try:
        offset = timedelta(0)
        if zone and zone not in "Zz":
            sign = -1 if zone[0] == "-" else 1
            digits = zone[1:].replace(":", "")
            offset = sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
        moment = datetime(year, month, day, hour, minute, min(second, 59), tzinfo=timezone(offset))
    except ValueError:
        return None
    seconds = (moment - _EPOCH) // timedelta(seconds=1)
    return seconds * 1_000_000_000 + int(frac.ljust(9, "0")) if frac else seconds * 1_000_000_000


def _hex_id(text: str, chars: int) -> str:
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:chars]
    # An all-zero id is invalid in OTLP; a sha256 prefix of zeros is astronomically unlikely.
    return digest if digest.strip("0") else digest[:-1] + "1"


def trace_id(run_key: str, root_key: str) -> str:
    """32 lowercase hex chars for a chain."""
    return _hex_id(f"tracetui trace\0{run_key}\0{root_key}", 32)


def span_id(run_key: str, key: str) -> str:
    """16 lowercase hex chars for a span."""
    return _hex_id(f"tracetui span\0{run_key}\0{key}", 16)


def row_key(index: RunIndex, row: int) -> str:
    """What a span's id is derived from: its command id (with occurrence), else its row."""
    cid = index.ids[row]
    if cid is None:
        return f"row {row}"
    dupes = index.duplicates.get(cid)
    if dupes and row != dupes[0]:
        # Rows are listed in row order: a binary search (scanning the list made an id repeated
        # thousands of times a quadratic export).
        k = bisect_left(dupes, row)
        return f"{cid}\0{k if k < len(dupes) and dupes[k] == row else dupes.index(row)}"
    return cid


def attr(key: str, value: Any) -> dict[str, Any]:
    """One OTLP attribute object: the value's kind by its Python type (64-bit ints as text)."""
    if isinstance(value, bool):
        v: dict[str, Any] = {"boolValue": value}
    elif isinstance(value, int):
        v = {"intValue": str(value)}
    elif isinstance(value, float):
        v = {"doubleValue": value}
    elif isinstance(value, (list, tuple)):
        v = {"arrayValue": {"values": [{"stringValue": str(x)} for x in value]}}
    else:
        v = {"stringValue": str(value)}
    return {"key": key, "value": v}


def _attributes(span: Span, path: str, line: int) -> list[dict[str, Any]]:
    pairs: list[tuple[str, Any]] = [
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", span.display_name),
    ]
    if span.command_id is not None:
        pairs.append(("gen_ai.tool.call.id", span.command_id))
    if span.argv:
        pairs.append(("process.command_args", list(span.argv)))
    if span.exit_code is not None:
        pairs.append(("process.exit.code", span.exit_code))
    if span.failed:
        pairs.append(("error.type", _error_type(span)))
    optional: list[tuple[str, Any]] = [
        ("tracetui.cwd", span.cwd),
        ("tracetui.agent_note", span.agent_note),
        ("tracetui.runner_error", span.error),
        # No exit and no error (the agent's format records none): the status stays unset.
        ("tracetui.exit_unknown", True if span.exit_unknown else None),
        ("tracetui.kind", "submission" if span.is_submission else None),
        ("tracetui.parent_command_id", span.parent_command_id),
        ("tracetui.dialect", span.dialect),
        ("tracetui.encoding", span.encoding),
        ("tracetui.ok_preview", span.ok_preview),
        ("tracetui.redacted", span.redacted),
        ("tracetui.truncated", span.truncated),
        ("tracetui.hidden_bytes", span.hidden_bytes),
    ]
    for f in span.streams:
        s = f"tracetui.{f.name}"
        optional += [
            (f"{s}.bytes", f.bytes),
            (f"{s}.cap", f.cap),
            (f"{s}.truncated", f.truncated),
            (f"{s}.clip", f.clip),
            (f"{s}.hidden_bytes", f.hidden_bytes),
            (f"{s}.shown_bytes", f.shown_bytes),
            (f"{s}.full_sha256", f.full_sha256),
            (f"{s}.items", f.items),
            (f"{s}.preview_items", f.preview_items),
        ]
    optional += [("tracetui.file", path), ("tracetui.line", line)]
    pairs += [(k, v) for k, v in optional if v is not None]
    return [attr(k, v) for k, v in pairs]


def _error_type(span: Span) -> str:
    # Low-cardinality, as the convention asks: the exit code, the signal, or the runner failing.
    if span.exit_code is None:
        return "runner_error"
    if span.exit_code < 0:
        return f"signal {-span.exit_code}"
    return f"exit {span.exit_code}"


class Exporter:
    """Ids and roots for one run (the chain index memoises roots: a long chain is walked once).

    ``last_end`` is the clock a span without a time follows (the latest end so far); the fast
    writers (``otlp_fast``, ``otlp_rows``) share it with this exporter for the rows they hand it.
    """

    def __init__(self, index: RunIndex) -> None:
        self.index = index
        self.chains = ChainIndex(index)
        self.run_key = index.run.name
        self.last_end = 0
        """The latest span end written so far (ns)."""

    def root(self, row: int) -> int:
        return self.chains.root_of(row)[0]

    def span(self, row: int, span: Span) -> dict[str, Any]:
        ix = self.index
        path, line = ix.location(row)
        root = self.root(row)
        tid = trace_id(self.run_key, row_key(ix, root))
        start = unix_nanos(span.started_at)
        attrs = _attributes(span, path, line)
        if start is None:
            # OTLP needs a time: follow the previous span, and say the time is not recorded.
            start = self.last_end
            attrs.append(attr("tracetui.time_unknown", True))
        end = start + max(0, int((span.duration_ms or 0) * 1_000_000))
        self.last_end = max(self.last_end, end)
        out: dict[str, Any] = {
            "traceId": tid,
            "spanId": span_id(self.run_key, row_key(ix, row)),
            "name": f"execute_tool {span.display_name}",
            "kind": SPAN_KIND_INTERNAL,
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(end),
            "attributes": attrs,
        }
        link = self._link(row, span, tid)
        if link is not None:
            out["links"] = [link]
        if span.failed:
            message = span.error or (
                f"exit {span.exit_code}" if span.exit_code is not None else "no exit"
            )
            out["status"] = {"code": STATUS_CODE_ERROR, "message": message}
        return out

    def _link(self, row: int, span: Span, tid: str) -> dict[str, Any] | None:
        if span.parent_command_id is None:
            return None
        prow = self.chains.parent_row(row)
        if prow is not None:
            return {
                "traceId": tid,
                "spanId": span_id(self.run_key, row_key(self.index, prow)),
                "attributes": [attr("tracetui.link", "retry_of")],
            }
        # The parent was rotated away: link to where its span would be, and say so.
        return {
            "traceId": tid,
            "spanId": span_id(self.run_key, span.parent_command_id),
            "attributes": [
                attr("tracetui.link", "retry_of"),
                attr("tracetui.parent_missing", True),
            ],
        }


def _read_spans(index: RunIndex) -> Iterator[tuple[int, Span]]:
    """``(row, span)`` for the trace's spans in set order, one open file per member.

    An export reads every span once, in order: keeping the member open (instead of one open
    per row through the index's cache) makes that a sequential read, and leaves the viewer's
    cache alone.
    """
    flags, member_no = index.flags, index.member_no
    handle: IO[bytes] | None = None
    current = -1
    try:
        for row in range(len(flags)):
            if flags[row] & (BAD | SIDECAR):
                continue
            mno = member_no[row]
            im = index.members[mno]
            if mno != current:
                if handle is not None:
                    handle.close()
                current = mno
                try:
                    # Open across this member's rows (not a `with`); closed here or below.
                    handle = open(im.readable, "rb")  # noqa: SIM115
                except OSError:
                    handle = None
            if handle is None:
                continue  # the member vanished (rotated away): its spans cannot be exported
            handle.seek(index.offset[row])
            data = handle.read(index.length[row])
            parsed = parse_line(
                RawLine(index.line_no[row], index.offset[row], len(data), data), im.member.path
            )
            if isinstance(parsed, Span):
                yield row, parsed
    finally:
        if handle is not None:
            handle.close()


def iter_spans(index: RunIndex) -> Iterator[dict[str, Any]]:
    """The OTLP span objects of one run, in set order."""
    exporter = Exporter(index)
    for row, span in _read_spans(index):
        yield exporter.span(row, span)


def resource(index: RunIndex) -> dict[str, Any]:
    return {"attributes": [attr("service.name", "tracetui"), attr("tracetui.run", index.run.name)]}


SCOPE = {"name": "tracetui", "version": __version__}


def export_request(indexes: Sequence[RunIndex]) -> dict[str, Any]:
    """The whole ``ExportTraceServiceRequest`` in memory (tests, small runs)."""
    return {
        "resourceSpans": [
            {
                "resource": resource(ix),
                "scopeSpans": [{"scope": SCOPE, "spans": list(iter_spans(ix))}],
            }
            for ix in indexes
        ]
    }


def write_json(indexes: Sequence[RunIndex], out: IO[bytes]) -> int:
    """Stream the request to ``out`` as OTLP/JSON; returns the number of spans written.

    Through ``dump_json``: trace text carrying C1, bidi or zero-width characters is escaped, so
    the document is inert even when written to a terminal (``--otlp-json -``).
    """
    count = 0
    out.write(b'{"resourceSpans":[')
    for n, ix in enumerate(indexes):
        head = dump_json({"resource": resource(ix), "scopeSpans": [{"scope": SCOPE, "spans": []}]})
        # Open the empty spans list of this resource and fill it span by span.
        out.write((b"," if n else b"") + head[: -len(b"]}]}")])
        for k, span in enumerate(iter_spans(ix)):
            out.write((b"," if k else b"") + dump_json(span))
            count += 1
        out.write(b"]}]}")
    out.write(b"]}\n")
    return count


def traces_url(endpoint: str) -> str:
    """``endpoint`` with ``/v1/traces`` appended unless it already ends so; raises on a bad URL."""
    parts = urllib.parse.urlsplit(endpoint.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ExportError(f"endpoint must be an http:// or https:// URL, got {endpoint!r}")
    path = parts.path.rstrip("/")
    if not path.endswith("/v1/traces"):
        path += "/v1/traces"
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def batches(indexes: Sequence[RunIndex], size: int = BATCH) -> Iterator[dict[str, Any]]:
    """Requests of at most ``size`` spans each, runs kept apart by resource."""
    pending: list[dict[str, Any]] = []
    count = 0
    for ix in indexes:
        spans: list[dict[str, Any]] = []
        for span in iter_spans(ix):
            spans.append(span)
            count += 1
            if count >= size:
                pending.append(
                    {"resource": resource(ix), "scopeSpans": [{"scope": SCOPE, "spans": spans}]}
                )
                yield {"resourceSpans": pending}
                pending, spans, count = [], [], 0
        if spans:
            pending.append(
                {"resource": resource(ix), "scopeSpans": [{"scope": SCOPE, "spans": spans}]}
            )
    if pending:
        yield {"resourceSpans": pending}


def post(
    endpoint: str, indexes: Sequence[RunIndex], *, timeout: float = 10.0, size: int = BATCH
) -> int:
    """POST the spans to an OTLP/HTTP receiver as JSON, in batches; returns the requests sent."""
    url = traces_url(endpoint)
    sent = 0
    for body in batches(indexes, size):
        request = urllib.request.Request(
            url,
            data=dump_json(body),
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                answer.read()
        except urllib.error.HTTPError as exc:
            detail = neutralize_line(exc.read(300).decode("utf-8", "replace").strip())
            raise ExportError(
                f"{url}: HTTP {exc.code} {exc.reason}" + (f": {detail}" if detail else "")
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = neutralize_line(str(getattr(exc, "reason", exc)))
            raise ExportError(f"{url}: cannot deliver: {reason}") from None
        sent += 1
    return sent
