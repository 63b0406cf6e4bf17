"""The file side of keeping one stream: hash, compress and write its redacted bytes.

:class:`KeptFile` is what :class:`tracetui.record.kept.KeptWriter` hands each redacted piece
to; the temp file is created at the first compressed bytes (an empty stream makes none).
Nothing here raises to the capture: a write that fails or a file grown past the budget sets
:attr:`KeptFile.problem`, after which nothing more is written and the writer gives up.

The pieces are written as they come, on the capture's thread. A worker thread (sha256, zlib and
the write all let go of the interpreter lock) was tried and measured no faster on a loaded
2-core machine, where the compression has no idle core to run on (docs/performance.md).
"""

from __future__ import annotations

import hashlib
import os
import zlib
from collections.abc import Callable

from tracetui.record.safe_files import write_all

_GZIP = 31  # zlib wbits for a gzip wrapper (its header has no time stamp: the file is stable)


class _OverBudget(Exception):
    pass


class KeptFile:
    """One stream's temp file in the store, written as redacted pieces are put."""

    def __init__(self, new_temp: Callable[[], tuple[str, int]], budget: int, level: int) -> None:
        self._new_temp = new_temp
        self._budget = budget
        self._sha = hashlib.sha256()
        self._zip = zlib.compressobj(level, zlib.DEFLATED, _GZIP)
        self.size = 0
        """Bytes put (redacted, before compression)."""
        self.disk = 0
        """Bytes of the compressed file so far."""
        self.temp: str | None = None
        """The temp file's name in the store, once created (at the first compressed bytes)."""
        self.problem: str | None = None
        """Why the stream cannot be kept; set once, after which nothing more is written."""
        self._fd = -1

    def put(self, data: bytes) -> None:
        """Hash, compress and write the next piece (nothing once a problem is set)."""
        if data and self.problem is None:
            self._guarded(lambda: self._hash_and_write(data))

    def sha256(self) -> str:
        """The hex sha256 of every byte put (call after :meth:`close`)."""
        return self._sha.hexdigest()

    def close(self) -> None:
        """Everything is put: end the gzip stream, close the file."""
        if self.problem is None and self.size:
            self._guarded(lambda: self._write(self._zip.flush()))
        self._close_fd()

    def discard(self) -> None:
        """Stop writing (the caller removes :attr:`temp`); the file is closed."""
        if self.problem is None:
            self.problem = "not recorded"
        self._close_fd()

    def _guarded(self, step: Callable[[], None]) -> None:
        # A full disk or the budget is the stream's problem, not the recording's: the command
        # still running goes on being captured, only this stream is not kept.
        try:
            step()
        except _OverBudget:
            self.problem = f"over the keep budget of {self._budget} bytes"
        except OSError as exc:
            self.problem = f"cannot write the kept output: {exc.strerror or exc}"

    def _hash_and_write(self, data: bytes) -> None:
        self._sha.update(data)
        self.size += len(data)
        self._write(self._zip.compress(data))

    def _write(self, data: bytes) -> None:
        if not data:
            return
        if self._fd < 0:
            self.temp, self._fd = self._new_temp()
        self.disk += write_all(self._fd, data)
        if self.disk > self._budget:
            raise _OverBudget

    def _close_fd(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
