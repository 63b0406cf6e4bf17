"""The settings of an OTLP/HTTP export: endpoint, protocol, headers, compression, timeout, batches.

They mirror the OpenTelemetry SDK's environment variables
(``OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT``, ``…_PROTOCOL``, ``…_HEADERS``, ``…_COMPRESSION``,
``…_TIMEOUT``); what the command line gives wins. Header values are secrets: no message,
error or repr here ever contains one. The sender (:mod:`tracetui.export.otlp_http`) takes a
:class:`Settings` and re-exports these names, which callers reach through it.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tracetui.export import otlp
from tracetui.model.text import neutralize_line

PROTOBUF, JSON = "http/protobuf", "http/json"
PROTOCOLS = (PROTOBUF, JSON)
DEFAULT_URL = "http://localhost:4318/v1/traces"
BATCH_SPANS = 1000
BATCH_BYTES = 4 * 1024 * 1024
"""Uncompressed request size to stay under (a collector refuses 20 MiB by default)."""
MAX_ATTEMPTS = 5


class ConfigError(ValueError):
    """A setting that cannot be used (the message names the setting, never a header value)."""


@dataclass(frozen=True)
class Settings:
    url: str
    protocol: str = PROTOBUF
    gzip: bool = False
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)
    timeout: float = 10.0
    max_attempts: int = MAX_ATTEMPTS
    batch_spans: int = BATCH_SPANS
    batch_bytes: int = BATCH_BYTES


def _env(env: Mapping[str, str], name: str) -> str | None:
    """The signal-specific variable, else the generic one (``name`` is the part after OTLP_)."""
    for key in (f"OTEL_EXPORTER_OTLP_TRACES_{name}", f"OTEL_EXPORTER_OTLP_{name}"):
        value = env.get(key, "").strip()
        if value:
            return value
    return None


def check_url(url: str) -> str:
    """``url`` if an http(s) URL tracetui can POST to; raises :class:`ConfigError`."""
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError:
        raise ConfigError("the endpoint is not a valid URL") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"endpoint must be an http:// or https:// URL, got {url!r}")
    if parts.username is not None or parts.password is not None:
        # Not echoed: it holds a credential. Headers carry credentials (and are never printed).
        raise ConfigError("the endpoint URL holds credentials: pass them with --header instead")
    return url


def resolve_url(cli_url: str | None, env: Mapping[str, str]) -> str:
    """The traces URL: the command line's (``/v1/traces`` appended unless present), else
    ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` as is, else ``OTEL_EXPORTER_OTLP_ENDPOINT`` plus
    ``v1/traces``, else ``http://localhost:4318/v1/traces`` (the OpenTelemetry rules)."""
    if cli_url:
        return check_url(otlp.traces_url(check_url(cli_url.strip())))
    traces = env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "").strip()
    if traces:
        return check_url(traces)
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
    if base:
        parts = urllib.parse.urlsplit(check_url(base))
        path = parts.path if parts.path.endswith("/") else parts.path + "/"
        return urllib.parse.urlunsplit(parts._replace(path=path + "v1/traces", fragment=""))
    return DEFAULT_URL


def _check_header(name: str, value: str, where: str) -> tuple[str, str]:
    token = name.strip()
    if not token or any(c in token for c in ' \t\r\n:()<>@,;\\"/[]?={}') or not token.isascii():
        raise ConfigError(f"{where}: {neutralize_line(token)!r} is not a header name")
    if any(c in value for c in "\r\n\0"):
        raise ConfigError(f"{where}: the value of header {token} holds a line break")
    if not value.isascii():
        # http.client sends headers as Latin-1; anything past ASCII is better refused than mangled.
        raise ConfigError(f"{where}: the value of header {token} is not ASCII")
    return token, value.strip()


def parse_env_headers(text: str, where: str) -> list[tuple[str, str]]:
    """``key1=value1,key2=value2`` with percent-encoded values (the OTel env var format)."""
    out = []
    for n, entry in enumerate(text.split(","), 1):
        if not entry.strip():
            continue
        name, sep, value = entry.partition("=")
        if not sep:
            raise ConfigError(f"{where}: entry {n} is not key=value")
        out.append(_check_header(name, urllib.parse.unquote(value), where))
    return out


def resolve(
    *,
    url: str | None = None,
    protocol: str | None = None,
    gzip: bool | None = None,
    headers: Sequence[str] = (),
    timeout: float | None = None,
    max_attempts: int = MAX_ATTEMPTS,
    batch_spans: int = BATCH_SPANS,
    batch_bytes: int = BATCH_BYTES,
    env: Mapping[str, str],
) -> Settings:
    """Settings from the command line's values (None: not given) over the OTel env vars."""
    proto = protocol or _env(env, "PROTOCOL") or PROTOBUF
    if proto not in PROTOCOLS:
        raise ConfigError(f"protocol {proto!r} is not supported (use http/protobuf or http/json)")
    if gzip is None:
        compression = (_env(env, "COMPRESSION") or "none").lower()
        if compression not in ("gzip", "none"):
            raise ConfigError(f"compression {compression!r} is not supported (use gzip or none)")
        gzip = compression == "gzip"
    merged: dict[str, tuple[str, str]] = {}
    for var in ("OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"):
        for name, value in parse_env_headers(env.get(var, ""), var):
            merged[name.lower()] = (name, value)  # the signal-specific one wins
    for n, item in enumerate(headers, 1):
        name, sep, value = item.partition("=")
        if not sep:
            raise ConfigError(f"--header {n}: expected NAME=VALUE")
        name, value = _check_header(name, value, f"--header {n}")
        merged[name.lower()] = (name, value)
    if timeout is None:
        raw = _env(env, "TIMEOUT")
        try:
            timeout = float(raw) / 1000 if raw else 10.0  # the variable is in milliseconds
        except ValueError:
            raise ConfigError(
                "OTEL_EXPORTER_OTLP_TIMEOUT is not a number of milliseconds"
            ) from None
    if not timeout > 0:
        raise ConfigError("the timeout must be more than 0 seconds")
    if max_attempts < 1 or batch_spans < 1 or batch_bytes < 1:
        raise ConfigError("attempts and batch sizes must be at least 1")
    return Settings(
        url=resolve_url(url, env),
        protocol=proto,
        gzip=gzip,
        headers=tuple(merged.values()),
        timeout=timeout,
        max_attempts=max_attempts,
        batch_spans=batch_spans,
        batch_bytes=batch_bytes,
    )
