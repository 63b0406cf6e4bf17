"""Send spans to an OTLP/HTTP receiver: protobuf or JSON, gzip, batches, retries.

The spans come from the file writer's fast path (:func:`tracetui.export.otlp_fast.iter_span_json`:
the bytes the JSON file holds, which ``http/json`` sends as they are and ``http/protobuf`` reads
back into :mod:`tracetui.export.otlp_proto`'s encoder), one at a time, and are gathered into
requests of at most ``batch_spans`` spans and about ``batch_bytes`` bytes, so
only one request is ever held in memory. Runs stay apart: each is its own resource.

Delivery follows the OTLP/HTTP rules: 429, 502, 503 and 504 (and a connection that fails or
times out) are retried with exponential backoff and jitter, waiting what ``Retry-After`` asks
when the receiver says (capped, so a hostile answer cannot park the export); any other
answer outside 2xx ends the export at once. A 2xx answer may carry ``partial_success``: the
spans the receiver rejected are counted over the whole export and reported once.

The settings (:mod:`tracetui.export.otlp_settings`, whose names this module re-exports) mirror
the OpenTelemetry SDK's environment variables; what the command line gives wins. Header values
are secrets: no message, error or repr here ever contains one.
"""

from __future__ import annotations

import email.utils
import gzip as gzip_module
import http.client
import random
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from tracetui import __version__
from tracetui.export import otlp, otlp_fast, otlp_proto
from tracetui.export.otlp_settings import (
    BATCH_BYTES,
    BATCH_SPANS,
    DEFAULT_URL,
    JSON,
    MAX_ATTEMPTS,
    PROTOBUF,
    PROTOCOLS,
    ConfigError,
    Settings,
    check_url,
    parse_env_headers,
    resolve,
    resolve_url,
)
from tracetui.model.text import dump_json, neutralize_line
from tracetui.store.index import RunIndex

__all__ = [  # the settings' names (otlp_settings.py) are this module's API too
    "BACKOFF_FIRST",
    "BACKOFF_MAX",
    "BATCH_BYTES",
    "BATCH_SPANS",
    "CONTENT_TYPES",
    "DEFAULT_URL",
    "GZIP_LEVEL",
    "JSON",
    "MAX_ATTEMPTS",
    "MAX_WAIT",
    "PROTOBUF",
    "PROTOCOLS",
    "RETRYABLE",
    "ConfigError",
    "DeliveryError",
    "Outcome",
    "Settings",
    "backoff",
    "check_url",
    "parse_env_headers",
    "requests",
    "resolve",
    "resolve_url",
    "retry_after",
    "send",
    "sleep",
    "span_bytes",
]

CONTENT_TYPES = {PROTOBUF: "application/x-protobuf", JSON: "application/json"}
RETRYABLE = frozenset({429, 502, 503, 504})
BACKOFF_FIRST, BACKOFF_MAX = 1.0, 30.0
GZIP_LEVEL = 1
"""Fastest: a request of spans still shrinks about 8x (level 6: 9x, at three quarters the speed)."""
MAX_WAIT = 60.0
"""The longest wait a ``Retry-After`` is allowed to ask for."""
_ANSWER_LIMIT = 64 * 1024

sleep: Callable[[float], None] = time.sleep
"""How the sender waits between attempts (tests replace it to record the waits)."""


@dataclass
class Outcome:
    """What an export delivered."""

    spans: int = 0
    requests: int = 0
    rejected: int = 0
    message: str = ""  # the receiver's first partial-success message


class DeliveryError(Exception):
    """The export stopped: the message is one line, ready to print."""

    def __init__(self, message: str, outcome: Outcome) -> None:
        super().__init__(message)
        self.outcome = outcome


# Building requests.


def _json_body(groups: list[tuple[bytes, bytes, list[bytes]]]) -> bytes:
    parts = [
        b'{"resource":'
        + res
        + b',"scopeSpans":[{"scope":'
        + sc
        + b',"spans":['
        + b",".join(spans)
        + b"]}]}"
        for res, sc, spans in groups
    ]
    return b'{"resourceSpans":[' + b",".join(parts) + b"]}"


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def span_bytes(index: RunIndex, as_proto: bool) -> Iterator[bytes]:
    """Each span of one run as a request carries it: its OTLP/JSON bytes from the fast path
    (exactly ``dump_json`` of the object ``otlp.iter_spans`` yields), or the protobuf ``Span``
    encoded from those bytes (``otlp_fast.span_proto``: in C, or read back for otlp_proto). A run with a member whose name is no valid UTF-8 is
    encoded from the reference's objects instead: its JSON holds U+FFFD where the protobuf
    encoder writes '?' for the lone surrogate."""
    if not as_proto:
        return otlp_fast.iter_span_json(index)
    if all(_utf8(im.member.path) for im in index.members):
        return (otlp_fast.span_proto(s) for s in otlp_fast.iter_span_json(index))
    return (otlp_proto.span(s) for s in otlp.iter_spans(index))


