"""Streaming capture of a child process: both pipes read as the child writes, memory bounded.

Used by the recorder (``tracetui run``) and meant for the re-run feature too. A :class:`StreamTap`
sees every byte of one stream once and keeps only what a record needs: the byte count, the sha256
of the whole stream, a head buffer and a tail ring (each a window plus some context bytes, used to
redact secrets cut by the window edge), whether the stream is valid UTF-8, and the whole stream
while it is small enough to count JSON items. On request it also spools the full stream to a
temp file, so a caller can diff gigabytes without holding them, and hands every chunk to a
:class:`Sink` when given one (the recorder's kept-output writer, :mod:`tracetui.record.kept`).

:func:`run_captured` starts the child with stdin closed, in its own session (so a timeout or a
Ctrl-C can kill its whole process group), and reads both pipes from one selector loop. One loop
rather than reader threads: when a process outside the group keeps a pipe open after the kill we
can simply stop reading, which a thread blocked in ``read`` cannot.
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import hashlib
import os
import selectors
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

CHUNK = 1 << 18
JSON_LIMIT = 64 << 20
"""Streams up to this size that look like JSON are kept whole so their items can be counted."""
_F_SETPIPE_SZ = 1031  # Linux: a bigger pipe buffer means fewer wake-ups on fast writers.
_JSON_START = frozenset(b"[{")


@dataclass(frozen=True, slots=True)
class StreamData:
    """Everything a record needs to know about one finished stream."""

    total: int
    """Length of the whole stream in bytes."""
    sha256: str
    """Hex sha256 of the whole stream."""
    head: bytes
    """The first bytes of the stream (at most the tap's head limit plus context)."""
    tail: bytes
    """The last bytes of the stream (at most the tap's tail limit plus context)."""
    utf8: bool
    """True when the whole stream is valid UTF-8."""
    json_bytes: bytes | None
    """The whole stream when it starts like JSON and fits under the JSON limit; None otherwise."""
    spool_path: str | None
    """Temp file holding the whole stream when spooling was asked for (the caller deletes it)."""

    def full_bytes(self) -> bytes | None:
        """The whole stream when the head and tail buffers cover it, else None."""
        if self.total <= len(self.head):
            return self.head[: self.total]
        tail_start = self.total - len(self.tail)
        if tail_start > len(self.head):
            return None
        return self.head + self.tail[len(self.head) - tail_start :]


class Sink(Protocol):
    """Something that takes every chunk of a stream as it arrives (the kept-output writer).

    ``feed`` must not raise: a sink that cannot go on gives up on its own, capture never stops.
    """

    def feed(self, chunk: bytes) -> None: ...


class StreamTap:
    """Accumulates the facts about one stream as chunks arrive; memory bounded by the limits."""

    def __init__(
        self,
        head_limit: int | None,
        tail_limit: int,
        *,
        json_limit: int = JSON_LIMIT,
        spool: bool = False,
        sink: Sink | None = None,
    ) -> None:
        self.total = 0
        self._sha = hashlib.sha256()
        self._head_limit = head_limit  # None keeps everything (an uncapped record)
        self._head = bytearray()
        self._tail_limit = tail_limit
        self._tail = bytearray()
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._utf8 = True
        self._json_limit = json_limit
        self._json: bytearray | None = bytearray()
        self._json_seen_start = False
        # Written chunk by chunk for the life of the tap (not a `with`); finish() closes it.
        self._spool = (
            tempfile.NamedTemporaryFile(prefix="tracetui-", suffix=".out", delete=False)  # noqa: SIM115
            if spool
            else None
        )
        self._sink = sink

    def feed(self, chunk: bytes) -> None:
        """Take the next chunk of the stream."""
        if not chunk:
            return
        self.total += len(chunk)
        self._sha.update(chunk)
        if self._head_limit is None or len(self._head) < self._head_limit:
            room = None if self._head_limit is None else self._head_limit - len(self._head)
            self._head += chunk if room is None else chunk[:room]
        if self._tail_limit:
            if len(chunk) >= self._tail_limit:
                self._tail = bytearray(chunk[-self._tail_limit :])
            else:
                self._tail += chunk
                # Trim lazily (at twice the limit) so the ring costs O(1) amortised per byte.
                if len(self._tail) > 2 * self._tail_limit:
                    del self._tail[: len(self._tail) - self._tail_limit]
        if self._utf8:
            self._check_utf8(chunk)
        if self._json is not None:
            self._keep_json(chunk)
        if self._spool is not None:
            self._spool.write(chunk)
        if self._sink is not None:
            self._sink.feed(chunk)

    def _check_utf8(self, chunk: bytes) -> None:
        # Fast path: ASCII with no pending partial character needs no decoding at all.
        if chunk.isascii() and not self._decoder.getstate()[0]:
            return
        try:
            self._decoder.decode(chunk)
        except UnicodeDecodeError:
            self._utf8 = False

    def _keep_json(self, chunk: bytes) -> None:
        assert self._json is not None
        # The limit comes first: a stream of nothing but whitespace must not grow the buffer.
        if len(self._json) + len(chunk) > self._json_limit:
            self._json = None
            return
        if not self._json_seen_start:
            rest = chunk.lstrip(b" \t\r\n")
            if not rest:
                self._json += chunk
                return
            if rest[0] not in _JSON_START:
                self._json = None
                return
            self._json_seen_start = True
        self._json += chunk

    def finish(self) -> StreamData:
        """Close the tap and return its facts."""
        if self._utf8:
            try:
                self._decoder.decode(b"", final=True)
            except UnicodeDecodeError:
                self._utf8 = False
        spool_path = None
        if self._spool is not None:
            self._spool.close()
            spool_path = self._spool.name
        tail = bytes(self._tail[-self._tail_limit :]) if self._tail_limit else b""
        json_bytes = bytes(self._json) if self._json is not None and self._json_seen_start else None
        return StreamData(
            self.total,
            self._sha.hexdigest(),
            bytes(self._head),
            tail,
            self._utf8,
            json_bytes,
            spool_path,
        )


def trim_end(data: bytes) -> bytes:
    """Drop a UTF-8 character cut at the end of ``data`` (an incomplete multibyte sequence)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 == 0x80:
            continue  # continuation byte: keep looking for the lead
        need = (
            2
            if byte & 0xE0 == 0xC0
            else 3
            if byte & 0xF0 == 0xE0
            else 4
            if byte & 0xF8 == 0xF0
            else 1
        )
        return data[:-back] if need > back else data
    return data


def trim_start(data: bytes) -> bytes:
    """Drop continuation bytes of a UTF-8 character cut at the start of ``data`` (at most 3)."""
    skip = 0
    while skip < min(3, len(data)) and data[skip] & 0xC0 == 0x80:
        skip += 1
    return data[skip:]


def head_window(data: StreamData, limit: int) -> tuple[bytes, bytes]:
    """``(kept, after)``: the first ``limit`` bytes cut back to a character boundary, and the
    withheld bytes that follow them in the head buffer (context for redaction)."""
    kept = trim_end(data.head[:limit])
    return kept, data.head[len(kept) :]


def tail_window(data: StreamData, limit: int) -> tuple[bytes, bytes]:
    """``(before, kept)``: the last ``limit`` bytes cut forward to a character boundary, and the
    withheld bytes just before them in the tail buffer (context for redaction)."""
    if limit <= 0:
        return data.tail, b""
    kept = trim_start(data.tail[-limit:])
    return data.tail[: len(data.tail) - len(kept)], kept


@dataclass(frozen=True, slots=True)
class ProcessOutcome:
    """How a captured child process ended."""

    stdout: StreamData
    stderr: StreamData
    returncode: int | None
    """Exit status, negative for a signal; None when the process never started."""
    start_error: str | None
    """Why the process could not start, or None."""
    start_code: int | None
    """Shell-style status for a start failure: 127 not found, 126 not executable; else None."""
    started_at: float
    """Wall-clock start (seconds since the epoch)."""
    duration_ms: int
    """Wall time from start to the end of capture, in milliseconds."""
    timed_out: bool
    """True when the timeout killed the process group."""
    cancelled: bool
    """True when the cancel event killed the process group."""


def _start_failure(argv0: str, cwd: str, exc: OSError) -> tuple[str, int]:
    if not os.path.exists(cwd):
        return f"cwd not found: {cwd}", 127
    if not os.path.isdir(cwd) or not os.access(cwd, os.X_OK):
        return f"cwd not usable: {cwd}", 126
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {argv0}", 127
    if isinstance(exc, PermissionError):
        return f"permission denied: {argv0}", 126
    return f"cannot execute {argv0}: {exc.strerror or exc}", 126


def kill_group(proc: subprocess.Popen[bytes], grace: float) -> None:
    """TERM the child's process group, then KILL whatever is still in it after ``grace`` s."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(grace)
    try:
        # The group outlives its leader while grandchildren are in it: probe, then KILL the rest.
        os.killpg(proc.pid, 0)
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def run_captured(
    argv: Sequence[str],
    *,
    cwd: str,
    stdout_tap: StreamTap,
    stderr_tap: StreamTap,
    timeout: float | None = None,
    cancel: threading.Event | None = None,
    grace: float = 2.0,
    on_progress: Callable[[int, int], None] | None = None,
    env: dict[str, str] | None = None,
    preexec: Callable[[], None] | None = None,
) -> ProcessOutcome:
    """Run ``argv`` (no shell) in ``cwd`` with stdin closed, feeding both taps as output arrives.

    ``timeout`` (seconds) or ``cancel`` being set kills the whole process group: TERM, then KILL
    after ``grace`` seconds. ``on_progress(out_bytes, err_bytes)`` is called about ten times a
    second from this thread. ``preexec`` runs in the child before the exec (the re-run's
    parent-death signal: :func:`tracetui.rerun.reaper.die_with_parent`).
    """
    started = time.time()
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=env,
            bufsize=0,
            preexec_fn=preexec,
        )
    except OSError as exc:
        message, code = _start_failure(str(argv[0]), cwd, exc)
        return ProcessOutcome(
            stdout_tap.finish(),
            stderr_tap.finish(),
            None,
            message,
            code,
            started,
            int((time.monotonic() - t0) * 1000),
            False,
            False,
        )
    assert proc.stdout is not None and proc.stderr is not None
    taps = {proc.stdout.fileno(): stdout_tap, proc.stderr.fileno(): stderr_tap}
    sel = selectors.DefaultSelector()
    for fd in taps:
        with contextlib.suppress(OSError):  # a bigger pipe is only an optimisation
            fcntl.fcntl(fd, _F_SETPIPE_SZ, 1 << 20)
        sel.register(fd, selectors.EVENT_READ)
    deadline = None if timeout is None else t0 + timeout
    timed_out = cancelled = False
    stop_reading_at: float | None = None  # after a kill, give stragglers a bounded time
    next_progress = t0
    try:
        while True:
            now = time.monotonic()
            if not (timed_out or cancelled):
                if deadline is not None and now >= deadline:
                    timed_out = True
                elif cancel is not None and cancel.is_set():
                    cancelled = True
                if timed_out or cancelled:
                    kill_group(proc, grace)
                    stop_reading_at = time.monotonic() + 1.0
            if sel.get_map():
                if stop_reading_at is not None and time.monotonic() >= stop_reading_at:
                    break
                wait = 0.1 if deadline is None else max(0.0, min(0.1, deadline - now))
                for key, _ in sel.select(wait):
                    chunk = os.read(key.fd, CHUNK)
                    if chunk:
                        taps[key.fd].feed(chunk)
                    else:
                        sel.unregister(key.fd)
            elif proc.poll() is not None:
                break
            else:
                # Pipes closed but the child lives on: wait for it, still watching the clock.
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(0.1 if deadline is None else max(0.0, min(0.1, deadline - now)))
            if on_progress is not None and time.monotonic() >= next_progress:
                on_progress(stdout_tap.total, stderr_tap.total)
                next_progress = time.monotonic() + 0.1
    finally:
        sel.close()
        proc.stdout.close()
        proc.stderr.close()
        if proc.poll() is None:
            kill_group(proc, grace)
    returncode = proc.wait()
    duration = int((time.monotonic() - t0) * 1000)
    if on_progress is not None:
        on_progress(stdout_tap.total, stderr_tap.total)
    return ProcessOutcome(
        stdout_tap.finish(),
        stderr_tap.finish(),
        returncode,
        None,
        None,
        started,
        duration,
        timed_out,
        cancelled,
    )
