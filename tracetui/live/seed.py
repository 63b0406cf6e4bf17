"""A followed run's first read through ``build_index``, with the persistent index (issue 18).

A follower reading a big run from its start reads every byte on one thread, and the persistent
index does not apply: a million rows took ~6 s where a warm ``build_index`` takes ~0.4 s. So
a follower asked to (``Follower(seed=True)``) first has the run built by
:func:`~tracetui.store.build.build_index` (``for_follower``: the base's unfinished last line and
the re-runs file are left to the follower) and then reads on from where each member's rows stop,
as if it had read them itself.

That is only sound if the index holds exactly the files the follower goes on reading. Each
member is opened *before* the build and known, as the follower knows its files, by its inode and
its first bytes. After the build each one must still be there under the same name, as long as it
was and starting with the same bytes. Anything else (a rotation or a copy-and-truncate during
the build, a member the build could not read or read another way) and the seeded index is
dropped: the follower then reads the run from its start as before. A small run is not worth it
(:data:`SEED_BYTES`).
"""

from __future__ import annotations

import contextlib
import gzip
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from tracetui.live.watch import HEAD, FileState, head_of, ident_of, list_members
from tracetui.store import fastindex
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.reader import open_regular
from tracetui.store.runset import Member, Run

SEED_BYTES = 8 << 20
"""Runs smaller than this are read by the follower itself: that takes milliseconds."""


@dataclass(slots=True)
class Seeded:
    """A followed run's index and the follower's state of each file, as after a catch-up."""

    index: RunIndex
    files: list[FileState]
    live: FileState | None
    """The plain base, its handle kept open (the follower reads on through it)."""


@dataclass(slots=True, eq=False)
class _Held:
    """A member opened before the build: the file the index must turn out to hold."""

    member: Member
    fh: IO[bytes]
    ident: tuple[int, int]
    head: bytes
    size: int
    """Its size when opened (of the ``.gz`` itself for gzip members)."""


def seeded(
    run: Run,
    progress: Callable[[int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    *,
    opened: list[tuple[Member, IO[bytes]]] | None = None,
) -> Seeded | None:
    """The index of ``run`` built for its follower, or None when the follower should read the
    run itself (small, imported, no C scanner, or a file changed during the build).

    When the build was made but is not taken, the members' handles opened before it are handed
    over in ``opened`` (in the run's order, each at its start): the follower reads those files,
    so a generation deleted or replaced during the build is still read, as it would have been
    by a follower that opened it at that moment. Raises :class:`tracetui.store.gz.Cancelled`
    when ``cancelled`` says so during the build.
    """
    if run.source_format is not None or not fastindex.available() or _size(run) < SEED_BYTES:
        return None
    held = _hold(run)
    if held is None:
        return None
    keep: set[int] = set()
    notes = len(run.notes)
    got: Seeded | None = None
    built = False
    try:
        index = build_index(run, progress, cancelled=cancelled, for_follower=True)
        built = True
        got = _check(index, held, keep) if _only_held(run, held) else None
        if got is None:
            index.close()
            del run.notes[notes:]  # the follower's own read says it again
        return got
    finally:
        if got is None:
            keep.clear()  # the base's handle too goes back to the follower (or is closed)
        handed = built and got is None and opened is not None
        for h in held:
            if id(h) in keep:
                continue
            with contextlib.suppress(OSError):
                if handed and opened is not None:
                    h.fh.seek(0)
                    opened.append((h.member, h.fh))
                    continue
                h.fh.close()


def _size(run: Run) -> int:
    total = 0
    for m in run.members:
        with contextlib.suppress(OSError):
            total += os.path.getsize(m.path)
    return total


def _hold(run: Run) -> list[_Held] | None:
    """Every member opened, with its inode and first bytes; None if one cannot be (the
    follower's own catch-up says what is wrong with it)."""
    held: list[_Held] = []
    try:
        for m in run.members:
            fh = open_regular(m.path)
            try:
                st = os.fstat(fh.fileno())
                head = head_of(fh, m.gz)
            except OSError:
                head = None
            if head is None:
                fh.close()
                raise OSError(f"{m.name}: first bytes unreadable")
            held.append(_Held(m, fh, ident_of(st), head, st.st_size))
    except (OSError, EOFError, gzip.BadGzipFile, zlib.error):
        for h in held:
            h.fh.close()
        return None
    return held


def _only_held(run: Run, held: list[_Held]) -> bool:
    """No rotated member on disk now but those held (or a twin of one: ``B.2.gz`` beside
    ``B.2``). One renamed before the seeding opened the run (``B.1`` to ``B.2``, the base to
    ``B.1``, as listed) is found by the follower's first scan and would be read after the
    base's rows; the follower's own catch-up reads it first."""
    folder = os.path.dirname(run.base) or os.curdir
    found, stable = list_members(folder, os.path.basename(run.base))
    idents = {h.ident for h in held}
    numbers = {h.member.number for h in held}
    for e in found:
        if e.fh is not None:
            e.fh.close()
    return stable and all(e.ident in idents or e.number in numbers for e in found)


def _check(index: RunIndex, held: list[_Held], keep: set[int]) -> Seeded | None:
    """The follower's files for ``index`` when it holds exactly the ``held`` files; else None.
    The live base's handle is added to ``keep`` (it stays open)."""
    members = [(mno, im) for mno, im in enumerate(index.members) if im.member.number >= 0]
    if len(members) != len(held):
        return None
    files: list[FileState] = []
    live: FileState | None = None
    pins: list[tuple[int, _Held]] = []
    for (mno, im), h in zip(members, held, strict=True):
        m = h.member
        if im.member.path != m.path or im.member.gz != m.gz or not _unchanged(h, im.size):
            return None
        head = h.head[: min(HEAD, im.size)]
        if len(head) < min(HEAD, im.size):
            return None  # it was shorter when opened: it grew before the build read it
        f = FileState(m.path, m.number, m.gz, h.ident, head, mno, im.size, im.lines)
        # A compressed base (a run opened as B.gz) is in no listing of rotated members: as
        # after a catch-up, it counts as gone already, else the first scan would take it for
        # gone and make its rows unreadable.
        f.gone = m.number == 0 and m.gz
        files.append(f)
        if not m.gz:
            pins.append((mno, h))
        if m.number == 0 and not m.gz:
            f.fh, live = h.fh, f
            keep.add(id(h))
    for mno, h in pins:
        # Rows are read through the very file checked here, as the follower's own reads are:
        # a rotation renaming another file to this name cannot redirect them.
        try:
            fd = os.dup(h.fh.fileno())
        except OSError:
            return None  # out of descriptors: the follower's own reading says so
        index.repoint_member(mno, readable=index.members[mno].readable, fd=fd)
    return Seeded(index, files, live)


def _unchanged(h: _Held, indexed: int) -> bool:
    """``h`` is still the file under its name, at least ``indexed`` bytes long and starting
    with the bytes it started with when opened (a gzip member: exactly as long as it was, its
    bytes being those of a finished file)."""
    try:
        if ident_of(os.stat(h.member.path)) != h.ident:
            return False
        fd = h.fh.fileno()
        if h.member.gz:
            return os.fstat(fd).st_size == h.size
        if os.fstat(fd).st_size < indexed:
            return False
        return os.pread(fd, len(h.head), 0) == h.head
    except OSError:
        return False