def requests(indexes: Sequence[RunIndex], settings: Settings) -> Iterator[tuple[bytes, int]]:
    """``(body, spans)`` for each request, uncompressed, built one at a time."""
    as_proto = settings.protocol == PROTOBUF
    scope = otlp_proto.scope(otlp.SCOPE) if as_proto else dump_json(otlp.SCOPE)
    # Bytes a request and each run in it add around the spans (tags and lengths, or the JSON
    # keys): counted high, so a request of two spans or more never passes ``batch_bytes``.
    head, per_run = (0, 18) if as_proto else (20, 52)
    groups: list[tuple[bytes, bytes, list[bytes]]] = []
    size, count = head, 0
    for ix in indexes:
        res_obj = otlp.resource(ix)
        res = otlp_proto.resource(res_obj) if as_proto else dump_json(res_obj)
        spans: list[bytes] = []
        groups.append((res, scope, spans))
        size += len(res) + len(scope) + per_run
        for data in span_bytes(ix, as_proto):
            extra = len(data) + (otlp_proto.span_overhead(len(data)) if as_proto else 1)
            if count and (count >= settings.batch_spans or size + extra > settings.batch_bytes):
                yield _body(groups, as_proto), count
                spans = []
                groups = [(res, scope, spans)]
                size, count = head + len(res) + len(scope) + per_run, 0
            spans.append(data)
            size += extra
            count += 1
    if count:
        yield _body(groups, as_proto), count


def _body(groups: list[tuple[bytes, bytes, list[bytes]]], as_proto: bool) -> bytes:
    kept = [g for g in groups if g[2]]  # a run with no span left in this batch adds nothing
    return otlp_proto.request(kept) if as_proto else _json_body(kept)


# Sending.


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks for (delay-seconds or an HTTP date), capped at
    :data:`MAX_WAIT`; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return min(float(value), MAX_WAIT)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    wait = when.timestamp() - (time.time() if now is None else now)
    return min(max(wait, 0.0), MAX_WAIT)


def backoff(attempt: int, rand: Callable[[], float] = random.random) -> float:
    """Wait before retry ``attempt`` (1 = the first retry): doubling from 1 s up to 30 s, each
    between half and all of that (jitter, so many exporters do not retry in step)."""
    ceiling = min(BACKOFF_MAX, BACKOFF_FIRST * 2.0 ** (attempt - 1))
    return ceiling * (0.5 + rand() / 2)


def _detail(body: bytes, content_type: str) -> str:
    """What an error answer says, in one line (a google.rpc.Status, JSON, or text)."""
    text = ""
    if "protobuf" in content_type:
        try:
            text = otlp_proto.status_message(body)
        except otlp_proto.DecodeError:
            text = ""
    elif "json" in content_type:
        try:
            doc = orjson.loads(body)
            text = str(doc.get("message", "")) if isinstance(doc, dict) else ""
        except orjson.JSONDecodeError:
            text = ""
    if not text:
        text = body[:300].decode("utf-8", "replace")
    return neutralize_line(text.strip())[:300]


