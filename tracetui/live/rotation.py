"""How the follower tells what happened to a run's files: rotation by rename, copy-and-truncate,
compression to ``.gz``, deletion (a mixin of :class:`tracetui.live.follow.Follower`).

Files are known by inode and by their first bytes, never by name; see the follower's module
docstring for the cases and why each is handled the way it is.
"""

from __future__ import annotations

import gzip
import os
import time
from typing import TYPE_CHECKING

from tracetui.live.watch import HEAD, FileState, OnDisk, list_members, read_head, same_start, spool

if TYPE_CHECKING:
    from collections import deque

    from tracetui.store.index import RunIndex
    from tracetui.store.runset import Run

RESCAN_EVERY = 2.0
"""Seconds between full directory rescans even when the folder's mtime did not change."""


class RotationTracking:
    """The follower's bookkeeping of member files as a writer rotates them."""

    # Provided by Follower.
    run: Run
    index: RunIndex
    folder: str
    base: str
    _files: list[FileState]
    _live: FileState | None
    _pending: deque[FileState]
    _dir_mtime: int
    _unsettled: bool
    _last_scan: float
    truncated_seen: bool

    def _register(self, f: FileState) -> int:
        raise NotImplementedError

    def _note(self, text: str) -> None:
        raise NotImplementedError

    def _on_truncated(self, live: FileState) -> None:
        """Copy-and-truncate: the consumed rows now live in a copy; the base starts afresh."""
        fresh = FileState(self.base, 0, False, live.ident, fh=live.fh)
        live.fh = None
        self._live = None
        self._scan(truncated=live)
        if not live.gone and live.ident == fresh.ident:
            # No copy found: the rows we had are gone from disk.
            self._gone(live, "base file was truncated and no copy of it was found")
        self._files.append(fresh)
        self._live = fresh

    def _scan_if_changed(self, *, force: bool = False) -> None:
        try:
            mtime = os.stat(self.folder).st_mtime_ns
        except OSError:
            return
        now = time.monotonic()
        if force or mtime != self._dir_mtime or now - self._last_scan > RESCAN_EVERY:
            self._scan()

    def _scan(self, *, truncated: FileState | None = None) -> None:
        """Match the rotated files on disk to known ones: by inode, then by their first bytes.

        Unknown files that are not copies of content already read are generations written
        since the last poll: they are queued (oldest first) to be read before the base.
        """
        try:
            self._dir_mtime = os.stat(self.folder).st_mtime_ns
        except OSError:
            return
        self._last_scan = time.monotonic()
        entries = list_members(self.folder, self.base_name)
        try:
            self._classify(entries, truncated)
        finally:
            for e in entries:
                if e.fh is not None:
                    e.fh.close()

    def _classify(self, entries: list[OnDisk], truncated: FileState | None) -> None:
        live = self._live
        known = {f.ident: f for f in self._files if not f.gone}
        present: set[int] = set()
        unknown: list[OnDisk] = []
        live_rotated = False
        for e in entries:
            f = known.get(e.ident)
            if f is not None and f.head and e.head is not None and not same_start(e.head, f.head):
                f = None  # inode numbers are reused once a file is deleted: not the same file
            if f is not None:
                present.add(id(f))
                live_rotated = live_rotated or f is live
                self._move(f, e.path, e.number, e.gz)
            else:
                unknown.append(e)
        vanished = [
            f
            for f in known.values()
            if id(f) not in present and f is not truncated and f is not live
        ]
        gone = [f for f in self._files if f.gone]
        base_head: bytes | None = None
        self._unsettled = False
        for e in unknown:
            head = e.head
            if not head or (b"\n" not in head and len(head) < HEAD):
                # Empty, or not even one line yet (a copier or compressor still writing it):
                # too little to recognise. Look again later.
                self._unsettled = True
                continue
            if truncated is not None and same_start(head, truncated.head):
                self._adopt_copy(truncated, e)
                continue
            # Content already read, under another name (compressed, copied, or seen missing
            # while a rotation renamed files around us): never read twice.
            twin = next((f for f in vanished + gone if same_start(head, f.head)), None)
            if twin is not None:
                if twin in vanished:
                    vanished.remove(twin)
                self._repoint(twin, e.path, e.number, e.gz, e.ident)
                continue
            if any(same_start(head, f.head) for f in known.values()):
                continue  # a copy of a member still present (compression, copy in progress)
            if live_rotated:
                self._unsettled = True
                continue  # the old base is not finished yet: classify on the next poll
            if base_head is None:
                base_head = self._live_head()
            if base_head.startswith(head):
                self._unsettled = True
                continue  # a copy of the current base being made: not rotated yet
            f = FileState(e.path, e.number, e.gz, e.ident)
            self._files.append(f)
            self._queue(f, e)
        for f in vanished:
            self._gone(f)

    def _live_head(self) -> bytes:
        """The base's first bytes now, read through our own handle when we hold one (by name,
        the base may already be deleted or replaced)."""
        live = self._live
        if live is not None and live.fh is not None:
            try:
                return os.pread(live.fh.fileno(), HEAD, 0)
            except OSError:
                return b""
        return read_head(self.base, False) or b""

    def _move(self, f: FileState, path: str, number: int, gz: bool) -> None:
        """A known inode under a new name (rename rotation): keep its rows readable."""
        if f.path == path and f.number == number:
            return
        f.path, f.number = path, number
        if f.mno is not None:
            im = self.index.members[f.mno]
            im.member.path, im.member.number = path, number
            if not im.member.gz:
                im.readable = path

    def _repoint(
        self, f: FileState, path: str, number: int, gz: bool, ident: tuple[int, int]
    ) -> None:
        """A vanished member reappears as ``path`` (compressed or copied): read rows from there."""
        f.path, f.number, f.gz, f.ident, f.gone = path, number, gz, ident, False
        if f.mno is None:
            return
        im = self.index.members[f.mno]
        was_gz = im.member.gz and bool(im.readable)
        im.member.path, im.member.number, im.member.gz = path, number, gz
        if not gz:
            im.readable = path
            return
        if was_gz:
            return  # its readable copy is already a decompressed copy of this content
        try:
            with open(path, "rb") as fh:
                copy = spool(self.index, fh)
            im.readable = copy.name if isinstance(copy.name, str) else path
            copy.close()
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            self._note(f"{os.path.basename(path)}: cannot decompress: {exc}")
            im.readable = ""

    def _adopt_copy(self, f: FileState, e: OnDisk) -> None:
        """The truncated base's copy: re-point its rows there and queue what we had not read."""
        self._repoint(f, e.path, e.number, e.gz, e.ident)
        self._queue(f, e)

    def _queue(self, f: FileState, e: OnDisk) -> None:
        """Read ``f`` through the handle opened while listing (its name may change meanwhile)."""
        f.fh, e.fh = e.fh, None
        if f.fh is not None:
            f.fh.seek(0)
            f.spooled = False
            self._pending.append(f)

    def _gone(self, f: FileState, why: str | None = None) -> None:
        f.gone = True
        if f.mno is not None:
            # Reads of its rows now fail with "cannot read … (rotated away?)" rather than
            # landing in whatever file takes its name.
            self.index.members[f.mno].readable = ""
            if why:
                self._note(f"{os.path.basename(f.path)}: {why}")
