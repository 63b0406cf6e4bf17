"""The persistent index: a run's rows kept in the user's cache between invocations (issue 18).

Opening a run reads every byte of it; opening it again, unchanged, need not. After a build,
:class:`Plan` saves each plain member's rows (a *part*, :mod:`tracetui.store.cache_parts`) in one
file per run under ``$XDG_CACHE_HOME/tracetui/index/`` (``~/.cache/…`` by default), with the
member's identity: device, inode, size, ``mtime_ns`` and a hash of its first and last KiB. The
next build of that run looks each member up by its device and inode:

- same identity → its rows are restored, nothing is read but the bad lines' bytes;
- same file grown (size larger, the first KiB and the old last KiB hash the same at their old
  offsets, the old end on a line boundary) → its rows are restored and only the new bytes read;
- a rotation renamed it (``B`` → ``B.1``) → found by inode all the same, under its new name;
- anything else (copy-and-truncate, a rewrite of the same size, only the mtime changed, a gz
  member, a file changed within a second of being read — the "racy" case git knows) → read
  again from the start. Nothing doubtful is trusted: a cache file that is truncated, corrupt,
  of another version or of other code is ignored (a line in the ``tracetui.cache`` debug log)
  and replaced.

A cache file is hostile input: reads are bounded by its size, which is bounded by the cap;
every length and type is validated; nothing is unpickled (JSON and raw ``array`` bytes only).
Files are opened without following links and written to a fresh temp file (``O_EXCL``,
``O_NOFOLLOW``) renamed over the old one, so two processes opening one run at once each write a
whole file and either one wins. The folder is bounded: past the cap (``TRACETUI_CACHE_MAX_MB``,
512 by default) the least recently used entries go. ``--no-cache`` (:func:`disable`) and
``TRACETUI_NO_CACHE=1`` skip all of it.

Beside the rows, a command may keep JSON results of its own for the exact state of a run
(:mod:`tracetui.store.cache_results`): ``summary`` keeps its per-run object, trend and output, so
that a warm summary does not even index the run.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sys
import time
import zlib
from bisect import bisect_left, bisect_right
from typing import TYPE_CHECKING, Any

import orjson

from tracetui.store.cache_files import atomic_write, cache_folder, read_bounded, size_cap, touch
from tracetui.store.cache_parts import BLOBS, BadPart, Part, check_part, cut_part, restore_items
from tracetui.store.cache_state import note, write_behind
from tracetui.store.cache_state import state_of as state_of  # cache.state_of, as it was
from tracetui.store.identity import Identity, grew_from, identify, open_member
from tracetui.store.runset import Run

if TYPE_CHECKING:  # only annotations: a warm `summary --json` never loads the index's modules
    from tracetui.store.fastindex import Item
    from tracetui.store.index import RunIndex

log = logging.getLogger("tracetui.cache")

VERSION = 3
"""Of the entry's format (3: parent links as an ``array`` of rows and a list of ids)."""
MAGIC = b"TTIDX\x00\x01\n"
MAX_HEADER = 16 << 20
MIN_RUN_BYTES = 1 << 20
"""A smaller run is read afresh: scanning a few hundred KiB costs less than a cache entry's
files (a folder of thousands of one-line runs would be slower with the cache than without)."""
RACY_NS = 1_000_000_000
"""A member modified less than this before it was read may change again within the same
mtime tick: its rows are kept for an append, never for an unchanged-looking file."""

_off = False
_fingerprint: str | None = None


def disable() -> None:
    """``--no-cache``: this process neither reads nor writes the cache."""
    global _off
    _off = True


def enabled() -> bool:
    return not _off and os.environ.get("TRACETUI_NO_CACHE", "") in ("", "0")


def _is_key(values: list[Any]) -> bool:
    return all(type(v) is int for v in values)


def fingerprint() -> str:
    """The code that made an entry: the size and mtime of every store/model/analysis module
    (and the compiled scanner). Other code may index differently: its entries are not used."""
    global _fingerprint
    if _fingerprint is None:
        pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        h = hashlib.blake2b(f"{VERSION}:{sys.version}".encode(), digest_size=16)
        for sub in ("store", "model", "analysis"):
            with contextlib.suppress(OSError), os.scandir(os.path.join(pkg, sub)) as it:
                for e in sorted(it, key=lambda e: e.name):
                    if e.name.endswith((".py", ".so", ".pyd")):
                        st = e.stat()
                        h.update(f"{sub}/{e.name}:{st.st_size}:{st.st_mtime_ns};".encode())
        _fingerprint = h.hexdigest()
    return _fingerprint


