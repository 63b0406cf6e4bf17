"""The kept-output store: every stream of a recorded span, whole, redacted, beside the run.

``tracetui run`` caps what the agent sees; this module keeps what it did not see, so a reviewer
can read it later without a re-run. The store of a run whose base file is ``B`` is the folder
``B.kept/`` (mode 0700). Each kept stream is one file named by the sha256 of the bytes stored,
``<sha256>.gz`` (gzip, mode 0600), so two spans with the same output share one file. The bytes
stored are the stream after redaction (:class:`~tracetui.record.redact_stream.StreamRedactor`, the
recorder's own patterns): secrets never reach the disk, not even in a temp file.

How one stream is kept (:class:`KeptWriter`, fed by the capture tap as the child writes, so
memory stays bounded): chunks are redacted, hashed, compressed and written to a temp file
``tmp.<pid>.<random>`` created new in the store. When the record is about to be appended (with
the run's ``B.lock`` held, :func:`tracetui.record.rotate.append_record`), :meth:`KeptStore.commit`
takes the store's own lock, evicts the oldest files until the new one fits the budget, and
renames the temp file to its hash. Rotation that drops a member of the run also removes the
files only its spans referred to (:meth:`KeptStore.forget`).

Everything in the store is reached through a descriptor of the folder (``dir_fd``), opened
without following a link; files are created with ``O_EXCL | O_NOFOLLOW``. A link, a device or
someone else's folder where the store should be raises
:class:`~tracetui.record.safe_files.UnsafeFile`: the recorder then records without keeping.
Reading a kept stream back, hash-checked, is :mod:`tracetui.record.kept_read`.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gzip
import os
import re
import secrets
import stat
import time
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tracetui.record.kept_file import KeptFile
from tracetui.record.redact import Redactor
from tracetui.record.redact_stream import Edit, StreamRedactor
from tracetui.record.safe_files import UnsafeFile, problem_with

KEPT_SUFFIX = ".kept"
DEFAULT_BUDGET = 256 << 20
"""Bytes on disk a run's store may hold (``--keep-budget``); the oldest files go first."""
LOCK_NAME = "lock"
FILE_SUFFIX = ".gz"
KEPT_NAME = re.compile(r"\A[0-9a-f]{64}\.gz\Z")
TEMP_PREFIX = "tmp."
STALE_TEMP_SECONDS = 24 * 3600
"""A temp file this old belongs to a writer that died; the next commit removes it."""
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_LEVEL = 1
"""zlib level of the kept files: level 6 compressed a log ~1.4x smaller but ~3x slower, the
largest cost of keeping (docs/performance.md, "Keeping whole outputs")."""
_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def kept_dir(base: str) -> str:
    """The store folder of the run whose base file is ``base``."""
    return base + KEPT_SUFFIX


def parse_size(text: str) -> int:
    """``268435456``, ``256M``, ``1G``, ``512KiB`` → bytes (binary units); ``ValueError`` else."""
    raw = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = raw[-1:] if raw[-1:] in _SIZE_UNITS else ""
    number = raw[: len(raw) - len(unit)]
    if not number.isdigit():
        raise ValueError(f"not a size in bytes (like 268435456, 256M or 1G): {text!r}")
    return int(number) * _SIZE_UNITS[unit]


@dataclass(frozen=True, slots=True)
class KeptRef:
    """What a record says about one kept stream (its ``{s}_kept`` object)."""

    sha256: str
    """sha256 of the bytes stored (after redaction); the file is ``<sha256>.gz``."""
    bytes: int
    """Length of the bytes stored."""
    unseen_start: int
    """Where, in the bytes stored, the part the agent never saw begins."""
    unseen_end: int
    """Where it ends (equal to ``unseen_start`` when the stream was shown whole)."""

    def as_record(self) -> dict[str, Any]:
        return {
            "sha256": self.sha256,
            "bytes": self.bytes,
            "unseen_start": self.unseen_start,
            "unseen_end": self.unseen_end,
        }


