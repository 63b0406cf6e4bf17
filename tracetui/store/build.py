"""Building a run's index from what is on disk now: the whole set, or a quick peek at its end.

The building thread is the index's one writer while it builds; nobody else sees the index until
it is returned (the viewer shows a peek meanwhile). A followed run's index is built here too
(``for_follower``, through :mod:`tracetui.live.seed`), with the persistent index, and handed to
its follower, which reads on from where the build stopped: the base's unfinished last line and
the re-runs file are left to it.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from tracetui.store import cache, fastindex, gc_pause, gz, identity, temp_files
from tracetui.store.index import RunIndex
from tracetui.store.reader import RawLine, open_regular
from tracetui.store.row_columns import source_line
from tracetui.store.runset import Member, Run

WORKERS = 2
"""Members scanned at once by the C scanner (it releases the GIL)."""


def build_index(
    run: Run,
    progress: Callable[[int], None] | None = None,
    *,
    cancelled: Callable[[], bool] | None = None,
    for_follower: bool = False,
    save_behind: bool = False,
) -> RunIndex:
    """Index every member of ``run`` in set order (then its re-run sidecar).

    ``for_follower``: the index is for a follower to read on from (:mod:`tracetui.live.seed`).
    The base's last line is indexed only once it ends with a newline (its writer may be halfway
    through it; the follower waits for the newline), and the sidecar is left out (the follower
    reads it itself). A base indexed short of its end is not kept in the cache: a later build
    would take its rows for the whole file.

    ``cancelled`` is asked between pieces of work (a few MiB each): once it says True the build
    stops with :class:`~tracetui.store.gz.Cancelled`. Whenever the build does not return
    (cancelled, Ctrl-C, a bug), the temp copies it made are removed before the exception goes on.

    ``save_behind``: the new cache entry is written on a thread of its own while the caller
    goes on (a batch command's analysis); the index's cache state waits for it
    (:mod:`tracetui.store.cache_state`).
    """
    made: list[RunIndex] = []
    try:
        with gc_pause.paused():  # everything a build makes is kept: nothing for it to collect
            return _build(
                run, _checked(progress, cancelled), cancelled, made, for_follower, save_behind
            )
    except BaseException:
        for index in made:
            index.close()
        raise


def _checked(
    progress: Callable[[int], None] | None, cancelled: Callable[[], bool] | None
) -> Callable[[int], None] | None:
    """``progress``, raising Cancelled first when the caller has asked to stop."""
    if cancelled is None:
        return progress

    def report(done: int) -> None:
        if cancelled():
            raise gz.Cancelled
        if progress is not None:
            progress(done)

    return report


def _build(
    run: Run,
    progress: Callable[[int], None] | None,
    cancelled: Callable[[], bool] | None,
    made: list[RunIndex],
    for_follower: bool = False,
    save_behind: bool = False,
) -> RunIndex:
    index = RunIndex(run)
    made.append(index)
    if run.source_format is not None:
        _index_imported(index, run, cancelled)
        return index
    plan = cache.plan_for(run)
    # Each member as found before reading (the cache's plan took them already), so a reader of
    # the finished index can tell whether its bytes are still those (identity.changed_since_built).
    built_from = plan.before if plan else [identity.identify(m.path) for m in run.members]
    index.built_from = built_from
    jobs: list[_Job] = []
    for pos, member in enumerate(run.members):
        try:
            mno = _add(index, member, cancelled)
        except OSError as exc:
            run.notes.append(f"{member.name}: cannot read: {_why(exc)}")
            continue
        job = _Job(mno, *(plan.offer(pos, mno) if plan else ([], (0, 0))))
        job.whole_lines = for_follower and _is_live(member)
        jobs.append(job)
    try:
        done = _index_parallel(index, jobs, progress)
    except OSError as exc:  # a member vanished mid-scan: start over member by member
        run.notes.append(f"parallel scan stopped ({_why(exc)}); reading members one by one")
        index.close()
        index = RunIndex(run)
        index.built_from = built_from
        made.append(index)
        plan = None
        jobs = []
        for m in run.members:
            if os.path.exists(m.path):
                jobs.append(
                    _Job(_add(index, m, cancelled), whole_lines=for_follower and _is_live(m))
                )
        done = False
    if not done:
        # Rows are registered together (one dict built at once), after every member is read: a
        # member read on after cached rows registering its few new rows at once would settle
        # every cached row first (~0.4 s at 1M). (The line reader registers as it reads: the
        # rows before it first.)
        pending = len(index)
        for job in jobs:
            owing = False
            try:
                index.append(job.mno, job.finished(job.cached), register=False)
                if job.scan_from is not None:
                    if fastindex.available():  # (as index_member reads, and whole lines)
                        owing = True
                        im = index.members[job.mno]
                        scan = fastindex.scan_member(im.readable, im.size, im.lines, progress)
                        index.append(job.mno, job.finished(scan), register=False)
                    else:
                        index.register_all(pending)
                        index.index_member(job.mno, progress)
                        pending = len(index)
            except OSError as exc:
                name = index.members[job.mno].member.name
                run.notes.append(f"{name}: stopped reading: {_why(exc)}")
                plan = None  # rows missing: nothing of this build is kept
                if not owing:
                    pending = len(index)
        index.register_all(pending)
    if plan is not None:
        for job in jobs:
            if job.dropped:
                plan.leave_out(job.mno)
        _leave_out_rewritten(plan)
    if run.sidecar and not for_follower:
        side = Member(run.sidecar, -1, False)
        try:
            index.index_member(index.add_member(side), progress)
        except OSError as exc:
            run.notes.append(f"{os.path.basename(run.sidecar)}: cannot read: {_why(exc)}")
    if plan is not None:
        try:
            plan.save(index, behind=save_behind)
        except (OSError, ValueError, TypeError) as exc:  # the cache is a courtesy
            cache.log.debug("index of %s not cached: %s", run.base, exc)
    return index


@dataclass(slots=True)
class _Job:
    """One member to index: rows restored from the cache, then where to read on from."""

    mno: int
    cached: list[fastindex.Item] = field(default_factory=list)
    scan_from: tuple[int, int] | None = (0, 0)
    """``(offset, line)`` to scan from; None when the cached rows are the whole member."""
    whole_lines: bool = False
    """Leave an unfinished last line out (the base of a followed run: see build_index)."""
    dropped: bool = False
    """An unfinished last line was left out."""

    def finished(self, items: Iterable[fastindex.Item]) -> Iterator[fastindex.Item]:
        """``items`` without an unfinished last line when this job wants whole lines only.
        (The scanner yields such a line last, as a RawLine; so does a cached part.)"""
        for item in items:
            if self.whole_lines and isinstance(item, RawLine) and not item.complete:
                self.dropped = True
                continue
            yield item


def _leave_out_rewritten(plan: cache.Plan) -> None:
    """Members changed while read other than by an append are not kept: a copy-and-truncate
    after the scan's first reads, then writes past the old size, leaves rows of two contents
    that reach the end of the file now there, which the cache would take for its rows."""
    for pos, mno in list(plan.mnos.items()):
        member, before = plan.run.members[pos], plan.before[pos]
        if member.gz or before is None:
            continue
        try:
            with open_regular(member.path) as fh:
                fd = fh.fileno()
                now = identity.identity_of(fd)
                kept = now == before or identity.grew_from(fd, now, before)
        except OSError:
            kept = False
        if not kept:
            plan.leave_out(mno)


def _is_live(member: Member) -> bool:
    """The member a writer may be appending to: the plain base."""
    return member.number == 0 and not member.gz


def _add(index: RunIndex, member: Member, cancelled: Callable[[], bool] | None) -> int:
    """Register a member; a gz member gets its bounded decompressed copy (and its note)."""
    if not member.gz:
        return index.add_member(member)
    copy, got = gz.decompressed_copy(member.path, index.adopt_temp, cancelled=cancelled)
    if got.note:
        index.run.notes.append(got.note)
    return index.add_member(member, copy)


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _index_parallel(
    index: RunIndex, jobs: list[_Job], progress: Callable[[int], None] | None = None
) -> bool:
    """Scan the members left to read on worker threads, then apply every member in set order
    (its cached rows first)."""
    scans = [job for job in jobs if job.scan_from is not None]
    if not fastindex.available() or len(scans) < 2:
        return False
    done: dict[tuple[int, int], int] = {}

    def piece_progress(key: tuple[int, int], start: int) -> Callable[[int], None] | None:
        if progress is None:
            return None

        def report(offset: int) -> None:  # the bytes read over all members, not one member's
            done[key] = offset - start
            progress(sum(done.values()))

        return report

    def scan(mno: int, k: int, piece: _Piece) -> _Scanned:
        reached = fastindex.Reached()
        items = fastindex.scan_member(
            index.members[mno].readable,
            piece.start,
            piece.line,
            piece_progress((mno, k), piece.start if k else 0),
            end=piece.end,
            reached=reached,
        )
        return _Scanned(list(items), reached)

    with ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="tracetui-scan") as pool:
        pieces = {job.mno: _pieces(index, job) for job in scans}
        futures = {
            mno: [pool.submit(scan, mno, k, p) for k, p in enumerate(ps)]
            for mno, ps in pieces.items()
        }
        first = len(index)
        for job in jobs:
            index.append(job.mno, job.finished(job.cached), register=False)
            lines_before: int | None = None
            for piece, fut in zip(pieces.get(job.mno, []), futures.get(job.mno, []), strict=True):
                got = fut.result()
                if piece.end is not None and got.reached.offset != piece.end:
                    # The member changed under the scan (the cut is no longer a line's end).
                    raise OSError(f"{index.members[job.mno].member.name} changed while read")
                items = got.items if lines_before is None else _renumbered(got.items, lines_before)
                index.append(job.mno, job.finished(items), register=False)
                lines_before = got.reached.line + (lines_before or 0)
        index.register_all(first)
    return True


PIECE_BYTES = 8 << 20
"""A member with more than twice this many bytes to scan is scanned as two pieces, one a
thread: five members on two threads left one thread idle for the last member's whole scan."""


@dataclass(slots=True)
class _Piece:
    """A stretch of a member to scan: from byte ``start`` (``line`` lines before it; 0 for a
    later piece, whose line numbers are counted on from its first line once the piece before it
    is read) up to byte ``end`` (None: the end of the file)."""

    start: int
    line: int
    end: int | None = None


@dataclass(slots=True)
class _Scanned:
    items: list[fastindex.Item]
    reached: fastindex.Reached


def _pieces(index: RunIndex, job: _Job) -> list[_Piece]:
    """The member of ``job`` as one piece, or two cut at a line boundary near its middle."""
    start, line = job.scan_from or (0, 0)
    whole = [_Piece(start, line)]
    path = index.members[job.mno].readable
    try:
        with open_regular(path) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size - start <= 2 * PIECE_BYTES:
                return whole
            middle = start + (size - start) // 2
            fh.seek(middle)
            nl = fh.read(1 << 20).find(b"\n")
    except OSError:
        return whole  # the scan itself says what is wrong with it
    if nl < 0:
        return whole  # no line ends near the middle (a huge line): one piece
    cut = middle + nl + 1
    return [_Piece(start, line, cut), _Piece(cut, 0)]


def _renumbered(items: list[fastindex.Item], before: int) -> list[fastindex.Item]:
    """A later piece's items with ``before`` added to their line numbers (the lines of the
    pieces before it, blank ones included)."""
    out: list[fastindex.Item] = []
    for item in items:
        if isinstance(item, RawLine):
            out.append(
                RawLine(item.line_no + before, item.offset, item.length, item.data, item.complete)
            )
            continue
        res = list(item.result)
        lines = array("i")
        lines.frombytes(res[4])
        res[4] = bytearray(array("i", [n + before for n in lines]).tobytes())
        out.append(fastindex.Batch(tuple(res), item.slow_lines))
    return out


def _index_imported(index: RunIndex, run: Run, cancelled: Callable[[], bool] | None) -> None:
    """Convert a foreign trace to a temporary JSONL of ``import/<format>`` records, index that."""
    from tracetui import importers

    # Named for this process in a private folder: a kill -9 leaves a file the next start sweeps.
    fd, tmp = temp_files.make_temp("import", ".jsonl")
    index.adopt_temp(tmp)
    # Converted line → the original's line, as RunIndex.location would read it from each row:
    # kept now, so exporting or linting an import does not parse every row again for it.
    source_lines: dict[int, int] = {}
    try:
        with os.fdopen(fd, "wb") as out:
            lines = importers.convert_lines(run.base, run.source_format or "")
            for line, (record, data) in enumerate(lines, 1):
                if cancelled is not None and cancelled():
                    raise gz.Cancelled
                out.write(data + b"\n")
                where = source_line(record)
                if where is not None:
                    source_lines[line] = where
    except (OSError, ValueError) as exc:
        run.notes.append(f"{run.source_format} import: {exc}")
    # Rows read from the converted copy; locations still name the original file.
    mno = index.add_member(Member(run.base, 0, False), tmp)
    index.index_member(mno)
    index.source_lines = source_lines


def peek_index(run: Run, tail_bytes: int = 1 << 20) -> RunIndex | None:
    """The last rows of the newest member, read in a few milliseconds whatever the set's size.

    A stand-in the viewer shows while the whole set is indexed: its rows carry the right
    member and offset (so a selection survives the swap to the full index), but line numbers
    count from the peek's start, not the file's (``index.partial`` says so). None when the run
    has no plain newest member to peek at (gzip'd, imported, missing).
    """
    if run.source_format is not None or not run.members:
        return None
    newest = run.members[-1]
    if newest.gz:
        return None
    try:
        size = os.path.getsize(newest.path)
        with open_regular(newest.path) as fh:
            start = max(0, size - tail_bytes)
            if start:
                fh.seek(start - 1)
                # Begin at the first full line inside the window.
                chunk = fh.read(min(size - start + 1, tail_bytes + 1))
                nl = chunk.find(b"\n")
                if nl < 0:
                    return None
                start += nl
            index = RunIndex(run)
            index.partial = True
            index.index_member(index.add_member(newest, start=start))
    except OSError:
        return None
    return index