def run_key(run: Run) -> str:
    return hashlib.blake2b(os.fsencode(os.path.abspath(run.base)), digest_size=16).hexdigest()


def state_key(run: Run, idents: list[Identity | None], since_ns: int) -> str | None:
    """The exact files a run's index came from: members (as named), their identities, and
    the sidecar's stat (a re-run changes what a summary says). None when any of them was
    modified less than RACY_NS before ``since_ns`` (it could change again unseen)."""
    side: list[int] | None = None
    if run.sidecar:
        with contextlib.suppress(OSError):
            st = os.stat(run.sidecar)
            side = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns]
    if any(i is None for i in idents):
        return None
    times = [i.mtime_ns for i in idents if i is not None] + ([side[3]] if side else [])
    if any(t >= since_ns - RACY_NS for t in times):
        return None
    members = [
        [m.path, m.number, m.gz, None if i is None else i.as_list()]
        for m, i in zip(run.members, idents, strict=True)
    ]
    blob = orjson.dumps([fingerprint(), run.base, run.sidecar, side, members])
    return hashlib.blake2b(blob, digest_size=16).hexdigest()


# ------------------------------------------------------------------ reading an entry
def _load_entry(path: str) -> tuple[dict[str, Any], memoryview] | None:
    """The header and body of the cache file at ``path``, checked; None when absent or bad."""
    data = read_bounded(path, size_cap())
    if data is None:
        return None
    try:
        return _parse_entry(data)
    except (BadPart, ValueError, TypeError) as exc:  # orjson's decode error is a ValueError
        log.debug("cache file %s ignored: %s", path, exc)
        return None


def _parse_entry(data: bytes) -> tuple[dict[str, Any], memoryview]:
    if len(data) < len(MAGIC) + 4 or not data.startswith(MAGIC):
        raise BadPart("not a tracetui index file")
    at = len(MAGIC)
    hlen = int.from_bytes(data[at : at + 4], "little")
    if hlen > MAX_HEADER or at + 4 + hlen > len(data):
        raise BadPart("header length out of bounds")
    header = orjson.loads(data[at + 4 : at + 4 + hlen])
    if not isinstance(header, dict) or header.get("version") != VERSION:
        raise BadPart("another version")
    if header.get("fingerprint") != fingerprint() or header.get("byteorder") != sys.byteorder:
        raise BadPart("written by other code")
    body = memoryview(data)[at + 4 + hlen :]
    if header.get("body") != [len(body), zlib.crc32(body)]:
        raise BadPart("body truncated or corrupt")
    if not isinstance(header.get("parts"), list):
        raise BadPart("no parts")
    return header, body


def _part_of(meta: Any, body: memoryview) -> tuple[Identity, int, Part]:
    """One entry of the header's parts, validated against the body: identity, time, rows."""
    if not isinstance(meta, dict):
        raise BadPart("part is not an object")
    ident, scanned, spans = meta.get("id"), meta.get("scanned_ns"), meta.get("blobs")
    if not (isinstance(ident, list) and len(ident) == 7 and type(scanned) is int):
        raise BadPart("part identity")
    if not all(type(v) is int for v in ident[:4]) or not all(type(v) is str for v in ident[4:6]):
        raise BadPart("part identity")
    if type(ident[6]) is not bool:
        raise BadPart("part identity")
    identity = Identity(*ident)
    if not isinstance(spans, list) or len(spans) != BLOBS:
        raise BadPart("part columns")
    blobs: list[memoryview] = []
    for span in spans:
        if not (isinstance(span, list) and len(span) == 2 and all(type(v) is int for v in span)):
            raise BadPart("column span")
        start, length = span
        if start < 0 or length < 0 or start + length > len(body):
            raise BadPart("column outside the body")
        blobs.append(body[start : start + length])
    return identity, scanned, check_part(meta, blobs, identity.size)