class _OffsetMap:
    """Maps raw stream offsets near the clip points to offsets in the redacted bytes.

    Only two kinds of offset are ever asked for: the end of the head window (at most
    ``head_limit``) and the start of the tail window (within ``tail_limit`` of the end). So the
    map keeps every edit that starts inside the head, the edits near the end, and the last edit
    dropped before those (the anchor that fixes the shift after it): bounded whatever the size.
    """

    def __init__(self, head_limit: int, tail_limit: int) -> None:
        self._head_limit = head_limit
        self._tail_limit = tail_limit
        self._head: list[Edit] = []
        self._recent: list[Edit] = []
        self._anchor: Edit | None = None

    def add(self, edit: Edit) -> None:
        if edit[0] < self._head_limit:
            self._head.append(edit)
        self._recent.append(edit)
        if len(self._recent) > 256:
            horizon = edit[0] - self._tail_limit
            keep = [e for e in self._recent if e[1] > horizon]
            dropped = self._recent[: len(self._recent) - len(keep)]
            if dropped:
                self._anchor = dropped[-1]
            self._recent = keep

    def out(self, raw: int, *, inside_to_end: bool) -> int:
        """The stored offset of raw offset ``raw``; inside a replacement, its end or start."""
        edits = sorted({*self._head, *self._recent, *([self._anchor] if self._anchor else [])})
        last = None
        for edit in edits:
            if edit[0] < raw:
                last = edit
            else:
                break
        if last is None:
            return raw
        _raw_start, raw_end, out_start, out_end = last
        if raw < raw_end:
            return out_end if inside_to_end else out_start
        return out_end + (raw - raw_end)


@dataclass(frozen=True, slots=True)
class Pending:
    """A stream written to a temp file in the store, waiting for :meth:`KeptStore.commit`."""

    temp: str | None
    """Temp file name inside the store; None for an empty stream (nothing to store)."""
    sha256: str
    size: int
    """Bytes stored (redacted, before compression)."""
    disk: int
    """Bytes of the compressed file."""
    offsets: _OffsetMap


class KeptWriter:
    """Redacts one stream as chunks arrive and hands it to a :class:`KeptFile` (hashed,
    compressed and written to a temp file in the store).

    A :class:`~tracetui.record.capture.Sink`: ``feed`` never raises. A write that fails (disk
    full) or a file grown past the budget makes the writer give up: it removes its temp file
    and :meth:`finish` returns None, with :attr:`problem` saying why.
    """

    def __init__(
        self, store: KeptStore, redactor: Redactor, head_limit: int, tail_limit: int
    ) -> None:
        self._store = store
        self._offsets = _OffsetMap(head_limit, tail_limit)
        self._redactor = StreamRedactor(redactor, on_edit=self._offsets.add)
        self._file = KeptFile(store.new_temp, store.budget, _LEVEL)
        self.problem: str | None = None
        """Why the stream is not kept, once the writer gave up."""

    def feed(self, chunk: bytes) -> None:
        if self.problem is None:
            self._file.put(self._redactor.feed(chunk))
            if self._file.problem is not None:
                self._give_up(self._file.problem)

    def finish(self) -> Pending | None:
        """Flush and close the temp file; None when the stream could not be kept."""
        if self.problem is None:
            self._file.put(self._redactor.finish())
            self._file.close()
            if self._file.problem is not None:
                self._give_up(self._file.problem)
        if self.problem is not None:
            return None
        file = self._file
        return Pending(file.temp, file.sha256(), file.size, file.disk, self._offsets)

    def abort(self) -> None:
        """Drop whatever was written (the record is not being written after all)."""
        self._give_up("not recorded")

    def _give_up(self, why: str) -> None:
        if self.problem is None:
            self.problem = why
        self._file.discard()
        if self._file.temp is not None:
            self._store.remove(self._file.temp)
            self._file.temp = None


