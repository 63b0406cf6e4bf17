"""Reading a kept stream back: find it, check it against its recorded hash, stream it from disk.

The one question every reader asks (``tracetui show``, the viewer's ``u``, reports, re-runs) is
"the kept bytes of stream S of span X, verified". :func:`find_kept` answers where they are
(:class:`KeptStream`) or why there are none (:class:`NotKept`, one line); :func:`open_verified`
reads the whole stream once to check its length and sha256 before anything is shown
(:class:`KeptMismatch` when they differ: a changed or damaged file is reported, never shown as
true), and then hands out byte ranges chunk by chunk, so memory stays bounded whatever the size.

A :class:`KeptStream` is only a hash, a length, the unseen range and a way to open the bytes:
tracetui's own store (``B.kept/<sha256>.gz``, :mod:`tracetui.record.kept`) is one source; an
imported trace whose agent saved its full output elsewhere can build one around that file.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import hashlib
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, Any, cast

from tracetui.record.kept import FILE_SUFFIX, kept_dir

# Re-exported: every reader catches them from here.
from tracetui.record.kept_errors import KeptMismatch as KeptMismatch
from tracetui.record.kept_errors import NotKept as NotKept
from tracetui.record.kept_imported import AgentKept, find_agent_kept

CHUNK = 1 << 20
MAX_RATIO = 1032
"""The most deflate expands: one 258-byte match per bit at best, so 1,032 bytes per byte."""
_GZIP_LEAST = 18
"""Bytes of the smallest gzip file (header and trailer); a shorter one is read, and damaged."""
_SHA = re.compile(r"\A[0-9a-f]{64}\Z")
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class KeptStream:
    """Where one stream's kept bytes are and what they must hash to."""

    sha256: str
    """sha256 of the bytes (after redaction, as stored)."""
    size: int
    """Their length."""
    unseen_start: int
    """Where the part the agent never saw begins in them."""
    unseen_end: int
    """Where it ends; equal to ``unseen_start`` when the stream was shown whole."""
    where: str
    """The file, for messages."""
    opener: Callable[[], IO[bytes]] | None
    """Opens the bytes (decompressed); None for an empty stream."""
    check: Callable[[IO[bytes]], None] | None = None
    """Checks the opened bytes instead of the hash (raises ``KeptMismatch``); None: the sha256."""
    note: str | None = None
    """How far the bytes could be checked, when that is less than a recorded hash (one line)."""

    @property
    def unseen(self) -> int:
        return self.unseen_end - self.unseen_start


def _kept_object(raw: Mapping[str, Any], stream: str) -> tuple[str, int, int, int]:
    """``(sha256, bytes, unseen start, unseen end)`` from the record's ``{stream}_kept``."""
    key = f"{stream}_kept"
    value = raw.get(key)
    if key not in raw:
        raise NotKept(
            f"its {stream} was not kept (recorded with --no-keep, or by a tracetui that kept no "
            "output)"
        )
    if value is None:
        raise NotKept(
            f"its {stream} was not kept when it was recorded (over the keep budget, or the "
            "store was refused)"
        )
    if not isinstance(value, dict):
        raise NotKept(f"its {key} is not an object")
    sha, size = value.get("sha256"), value.get("bytes")
    start, end = value.get("unseen_start"), value.get("unseen_end")
    numbers = (size, start, end)
    if not isinstance(sha, str) or not _SHA.match(sha):
        raise NotKept(f"its {key} has no valid sha256")
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in numbers):
        raise NotKept(f"its {key} has no valid byte counts")
    assert isinstance(size, int) and isinstance(start, int) and isinstance(end, int)
    if not start <= end <= size:
        raise NotKept(f"its {key} has an unseen range outside the stream")
    return sha, size, start, end


def find_kept(
    base: str, raw: Mapping[str, Any], stream: str, *, imported: str | None = None
) -> KeptStream:
    """The kept ``stream`` of the record ``raw`` of the run whose base file is ``base``.

    ``imported`` names the trace format when the run is another agent's trace (no store of
    ours). Raises :class:`NotKept` with the reason. Nothing is read yet.
    """
    if imported is not None and f"{stream}_kept" not in raw:
        return _from_agent(find_agent_kept(raw, stream, imported))
    sha, size, start, end = _kept_object(raw, stream)
    folder = kept_dir(os.path.abspath(base))
    name = sha + FILE_SUFFIX
    where = os.path.join(folder, name)
    opener = None if size == 0 else (lambda: _open_store_file(folder, name, size))
    return KeptStream(sha, size, start, end, where, opener)


