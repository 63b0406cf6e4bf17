"""How the follower tells what happened to a run's files: rotation by rename, copy-and-truncate,
compression to ``.gz``, deletion. The :class:`RotationTracker` is owned by the follower
(:class:`tracetui.live.follow.Follower`), which asks it after each look at the folder.

Files are known by inode and by their first bytes, never by name; see the follower's module
docstring for the cases and why each is handled the way it is.
"""

from __future__ import annotations

import gzip
import os
import time
from collections import deque
from collections.abc import Callable

from tracetui.live.watch import HEAD, FileState, OnDisk, list_members, read_head, same_start, spool
from tracetui.store.index import RunIndex
from tracetui.store.reader import open_regular

RESCAN_EVERY = 2.0
"""Seconds between full directory rescans even when the folder's mtime did not change."""


class RotationTracker:
    """The follower's bookkeeping of a run's member files as a writer rotates them.

    It re-points the index's members (through the index's own methods) when their files move,
    and queues files written since the last look, oldest first, for the follower to read.
    """

    def __init__(self, index: RunIndex, base: str, note: Callable[[str], None]) -> None:
        self.index = index
        self.base = base
        self.folder = os.path.dirname(base) or os.curdir
        self.base_name = os.path.basename(base)
        self._note = note
        self.files: list[FileState] = []
        """Every member file seen, gone ones included."""
        self.live: FileState | None = None
        """The base file being written, when open."""
        self.pending: deque[FileState] = deque()
        """Finished files still to read, oldest first; the live base waits for them."""
        self._dir_mtime = -1
        self.unsettled = False
        """A scan left files it could not classify yet: scan again on the next poll."""
        self._last_scan = 0.0
        self.truncated: FileState | None = None
        """A truncated base whose copy is still to be found: the listings taken when its
        truncation was noticed could not be trusted (rotations kept renaming files). Until
        found (or a trusted listing shows there is none) the fresh base is not read."""
        self.live_truncated = False
        """The last scan found a copy of the live base and a newer file after it: the base was
        copied and truncated (at least twice) since it was last read."""

    def on_truncated(self, live: FileState) -> None:
        """Copy-and-truncate: the consumed rows now live in a copy; the base starts afresh."""
        fresh = FileState(self.base, 0, False, live.ident, fh=live.fh)
        live.fh = None
        self.live = None
        # (A base is not read while an earlier one's copy is awaited: it cannot be found
        # truncated meanwhile, so nothing awaited is dropped here.)
        self.truncated = live
        self.scan()
        self.files.append(fresh)
        self.live = fresh

    def scan_if_changed(self, *, force: bool = False) -> None:
        try:
            mtime = os.stat(self.folder).st_mtime_ns
        except OSError:
            return
        now = time.monotonic()
        if force or mtime != self._dir_mtime or now - self._last_scan > RESCAN_EVERY:
            self.scan()

    def scan(self) -> bool:
        """Match the rotated files on disk to known ones: by inode, then by their first bytes.

        Unknown files that are not copies of content already read are generations written
        since the last poll: they are queued (oldest first) to be read before the base.
        False when no listing untouched by a rotation could be taken (some files may then
        have been left for the next scan).
        """
        self.live_truncated = False
        entries: list[OnDisk] = []
        stable = True
        try:
            self._dir_mtime = os.stat(self.folder).st_mtime_ns
        except OSError:
            pass  # no folder to list: nothing is there
        else:
            entries, stable = list_members(self.folder, self.base_name)
        self._last_scan = time.monotonic()
        try:
            self._classify(entries, self.truncated, stable)
        finally:
            for e in entries:
                if e.fh is not None:
                    e.fh.close()
        lost = self.truncated
        if lost is not None and stable:
            # No copy in a listing we trust: the rows we had are gone from disk.
            self.truncated = None
            self._gone(lost, "base file was truncated and no copy of it was found")
        return stable

    def _classify(self, entries: list[OnDisk], truncated: FileState | None, stable: bool) -> None:
        """``stable``: no rename overlapped the listing (see :func:`list_members`). When one did,
        a file may be missing from ``entries`` or shown twice, and numbers may be off by one:
        known files are followed, the truncated base's copy adopted, the rest left for later."""
        live = self.live
        known = {f.ident: f for f in self.files if not f.gone}
        present: set[int] = set()
        unknown: list[OnDisk] = []
        listed: set[tuple[int, int]] = set()
        live_rotated = False
        for e in entries:
            if e.ident in listed:
                continue  # one file under two names (a hard link): read it once
            listed.add(e.ident)
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
            if stable and id(f) not in present and f is not truncated and f is not live
        ]
        gone = [f for f in self.files if f.gone]
        base_head: bytes | None = None
        self.unsettled = not stable
        live_copied = False
        for e in unknown:
            head = e.head
            if not head or (b"\n" not in head and len(head) < HEAD):
                # Empty, or not even one line yet (a copier or compressor still writing it):
                # too little to recognise. Look again later.
                self.unsettled = True
                continue
            if truncated is not None and same_start(head, truncated.head):
                self._adopt_copy(truncated, e)
                truncated = None  # one copy is read; another (say, compressed) is a twin
                continue
            if any(same_start(head, f.head) for f in self.pending):
                # A copy (compressed, say) of a file we hold open and will read whole: its rows
                # are read from our handle; the copy is taken as its twin once they are.
                continue
            # Content already read, under another name (compressed, copied, or seen missing
            # while a rotation renamed files around us): never read twice.
            twin = next((f for f in vanished + gone if same_start(head, f.head)), None)
            if twin is not None:
                if twin in vanished:
                    vanished.remove(twin)
                self._repoint(twin, e)
                continue
            if live is not None and same_start(head, live.head):
                # A copy of the live base: it is being copied and truncated, or already was.
                # Files newer than this copy were written after that truncation, which has
                # not been noticed yet; their turn comes after this copy's unread rest.
                live_copied = True
                continue
            if live_copied:
                # Newer than a copy of the live base: so that base was truncated.
                self.live_truncated = True
            if any(same_start(head, f.head) for f in known.values()):
                continue  # a copy of a member still present (compression, copy in progress)
            if live_rotated or live_copied or not stable:
                # The old base is not finished yet, or the truncated one's copy not adopted
                # yet, or the listing may have missed a file older than this one: classify on
                # the next poll.
                self.unsettled = True
                continue
            if base_head is None:
                base_head = self.live_head()
            if base_head.startswith(head):
                self.unsettled = True
                continue  # a copy of the current base being made: not rotated yet
            f = FileState(e.path, e.number, e.gz, e.ident)
            self.files.append(f)
            self._queue(f, e)
        for f in vanished:
            self._gone(f)

    def live_head(self) -> bytes:
        """The base's first bytes now, read through our own handle when we hold one (by name,
        the base may already be deleted or replaced)."""
        live = self.live
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
            plain = not self.index.members[f.mno].member.gz
            self.index.repoint_member(
                f.mno, path=path, number=number, readable=path if plain else None, same_file=True
            )

    def _repoint(self, f: FileState, e: OnDisk) -> None:
        """A vanished member reappears as ``e`` (compressed or copied): read rows from there,
        through the handle ``e`` was recognised by (its name may be taken by another file
        before anyone reads a row)."""
        path, number, gz = e.path, e.number, e.gz
        f.path, f.number, f.gz, f.ident, f.gone = path, number, gz, e.ident, False
        if f.mno is None:
            return
        im = self.index.members[f.mno]
        was_gz = im.member.gz and bool(im.readable)
        if not gz:
            fd = os.dup(e.fh.fileno()) if e.fh is not None else None
            self.index.repoint_member(f.mno, path=path, number=number, gz=gz, readable=path, fd=fd)
            return
        if was_gz:
            # Its readable copy is already a decompressed copy of this content.
            self.index.repoint_member(f.mno, path=path, number=number, gz=gz)
            return
        try:
            with open_regular(path) as fh:
                copy = spool(fh, self.index.adopt_temp, self._note, os.path.basename(path))
            readable = copy.name if isinstance(copy.name, str) else path
            copy.close()
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            self._note(f"{os.path.basename(path)}: cannot decompress: {exc}")
            readable = ""
        self.index.repoint_member(f.mno, path=path, number=number, gz=gz, readable=readable)

    def _adopt_copy(self, f: FileState, e: OnDisk) -> None:
        """The truncated base's copy: re-point its rows there and queue what we had not read."""
        self.truncated = None
        self._repoint(f, e)
        self._queue(f, e)

    def _queue(self, f: FileState, e: OnDisk) -> None:
        """Read ``f`` through the handle opened while listing (its name may change meanwhile)."""
        f.fh, e.fh = e.fh, None
        if f.fh is not None:
            f.fh.seek(0)
            f.spooled = False
            self.pending.append(f)

    def _gone(self, f: FileState, why: str | None = None) -> None:
        f.gone = True
        if f.mno is not None:
            # Reads of its rows now fail with "cannot read … (rotated away?)" rather than
            # landing in whatever file takes its name.
            self.index.repoint_member(f.mno, readable="")
            if why:
                self._note(f"{os.path.basename(f.path)}: {why}")