def unseen_range(
    pending: Pending, total: int, clip: str | None, head_bytes: int | None, tail_bytes: int | None
) -> tuple[int, int]:
    """The part of the stored bytes the agent never saw, from the record's window fields.

    ``head``: after the head window; ``tail``: before the tail window; ``head_tail``: between
    them; a stream shown whole: the empty range at its end. A clip point that falls inside a
    secret puts the ``[REDACTED]`` on the side that was shown (its preview hides it too).
    """
    if head_bytes is None and tail_bytes is None:
        return pending.size, pending.size
    start = 0
    end = pending.size
    if head_bytes is not None and clip in ("head", "head_tail"):
        start = pending.offsets.out(head_bytes, inside_to_end=True)
    if tail_bytes is not None and clip in ("tail", "head_tail"):
        end = pending.offsets.out(total - tail_bytes, inside_to_end=False)
    return start, max(start, end)


class KeptStore:
    """One run's store folder, held open by descriptor; see the module docstring."""

    def __init__(self, path: str, dir_fd: int, budget: int) -> None:
        self.path = path
        self.budget = budget
        self._fd = dir_fd

    @classmethod
    def open(cls, base: str, budget: int = DEFAULT_BUDGET, *, create: bool = True) -> KeptStore:
        """The store of ``base``, made (mode 0700) when missing and ``create`` is set.

        Raises :class:`UnsafeFile` for a link, a non-folder or someone else's folder there,
        ``FileNotFoundError`` when missing and not ``create``, other ``OSError`` as the system.
        """
        path = kept_dir(os.path.abspath(base))
        if create:
            with contextlib.suppress(FileExistsError):
                os.mkdir(path, 0o700)  # never follows a link: a planted one is EEXIST
        _check_dir(path, os.lstat(path))
        try:
            fd = os.open(path, _DIR_FLAGS)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                _check_dir(path, os.lstat(path))  # swapped in meanwhile: say what it is now
            raise
        try:
            st = os.fstat(fd)
            _check_dir(path, st)
            if stat.S_IMODE(st.st_mode) != 0o700:
                os.fchmod(fd, 0o700)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, budget)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> KeptStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def writer(self, redactor: Redactor, head_limit: int, tail_limit: int) -> KeptWriter:
        return KeptWriter(self, redactor, head_limit, tail_limit)

    def new_temp(self) -> tuple[str, int]:
        """A new temp file in the store: ``(name, write descriptor)``, mode 0600."""
        for _ in range(8):
            name = f"{TEMP_PREFIX}{os.getpid()}.{secrets.token_hex(6)}"
            try:
                return name, os.open(name, _NEW_FILE, 0o600, dir_fd=self._fd)
            except FileExistsError:
                continue
        raise OSError(errno.EEXIST, "no free temp name", self.path)

    def remove(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=self._fd)

    def commit(self, pending: Pending) -> str | None:
        """Give the temp file its hash name, evicting the oldest files to fit the budget.

        Returns None when kept, else why not (one line). Takes the store's lock: writers of
        the same run may commit at once, each sees the others' files and the sum stays under
        the budget (files still being written are not counted until they commit).
        """
        if pending.temp is None:
            return None  # an empty stream: its record entry is all there is
        name = pending.sha256 + FILE_SUFFIX
        with self._locked():
            try:
                st: os.stat_result | None = os.lstat(name, dir_fd=self._fd)
            except FileNotFoundError:
                st = None
            if st is not None:
                self.remove(pending.temp)
                problem = problem_with(st, single_link=False)
                if problem is not None:
                    return str(UnsafeFile(os.path.join(self.path, name), problem))
                # The same bytes are already kept: they become the newest, for eviction.
                os.utime(name, dir_fd=self._fd, follow_symlinks=False)
                return None
            if pending.disk > self.budget:
                self.remove(pending.temp)
                return f"over the keep budget of {self.budget} bytes"
            self._evict(self.budget - pending.disk)
            os.rename(pending.temp, name, src_dir_fd=self._fd, dst_dir_fd=self._fd)
        return None

    def _evict(self, room: int) -> None:
        """Remove the oldest kept files until at most ``room`` bytes remain; stale temps too."""
        now = time.time()
        files: list[tuple[int, str, int]] = []
        for name in os.listdir(self._fd):
            try:
                st = os.lstat(name, dir_fd=self._fd)
            except FileNotFoundError:
                continue  # removed meanwhile (by hand): nothing to count
            if name.startswith(TEMP_PREFIX) and now - st.st_mtime > STALE_TEMP_SECONDS:
                self.remove(name)
            elif KEPT_NAME.match(name) and stat.S_ISREG(st.st_mode):
                files.append((st.st_mtime_ns, name, st.st_size))
        total = sum(size for _t, _n, size in files)
        for _mtime, name, size in sorted(files):
            if total <= room:
                break
            self.remove(name)
            total -= size

    def forget(self, hashes: Iterable[str]) -> int:
        """Remove the kept files of ``hashes`` (their spans were rotated away); how many went."""
        gone = 0
        with self._locked():
            for sha in set(hashes):
                name = sha + FILE_SUFFIX
                if KEPT_NAME.match(name):
                    try:
                        os.unlink(name, dir_fd=self._fd)
                        gone += 1
                    except FileNotFoundError:
                        pass
        return gone

    @contextlib.contextmanager
    def _locked(self) -> Any:
        fd = _open_lock(self.path, self._fd)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)