def _from_agent(found: AgentKept) -> KeptStream:
    """What another agent kept (:mod:`tracetui.record.kept_imported`): no hash, its own check."""
    return KeptStream(
        "",
        found.size,
        found.unseen_start,
        found.unseen_end,
        found.where,
        found.opener,
        check=found.check,
        note=found.note,
    )


def _open_store_file(folder: str, name: str, size: int) -> IO[bytes]:
    """The decompressed bytes of ``folder/name``; no link followed at either step.

    A file too small to decompress to the ``size`` its record says is refused before it is
    read: deflate never expands more than :data:`MAX_RATIO` times, so it cannot match, and a
    record claiming exabytes would otherwise have its file (a bomb) decompressed to the end."""
    where = os.path.join(folder, name)
    try:
        dir_fd = os.open(folder, _DIR_FLAGS)
    except FileNotFoundError:
        raise NotKept(f"there is no kept-output folder {folder}") from None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise NotKept(f"{folder}: refused, it is not a directory (a link?)") from None
        raise NotKept(f"{folder}: {exc.strerror or exc}") from None
    try:
        fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        raise NotKept(
            f"it was kept, but {where} is gone (evicted to fit the keep budget, or removed)"
        ) from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotKept(f"{where}: refused, it is a symbolic link") from None
        raise NotKept(f"{where}: {exc.strerror or exc}") from None
    finally:
        os.close(dir_fd)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotKept(f"{where}: refused, it is not a regular file")
    if st.st_size >= _GZIP_LEAST and size > st.st_size * MAX_RATIO:
        os.close(fd)
        raise KeptMismatch(
            f"{where} does not match the hash in its record (changed?): its {st.st_size:,} "
            f"bytes cannot hold the {size:,} the record says"
        )
    return cast(IO[bytes], _OwnedGzip(os.fdopen(fd, "rb")))


class _OwnedGzip(gzip.GzipFile):
    """A gzip reader that closes the file it reads when it is closed (GzipFile does not)."""

    def __init__(self, raw: IO[bytes]) -> None:
        super().__init__(fileobj=raw, mode="rb")
        self._raw = raw

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()


class VerifiedKept:
    """An open kept stream whose bytes matched the record; read ranges with :meth:`chunks`."""

    def __init__(self, kept: KeptStream, fh: IO[bytes] | None) -> None:
        self.kept = kept
        self._fh = fh

    def chunks(self, start: int = 0, end: int | None = None) -> Iterator[bytes]:
        """The bytes ``[start, end)`` of the stream, in chunks of at most :data:`CHUNK`."""
        end = self.kept.size if end is None else min(end, self.kept.size)
        if self._fh is None or start >= end:
            return
        self._fh.seek(start)
        left = end - start
        while left > 0:
            data = self._fh.read(min(CHUNK, left))
            if not data:
                raise KeptMismatch(f"{self.kept.where} ended early while it was read")
            left -= len(data)
            yield data

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


@contextlib.contextmanager
def open_verified(kept: KeptStream) -> Iterator[VerifiedKept]:
    """Open ``kept`` and check all of it against its length and hash before yielding.

    Raises :class:`KeptMismatch` (the file was changed or damaged) or :class:`NotKept` (it
    cannot be opened). Decompression stops as soon as the bytes exceed the recorded length.
    """
    fh = kept.opener() if kept.opener is not None else None
    try:
        if fh is not None and kept.check is not None:
            kept.check(fh)
        elif fh is not None:
            _check(kept, fh)
        verified = VerifiedKept(kept, fh)
        yield verified
    finally:
        if fh is not None:
            fh.close()


def _check(kept: KeptStream, fh: IO[bytes]) -> None:
    sha = hashlib.sha256()
    seen = 0
    try:
        while True:
            data = fh.read(CHUNK)
            if not data:
                break
            seen += len(data)
            if seen > kept.size:
                break
            sha.update(data)
    except (OSError, EOFError, zlib.error) as exc:
        raise KeptMismatch(f"{kept.where} is damaged ({exc}), so it cannot be checked") from None
    if seen != kept.size or sha.hexdigest() != kept.sha256:
        raise KeptMismatch(f"{kept.where} does not match the hash in its record (changed?)")
