"""Which rows a kept id table was made from, so that a run grown since then gets it back.

A table kept beside a run's persistent index (:mod:`tracetui.store.ids_kept`) answers for the
rows it was made from, ``0 … rows``. A run watched while its agent writes has grown by the next
open (lines appended to its base, or the base rotated away and a new one begun), and the index
built then starts with those same rows: the table is taken back for them and the new rows are
inserted into it, instead of sorting a million ids again.

"The same rows" is checked, never assumed, against a *record* made with the table:

- its rows as *blocks*, one per member in row order (a member's rows are one run of rows);
  each with the file's identity as the persistent index takes it (:class:`identity.Identity`:
  device, inode, size, mtime, hashes; a rotation's rename keeps it), the rows' count, the byte
  after the newline of its last row, and a hash of the first and the last KiB before that byte
  (in the decompressed copy for a gz member). A block's file must be the same now, as the
  persistent index would restore its rows (and not modified within a minute of being kept: a
  change within the same mtime tick could go unseen); only the last block's may have grown
  (the same file, longer, the same bytes at both ends of the block), as the persistent index
  reads on after its cached rows;
- a CRC of the rows' offsets and lengths (an edited line moves them), and a hash of every
  :data:`STRIDE`-th row's id and of each block's first and last row's id.

Anything else (a copy-and-truncate or a compression, which make new files; the oldest
generation deleted; a base rewritten; a block's last line unfinished when the table was made; a
record that is not exactly of this shape) is no prefix, and the table is built again. A record
is hostile input: every field's type is checked before it is used. (What it cannot see is what
the persistent index cannot either: a base edited in place away from both ends of the block and
appended to, which only the sampled ids may catch.)
"""

from __future__ import annotations

import hashlib
import os
import time
import zlib
from array import array
from bisect import bisect_right
from typing import Any

import orjson

from tracetui.store import identity
from tracetui.store.index import RunIndex

STRIDE = 16
"""Every this many rows, a row's id is in the record's hash (with each block's first and last)."""
MAX_BLOCKS = 256
"""Members a record describes at most (a run has a few; more are not worth the checks)."""
SETTLED_NS = 60 * 10**9
"""A file modified this long before its record was made is taken as unchanged when its
identity is the same (the persistent index's one-second rule, with room for the build)."""


def record(index: RunIndex, n: int) -> dict[str, Any] | None:
    """The record of rows ``0 … n`` of ``index`` (JSON); None when they cannot be described:
    an imported trace, a member whose rows are not one run, a file gone, a last line of a
    block not ended by a newline on disk."""
    if n <= 0 or index.run.source_format is not None:
        return None
    runs = _runs(index, n)
    if runs is None:
        return None
    blocks: list[list[Any]] = []
    settled_before = time.time_ns() - SETTLED_NS
    for mno, start, rows in runs:
        end = _end(index, start + rows - 1)
        got = _file_state(index, mno, end)
        if got is None:
            return None
        ident, head, tail = got
        settled = ident.mtime_ns < settled_before
        blocks.append(
            [index.members[mno].member.gz, ident.as_list(), settled, end, head, tail, rows]
        )
    sample = _sample(index, runs, n)
    if sample is None:
        return None
    return {"rows": n, "blocks": blocks, "layout": _layout(index, n), "sample": sample}


def covered(index: RunIndex, kept: Any, n: int) -> int | None:
    """The rows of ``index`` (of its first ``n``) that are exactly those ``kept`` (a record,
    hostile) was made from: its row count when they are, else None."""
    got = _parsed(kept)
    if got is None or index.run.source_format is not None:
        return None
    rows, blocks, layout, sample = got
    if rows > n:
        return None
    # The members' runs of rows now, as the record found them when it was made (each block
    # one member's whole run, no member twice): the same counts in the same order.
    runs = _runs(index, rows)
    if runs is None or [count for _, _, count in runs] != [block[-1] for block in blocks]:
        return None
    for (mno, start, count), block in zip(runs, blocks, strict=True):
        if not _holds(index, mno, start + count - 1, block, grows=mno == runs[-1][0]):
            return None
    if _layout(index, rows) != layout or _sample(index, runs, rows) != sample:
        return None
    return rows


