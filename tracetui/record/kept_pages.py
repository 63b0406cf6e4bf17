"""The unseen part of a kept stream, paged from disk: what the viewer's ``u`` shows.

:meth:`UnseenPages.load` checks a kept stream against its hash before anything is shown.
tracetui's own store (``B.kept/<sha256>.gz``) is then paged straight from that file: the
checking pass leaves checkpoints of the inflater, so any page is read from disk by decompressing
from the one before it (:mod:`tracetui.record.kept_seek`), and a file changed since it was
checked is refused. Another agent's kept output, checked its own way
(:mod:`tracetui.record.kept_read`), is copied to a private temp file (0600, unlinked at once)
read with ``pread``; that copy is refused, one line, rather than fill the temp folder. Every
call reads a bounded number of bytes, so memory stays bounded whatever the size of the stream;
a line longer than :data:`LINE_LIMIT` is shown as several.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import tempfile
from dataclasses import dataclass

from tracetui.record.kept_read import KeptStream, NotKept, open_verified
from tracetui.record.kept_seek import GzipRanges

LINE_LIMIT = 4096
"""Bytes of one displayed line; a longer line continues on the next."""
SEARCH_CHUNK = 1 << 20
TEMP_RESERVE = 64 << 20
"""Bytes the copy of the unseen part leaves free in the temp folder."""
ANCHOR_LINES = 64
"""How many line pieces back :meth:`UnseenPages.back` looks for the start of a long line."""


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _check_room(fd: int, need: int, where: str) -> None:
    """Refuse a copy of ``need`` bytes that would leave the temp folder with less than
    :data:`TEMP_RESERVE` free (a bomb of a kept file must not fill the disk)."""
    try:
        st = os.fstatvfs(fd)
    except OSError:
        return  # nothing to measure with: the writes will say if the disk fills
    free = st.f_bavail * st.f_frsize
    if need > free - TEMP_RESERVE:
        raise NotKept(
            f"its {need:,} unseen bytes would not fit in the temp folder {where} "
            f"({free:,} bytes free; set TMPDIR to a larger one)"
        )


@dataclass(frozen=True, slots=True)
class Page:
    """Lines read from one offset."""

    start: int
    """Offset of the first line, in the unseen bytes."""
    lines: list[bytes]
    """The lines, without their newlines."""
    end: int
    """Offset just past the last line (and its newline)."""


class UnseenPages:
    """The unseen bytes of one kept stream, read by offset: from the kept file, or a temp copy."""

    def __init__(
        self, kept: KeptStream, fd: int, size: int, ranges: GzipRanges | None = None
    ) -> None:
        self.kept = kept
        self.size = size
        """Bytes the agent never saw (the length of the unseen range)."""
        self._fd = fd
        """The temp copy's descriptor; -1 when the pages come from ``ranges``."""
        self._ranges = ranges
        self.problem: str | None = None
        """Why the pages stopped (the kept file changed or broke after its check): from then on
        every read is empty, and the screen says this line instead of a page."""

    @classmethod
    def load(cls, kept: KeptStream) -> UnseenPages:
        """Check ``kept`` whole, then page it; raises ``NotKept`` / ``KeptMismatch``."""
        ranges = _store_ranges(kept)
        if ranges is not None:
            return cls(kept, -1, kept.unseen, ranges)
        return cls._copied(kept)

    @classmethod
    def _copied(cls, kept: KeptStream) -> UnseenPages:
        """Check ``kept`` whole and copy its unseen range to a temp file.

        The copy never fills the temp folder: a range bigger than its free space (less
        :data:`TEMP_RESERVE`) is refused before anything is written, and a write that fails
        (the disk filled meanwhile, the folder cannot be written) is a ``NotKept`` too.
        """
        where = tempfile.gettempdir()
        try:
            fd, path = tempfile.mkstemp(prefix="tracetui-unseen-")
        except OSError as exc:
            raise NotKept(f"cannot copy it to the temp folder {where}: {_why(exc)}") from None
        os.unlink(path)  # only the descriptor remains: nothing to clean up if we die
        try:
            _check_room(fd, kept.unseen, where)
            with open_verified(kept) as verified:
                size = 0
                for chunk in verified.chunks(kept.unseen_start, kept.unseen_end):
                    view = memoryview(chunk)
                    try:
                        while view:
                            view = view[os.write(fd, view) :]
                    except OSError as exc:
                        raise NotKept(
                            f"cannot copy it to the temp folder {where}: {_why(exc)}"
                        ) from None
                    size += len(chunk)
        except BaseException:
            os.close(fd)
            raise
        return cls(kept, fd, size)

    def close(self) -> None:
        if self._fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = -1
        if self._ranges is not None:
            self._ranges.close()
            self._ranges = None

    def _read(self, offset: int, count: int) -> bytes:
        offset = max(0, offset)
        count = max(0, min(count, self.size - offset))
        if not count:
            return b""
        if self._ranges is not None and self.problem is None:
            try:
                return self._ranges.read(self.kept.unseen_start + offset, count)
            except (NotKept, OSError) as exc:  # changed or damaged since it was checked
                self.problem = str(exc) if isinstance(exc, NotKept) else _why(exc)
                return b""
        if self._fd < 0:
            return b""
        return os.pread(self._fd, count, offset)

    def page(self, offset: int, count: int) -> Page:
        """Up to ``count`` lines from ``offset``."""
        offset = max(0, min(offset, self.size))
        data = self._read(offset, count * (LINE_LIMIT + 1))
        lines: list[bytes] = []
        pos = 0
        while len(lines) < count and pos < len(data):
            cut = data.find(b"\n", pos, pos + LINE_LIMIT + 1)
            if cut < 0:
                stop = min(len(data), pos + LINE_LIMIT)
                lines.append(data[pos:stop])
                pos = stop
            else:
                lines.append(data[pos:cut])
                pos = cut + 1
        return Page(offset, lines, offset + pos)

    def back(self, offset: int, count: int) -> int:
        """The offset ``count`` lines before the line starting at ``offset`` (0 at the top).

        Lines are counted as :meth:`page` shows them, a long line as its pieces; the pieces are
        aligned on the line's start, looked for up to :data:`ANCHOR_LINES` pieces back (past
        that, a line that long is cut where the search began).
        """
        offset = max(0, min(offset, self.size))
        if offset == 0 or count <= 0:
            return offset
        start = max(0, offset - count * (LINE_LIMIT + 1))
        reach = max(0, start - ANCHOR_LINES * LINE_LIMIT)
        data = self._read(reach, offset - reach)
        cut = data.rfind(b"\n", 0, start - reach)
        base = cut + 1 if cut >= 0 or reach == 0 else 0
        starts = [base] + [i + 1 for i in range(base, len(data) - 1) if data[i] == 0x0A]
        # Long lines are shown in LINE_LIMIT pieces: count those pieces as lines too.
        pieces: list[int] = []
        for i, s in enumerate(starts):
            e = starts[i + 1] - 1 if i + 1 < len(starts) else len(data)
            pieces += list(range(s, max(s, e), LINE_LIMIT)) or [s]
        return reach + pieces[max(0, len(pieces) - count)]

    def line_start(self, offset: int) -> int:
        """The start of the line holding ``offset``."""
        start = max(0, offset - LINE_LIMIT)
        data = self._read(start, offset - start)
        cut = data.rfind(b"\n")
        return start + cut + 1 if cut >= 0 else start

    def find(self, query: bytes, start: int, *, forward: bool = True) -> int | None:
        """Offset of the next (or previous) match of ``query`` from ``start``, ASCII case folded.

        Forward: the first match at or after ``start``; backward: the last one before it.
        """
        if not query:
            return None
        needle = query.lower()
        overlap = len(needle) - 1
        if forward:
            pos = max(0, start)
            while pos < self.size:
                chunk = self._read(pos, SEARCH_CHUNK + overlap).lower()
                hit = chunk.find(needle)
                if hit >= 0:
                    return pos + hit
                pos += SEARCH_CHUNK
            return None
        end = min(self.size, start)
        while end > 0:
            lo = max(0, end - SEARCH_CHUNK)
            chunk = self._read(lo, end - lo + overlap).lower()
            hit = chunk.rfind(needle, 0, end - lo + overlap)
            while hit >= 0 and lo + hit >= end:
                hit = chunk.rfind(needle, 0, hit)
            if hit >= 0:
                return lo + hit
            end = lo
        return None


def _store_ranges(kept: KeptStream) -> GzipRanges | None:
    """The checked ranges of a stream in tracetui's own store (a gzip file, a sha256 to match);
    None for any other source (another agent's file, checked its own way: copied instead)."""
    if kept.opener is None or kept.check is not None or not kept.sha256:
        return None
    fh = kept.opener()  # refuses a link, a non-file and a bomb before reading (kept_read.py)
    try:
        raw = getattr(fh, "fileobj", None)
        if not isinstance(fh, gzip.GzipFile) or raw is None:
            return None
        fd = os.dup(raw.fileno())
    finally:
        fh.close()
    return GzipRanges.check(fd, kept.size, kept.sha256, kept.where)