# ------------------------------------------------------------------ the plan of one build
class Plan:
    """What the cache offers one build of ``run``, and what it keeps of it afterwards."""

    def __init__(self, run: Run, folder: str) -> None:
        self.run = run
        self.path = os.path.join(folder, run_key(run) + ".idx")
        self.started_ns = time.time_ns()
        self.before = [identify(m.path) for m in run.members]
        self.hits = [False] * len(run.members)
        self.mnos: dict[int, int] = {}
        """Member (position in the run) → its number in the index."""
        self.scanned: dict[int, int] = {}
        """Member (position in the run) → when its identity was taken, for the racy check."""
        self._parts: dict[tuple[int, int], dict[str, Any]] = {}
        self._body = memoryview(b"")
        self._reused: dict[int, tuple[dict[str, Any], list[bytes | memoryview]]] = {}
        """Member (position) → its part as read, restored whole: written again as it is."""
        if any(i is not None and not m.gz for m, i in zip(run.members, self.before, strict=True)):
            entry = _load_entry(self.path)
            if entry is not None:
                header, self._body = entry
                for meta in header["parts"]:
                    ident = meta.get("id") if isinstance(meta, dict) else None
                    if isinstance(ident, list) and len(ident) == 7 and _is_key(ident[:2]):
                        self._parts[(ident[0], ident[1])] = meta

    def offer(self, pos: int, mno: int) -> tuple[list[Item], tuple[int, int] | None]:
        """Cached rows of member ``pos`` (index member ``mno``) and where to go on reading it:
        ``(offset, line)``, ``(0, 0)`` for all of it, None when the cached rows are all of it."""
        self.mnos[pos] = mno
        self.scanned[pos] = self.started_ns
        now, member = self.before[pos], self.run.members[pos]
        meta = None if now is None or member.gz else self._parts.pop((now.dev, now.ino), None)
        if now is None or meta is None:
            return [], (0, 0)
        fd = open_member(member.path)
        if fd is None:
            return [], (0, 0)
        try:
            ident, scanned, part = _part_of(meta, self._body)
            if ident == now and now.mtime_ns < scanned - RACY_NS:
                items = restore_items(part, fd)
                self.hits[pos] = True
                self.scanned[pos] = scanned
                self._reused[pos] = (meta, part.blobs)
                return items, None
            if part.meta.get("resume") is True and grew_from(fd, now, ident):
                lines = part.meta.get("lines")
                if type(lines) is int and lines >= 0:
                    return restore_items(part, fd), (ident.size, lines)
        except (OSError, BadPart) as exc:
            log.debug("%s: cached part ignored: %s", member.name, exc)
        finally:
            os.close(fd)
        return [], (0, 0)

    def leave_out(self, mno: int) -> None:
        """Index member ``mno`` was read short of its end on purpose (a followed base's
        unfinished last line): its rows are not kept, since a later build would take them for
        the whole file, nor is the index taken for the cache's."""
        for pos in [pos for pos, m in self.mnos.items() if m == mno]:
            del self.mnos[pos]
            self.hits[pos] = False
            self._reused.pop(pos, None)

    # -------------------------------------------------------------- saving
    def save(self, index: RunIndex, *, behind: bool = False) -> None:
        """Keep the index's rows (when anything was read) and note its state for :func:`keep`.
        ``behind``: the entry is written on a thread of its own (:mod:`.cache_state`)."""
        after = [identify(m.path) for m in self.run.members]
        unchanged = [a is not None and a == b for a, b in zip(after, self.before, strict=True)]
        plain = [not m.gz for m in self.run.members]
        if all(u and (h or not p) for u, h, p in zip(unchanged, self.hits, plain, strict=True)):
            touch(self.path)  # every plain member a hit: nothing new to write
            note(index, state_key(self.run, after, self.started_ns))
            return
        by_member = _links_by_member(index)
        parts: list[tuple[dict[str, Any], list[bytes | memoryview]]] = []
        complete = True
        for pos, member in enumerate(self.run.members):
            # A member restored whole and unchanged since is written as it was read: cutting
            # its rows out of the index again gives the same bytes (after an append to the
            # base of a 1M-row run, re-cutting the other members was ~0.3 s of the build).
            got = self._reused.get(pos) if unchanged[pos] else None
            if got is None and not member.gz:
                got = self._cut(index, pos, after[pos], by_member)
            if got is not None:
                parts.append(got)
            elif not (member.gz and unchanged[pos]):
                complete = False
        if not parts:
            return
        state = state_key(self.run, after, self.started_ns) if complete else None
        path = self.path

        def write() -> str | None:
            return state if _write_entry(path, parts) else None

        if behind:
            write_behind(index, write)
        else:
            note(index, write())

    def _cut(
        self,
        index: RunIndex,
        pos: int,
        now: Identity | None,
        links: dict[int, tuple[list[int], list[str]]],
    ) -> tuple[dict[str, Any], list[bytes | memoryview]] | None:
        before, mno = self.before[pos], self.mnos.get(pos)
        if mno is None or now is None or before is None:
            return None
        im = index.members[mno]
        if (now.dev, now.ino) != (before.dev, before.ino) or now.size < before.size:
            return None  # replaced or cut while it was read
        if now != before and im.size != now.size:
            return None  # grown while read, and the rows do not reach its end
        try:
            part = cut_part(index, mno, *links.get(mno, ([], [])))
        except (TypeError, ValueError) as exc:  # an id JSON cannot hold
            log.debug("%s: not cached: %s", im.member.name, exc)
            return None
        meta = part.meta
        bad = meta["bad"]
        last_whole = not bad or bad[-1][0] != meta["rows"] - 1 or bad[-1][1]
        meta["resume"] = im.size == now.size and now.ends_line and last_whole
        meta["lines"] = im.lines
        meta["id"] = now.as_list()
        meta["scanned_ns"] = self.scanned.get(pos, self.started_ns)
        return meta, part.blobs