def _partial(body: bytes, content_type: str, protocol: str) -> tuple[int, str]:
    if not body:
        return 0, ""
    as_json = "json" in content_type or (protocol == JSON and "protobuf" not in content_type)
    try:
        if as_json:
            doc = orjson.loads(body)
            ps = doc.get("partialSuccess") if isinstance(doc, dict) else None
            if not isinstance(ps, dict):
                return 0, ""
            return int(ps.get("rejectedSpans") or 0), str(ps.get("errorMessage") or "")
        return otlp_proto.partial_success(body)
    except (orjson.JSONDecodeError, otlp_proto.DecodeError, ValueError, TypeError):
        return 0, ""  # an answer we cannot read is not a rejection we can count


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """urllib would turn a redirected POST into a GET without its body and call that success:
    a redirect is an answer to report instead."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirects)


class _Failure(Exception):
    def __init__(self, message: str, retry: bool, wait: float | None = None) -> None:
        super().__init__(message)
        self.retry, self.wait = retry, wait


def _post_once(settings: Settings, data: bytes) -> tuple[bytes, str]:
    headers = {name: value for name, value in settings.headers}
    headers["Content-Type"] = CONTENT_TYPES[settings.protocol]
    headers["User-Agent"] = f"tracetui/{__version__}"
    if settings.gzip:
        headers["Content-Encoding"] = "gzip"
    req = urllib.request.Request(settings.url, data=data, method="POST", headers=headers)
    try:
        with _OPENER.open(req, timeout=settings.timeout) as answer:
            return answer.read(_ANSWER_LIMIT), answer.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        try:
            body = exc.read(_ANSWER_LIMIT)
        except (OSError, http.client.HTTPException):
            body = b""
        detail = _detail(body, exc.headers.get("Content-Type", "") if exc.headers else "")
        reason = neutralize_line(str(exc.reason or ""))
        message = f"HTTP {exc.code} {reason}".rstrip() + (f": {detail}" if detail else "")
        if 300 <= exc.code < 400 and exc.headers and exc.headers.get("Location"):
            where = neutralize_line(exc.headers["Location"])[:200]
            message = f"HTTP {exc.code} {reason}: a redirect to {where}, not followed"
        wait = retry_after(exc.headers.get("Retry-After") if exc.headers else None)
        raise _Failure(message, exc.code in RETRYABLE, wait) from None
    except TimeoutError:
        raise _Failure(f"no answer within {settings.timeout:g} s", True) from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise _Failure(f"no answer within {settings.timeout:g} s", True) from None
        reason = neutralize_line(str(exc.reason))
        raise _Failure(f"cannot deliver: {reason}", True) from None
    except (OSError, http.client.HTTPException) as exc:
        raise _Failure(
            f"cannot deliver: {neutralize_line(str(exc) or type(exc).__name__)}", True
        ) from None


def _deliver(settings: Settings, data: bytes) -> tuple[bytes, str]:
    """POST one request, retrying what may be retried; raises ``_Failure`` when it gives up."""
    for attempt in range(1, settings.max_attempts + 1):
        try:
            return _post_once(settings, data)
        except _Failure as failure:
            if not failure.retry or attempt == settings.max_attempts:
                if attempt > 1:
                    raise _Failure(f"{failure} (gave up after {attempt} attempts)", False) from None
                raise
            wait = failure.wait if failure.wait is not None else backoff(attempt)
            sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def _ship(settings: Settings, body: bytes, count: int, outcome: Outcome) -> None:
    """Compress and deliver one request, adding what it delivered to ``outcome``."""
    data = gzip_module.compress(body, compresslevel=GZIP_LEVEL) if settings.gzip else body
    try:
        answer, content_type = _deliver(settings, data)
    except _Failure as failure:
        done = f" ({outcome.spans:,} spans delivered before)" if outcome.spans else ""
        raise DeliveryError(f"{settings.url}: {failure}{done}", outcome) from None
    outcome.spans += count
    outcome.requests += 1
    rejected, message = _partial(answer, content_type, settings.protocol)
    outcome.rejected += max(rejected, 0)
    if message and not outcome.message:
        outcome.message = neutralize_line(message.strip())[:300]


def send(indexes: Sequence[RunIndex], settings: Settings) -> Outcome:
    """Export every span of ``indexes``; raises :class:`DeliveryError` when a request fails.

    Each request is compressed and sent on a worker thread while the next one is built (zlib
    and the socket let go of the interpreter lock, so on two cores the sending is nearly free).
    Requests still go one at a time, in order: at most two are in memory, the one in flight and
    the one just built. The worker is a daemon: Ctrl-C never waits for a slow receiver.
    """
    outcome = Outcome()
    failed: list[BaseException] = []
    worker: threading.Thread | None = None

    def run(body: bytes, count: int) -> None:
        try:
            _ship(settings, body, count, outcome)
        except BaseException as exc:  # handed to the main thread, raised there
            failed.append(exc)

    def wait() -> None:
        if worker is not None:
            worker.join()
        if failed:
            raise failed[0]

    for body, count in requests(indexes, settings):
        wait()
        worker = threading.Thread(target=run, args=(body, count), name="otlp-send", daemon=True)
        worker.start()
    wait()
    return outcome