def _check_dir(path: str, st: os.stat_result) -> None:
    if stat.S_ISLNK(st.st_mode):
        raise UnsafeFile(path, "a symbolic link (tracetui never follows a link beside a trace)")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeFile(path, "not a directory")
    if st.st_uid != os.geteuid():
        raise UnsafeFile(path, f"owned by uid {st.st_uid}, not by this user (uid {os.geteuid()})")


def _open_lock(path: str, dir_fd: int) -> int:
    """The store's lock file, opened through the folder's descriptor without following a link."""
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(LOCK_NAME, flags | os.O_CREAT, 0o600, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
            st = os.lstat(LOCK_NAME, dir_fd=dir_fd)
            raise UnsafeFile(
                os.path.join(path, LOCK_NAME), problem_with(st) or "not a regular file"
            ) from None
        raise
    problem = problem_with(os.fstat(fd), single_link=False)
    if problem is not None:
        os.close(fd)
        raise UnsafeFile(os.path.join(path, LOCK_NAME), problem)
    return fd


_REFERENCE = re.compile(rb'"(?:stdout|stderr)_kept":\{"sha256":"([0-9a-f]{64})"')
_OVERLAP = 256
SCAN_LIMIT = 256 << 20
"""Bytes of one member :func:`hashes_in` reads (decompressed) before giving up: members are
rotated at ``--max-bytes``, so only a planted file (a gzip bomb) is bigger."""


def hashes_in(path: str) -> set[str]:
    """The kept hashes the records of one run member refer to (a ``.gz`` member decompressed,
    chunk by chunk). A missing member refers to none; one that cannot be read, or holds more
    than :data:`SCAN_LIMIT` bytes, raises OSError (the caller then forgets nothing)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return set()
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", path)
    found: set[str] = set()
    raw = os.fdopen(fd, "rb")
    with raw, gzip.GzipFile(fileobj=raw, mode="rb") if path.endswith(".gz") else raw as fh:
        carry = b""
        seen = 0
        while True:
            try:
                data = fh.read(1 << 20)
            except (EOFError, zlib.error) as exc:
                raise OSError(errno.EIO, f"damaged gzip: {exc}", path) from None
            if not data:
                break
            seen += len(data)
            if seen > SCAN_LIMIT:
                raise OSError(errno.EFBIG, f"over {SCAN_LIMIT >> 20} MiB decompressed", path)
            text = carry + data
            found.update(m.group(1).decode() for m in _REFERENCE.finditer(text))
            carry = text[-_OVERLAP:]
    return found


def referenced(record: dict[str, Any]) -> set[str]:
    """The kept hashes one record (about to be written) refers to."""
    out = set()
    for stream in ("stdout", "stderr"):
        value = record.get(f"{stream}_kept")
        if isinstance(value, dict) and isinstance(value.get("sha256"), str):
            out.add(value["sha256"])
    return out