def _links_by_member(index: RunIndex) -> dict[int, tuple[list[int], list[str]]]:
    """Member → the rows and parent ids of its parent links, in the index's order."""
    links = index.links()
    if not links:
        return {}
    rows, parents = (list(column) for column in zip(*links, strict=True))
    mnos = list(map(index.member_no.__getitem__, rows))
    out: dict[int, tuple[list[int], list[str]]] = {}
    if mnos == sorted(mnos):  # members are filled one after another: each one's links a slice
        for mno in dict.fromkeys(mnos):
            i, j = bisect_left(mnos, mno), bisect_right(mnos, mno)
            out[mno] = (rows[i:j], parents[i:j])
        return out
    for mno, row, pid in zip(mnos, rows, parents, strict=True):
        got = out.setdefault(mno, ([], []))
        got[0].append(row)
        got[1].append(pid)
    return out


def _write_entry(path: str, parts: list[tuple[dict[str, Any], list[bytes | memoryview]]]) -> bool:
    body: list[bytes | memoryview] = []
    at = 0
    crc = 0
    metas = []
    for meta, blobs in parts:
        spans = []
        for blob in blobs:
            spans.append([at, len(blob)])
            at += len(blob)
            crc = zlib.crc32(blob, crc)
            body.append(blob)
        metas.append({**meta, "blobs": spans})
    header = orjson.dumps(
        {
            "version": VERSION,
            "fingerprint": fingerprint(),
            "byteorder": sys.byteorder,
            "body": [at, crc],
            "parts": metas,
        }
    )
    chunks = [MAGIC, len(header).to_bytes(4, "little"), header, *body]
    return atomic_write(path, chunks)


def run_size(run: Run) -> int:
    total = 0
    for m in run.members:
        with contextlib.suppress(OSError):
            total += os.stat(m.path).st_size
    return total


def worth_caching(run: Run) -> bool:
    """Whether ``run`` is big enough for an entry (see :data:`MIN_RUN_BYTES`)."""
    return run_size(run) >= MIN_RUN_BYTES


def plan_for(run: Run) -> Plan | None:
    """The cache's plan for building ``run``: None when the cache is off or unusable, or for
    an imported trace (converted afresh each time)."""
    if not enabled() or run.source_format is not None or not worth_caching(run):
        return None
    folder = cache_folder()
    if folder is None:
        return None
    try:
        return Plan(run, folder)
    except OSError as exc:
        log.debug("cache not used for %s: %s", run.base, exc)
        return None