def _runs(index: RunIndex, n: int) -> list[tuple[int, int, int]] | None:
    """``(member, first row, rows)`` of each member's run of rows in ``0 … n``, in row order;
    None when a member's rows are not one run (or there are too many)."""
    column = index.member_no[:n]
    as_bytes = column.tobytes()
    runs: list[tuple[int, int, int]] = []
    start = 0
    while start < n:
        if len(runs) == MAX_BLOCKS:
            return None
        mno = column[start]
        # A bulk build fills members one after another: bisecting proposes the run's end (the
        # column past it may not be in order: the comparison of bytes decides).
        stop = bisect_right(column, mno, start)
        if stop <= start:
            return None
        one = array("H", (mno,)).tobytes()
        if as_bytes[2 * start : 2 * stop] != one * (stop - start):
            return None
        if stop < n and column[stop] == mno:
            return None
        if any(mno == m for m, _, _ in runs):
            return None
        runs.append((mno, start, stop - start))
        start = stop
    return runs


def _end(index: RunIndex, row: int) -> int:
    """The byte after the newline of ``row`` (when it has one)."""
    return index.offset[row] + index.length[row] + 1


def _file_state(index: RunIndex, mno: int, end: int) -> tuple[identity.Identity, str, str] | None:
    """The identity of member ``mno``'s file now (the compressed file for a gz member) and
    the hashes of the first and the last KiB before ``end`` of what its rows are read from;
    None when that does not end with a newline there or cannot be read."""
    im = index.members[mno]
    if not im.readable or end <= 0:
        return None
    ident = identity.identify(im.member.path) if im.member.gz else None
    fd = identity.open_member(im.readable)
    if fd is None:
        return None
    try:
        if ident is None:
            ident = identity.identity_of(fd)
        if os.fstat(fd).st_size < end or os.pread(fd, 1, end - 1) != b"\n":
            return None
        head = identity.hash_range(fd, 0, min(identity.SPAN, end))
        tail = identity.hash_range(fd, max(0, end - identity.SPAN), end)
    except OSError:
        return None
    finally:
        os.close(fd)
    return (ident, head, tail) if ident is not None else None


def _holds(index: RunIndex, mno: int, last: int, block: list[Any], *, grows: bool) -> bool:
    """Whether member ``mno``'s rows up to row ``last`` are those of ``block`` (checked by
    :func:`_parsed`): its file the same (settled), or for the last block ``grows``, the same
    file longer; the same bytes at both ends of the block."""
    gz, old_ident, settled, end, head, tail, _rows = block
    if index.members[mno].member.gz is not gz or _end(index, last) != end:
        return False
    got = _file_state(index, mno, end)
    if got is None or got[1:] != (head, tail):
        return False
    now, old = got[0], identity.Identity(*old_ident)
    if now == old:
        return bool(settled)
    same_file = (now.dev, now.ino) == (old.dev, old.ino)
    return grows and not gz and same_file and now.size > old.size


def _layout(index: RunIndex, n: int) -> int:
    """A CRC of rows ``0 … n``'s offsets and lengths (copies: a follower may append)."""
    return zlib.crc32(index.length[:n], zlib.crc32(index.offset[:n]))


def _sample(index: RunIndex, runs: list[tuple[int, int, int]], n: int) -> str | None:
    """A hash of every :data:`STRIDE`-th id of rows ``0 … n`` and each run's first and last
    row's id; None for an id JSON cannot hold (a lone surrogate)."""
    ids = index.ids
    ends = [ids[row] for _, start, rows in runs for row in (start, start + rows - 1)]
    try:
        blob = orjson.dumps([ids[0:n:STRIDE], ends])
    except TypeError:
        return None
    return hashlib.blake2b(blob, digest_size=16).hexdigest()


def _parsed(kept: Any) -> tuple[int, list[list[Any]], int, str] | None:
    """``(rows, blocks, layout, sample)`` of a record read back, when every field is of the
    shape :func:`record` writes and the blocks' rows add up; else None."""
    if not isinstance(kept, dict):
        return None
    rows, blocks = kept.get("rows"), kept.get("blocks")
    layout, sample = kept.get("layout"), kept.get("sample")
    if type(rows) is not int or type(layout) is not int or type(sample) is not str:
        return None
    if not isinstance(blocks, list) or not 0 < len(blocks) <= MAX_BLOCKS:
        return None
    if not all(_block_ok(b) for b in blocks) or sum(b[-1] for b in blocks) != rows:
        return None
    return rows, blocks, layout, sample


def _block_ok(block: Any) -> bool:
    if not (isinstance(block, list) and len(block) == 7):
        return False
    gz, ident, settled, end, head, tail, rows = block
    if type(gz) is not bool or type(settled) is not bool or type(head) is not str:
        return False
    if type(end) is not int or type(rows) is not int or rows <= 0 or type(tail) is not str:
        return False
    if not (isinstance(ident, list) and len(ident) == 7):
        return False
    kinds = (int, int, int, int, str, str, bool)
    return all(type(v) is k for v, k in zip(ident, kinds, strict=True))
