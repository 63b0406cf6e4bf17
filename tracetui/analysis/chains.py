"""Retry chains: trees built from ``parent_command_id`` over an index's rows.

A span may be retried more than once (a branch); a parent may be missing from the set (rotated
away); ids may repeat and parents may form a cycle. Every walk here carries a visited set, so bad
data can make a chain odd but never makes a loop infinite.

A chain of thousands of attempts is walked once, not once per row: roots are memoised for every
row a walk passes, and the last trees built are kept, both for as long as the index has not
grown (issue 13: exporting one 8,000-span chain walked 32 million parent links).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import itemgetter
from typing import cast

from tracetui.model.flags import TRUNCATED
from tracetui.store.fastindex import chain_groups
from tracetui.store.id_registry import rows_of
from tracetui.store.index import RunIndex

PARENT_MISSING = "parent not in set (rotated away?)"
_ON_PATH = -1
"""A walk's mark on the rows it has passed but not yet found the root of (rows are >= 0)."""
TREES_KEPT = 16
"""Trees kept built (the viewer redraws the same chain on every step along it)."""

_CUT = bytes(1 if f & TRUNCATED else 0 for f in range(256))
"""Row flags → 1 for a cut row."""


def cut_parents(index: RunIndex, rows: Iterable[int]) -> dict[int, int]:
    """Row → its parent's row, for the ``rows`` (of those committed) cut like their parent, in
    the order given (a retry TT021 may call blind: it asks the retry to cut again what its
    parent cut). The flags are read and the parent ids looked up in bulk."""
    n, flags, parent_ids = len(index), index.flags, index.parent_ids
    cut = flags[:n].tobytes().translate(_CUT)
    rows = list(rows)
    if rows and max(rows) >= n:  # rows not committed yet (a follower's)
        rows = [r for r in rows if r < n]
    # The cut rows naming a parent, kept in order, at C speed.
    linked = list(compress(rows, map(cut.__getitem__, rows)))
    linked = list(compress(linked, map(parent_ids.__contains__, linked)))
    prows = rows_of(index.id_rows, list(map(parent_ids.__getitem__, linked)))
    return {
        row: prow
        for row, prow in zip(linked, prows, strict=True)
        if prow is not None and prow != row and flags[prow] & TRUNCATED
    }


@dataclass(slots=True)
class ChainNode:
    """One attempt in a retry tree."""

    row: int
    attempt: int
    """1 for the root, 2 for a retry of it, and so on (depth + 1)."""
    children: list[ChainNode] = field(default_factory=list)


@dataclass(slots=True)
class Chain:
    """The retry tree a row belongs to (shared between the rows asking: read it, don't change it)."""

    root: ChainNode
    missing_parent: str | None = None
    """The root's parent id when that parent is not in the set."""
    cycle: bool = False
    """True when the parents loop back on themselves (the loop is cut at the root)."""

    def rows(self) -> list[int]:
        """Every row of the tree, in set order."""
        out: list[int] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            out.append(node.row)
            stack.extend(node.children)
        return sorted(out)

    def nodes(self) -> list[ChainNode]:
        """Nodes depth-first, children in set order (the order the tree is drawn in)."""
        out: list[ChainNode] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(reversed(node.children))
        return out


class ChainIndex:
    """Children lists and root lookups for one index, rebuilt when the index grows."""

    def __init__(self, index: RunIndex) -> None:
        self.index = index
        self._seen = -1
        """Index generation at the last refresh."""
        self._linked = 0
        """Parent links of the index already linked."""
        self._children: dict[int, list[int]] = {}
        self._waiting: dict[str, list[int]] = {}
        """Parent id → rows naming it, for parents not (yet) in the set: a live run may bring them."""
        self._stamp = (-1, -1)
        """``(generation, committed rows)`` of the index the two caches below were filled from."""
        self._roots: dict[int, tuple[int, bool]] = {}
        """Row → :meth:`root_of`, for rows that name a parent."""
        self._trees: dict[int, Chain] = {}
        """Root row → its tree, the last :data:`TREES_KEPT` built."""

    def prepare(self) -> ChainIndex:
        """Link every row committed so far now (itself, for chaining): a viewer does it on its
        indexing thread, where the first chain drawn of a million-row run would otherwise take
        the UI thread half a second."""
        self._refresh()
        return self

    def _refresh(self) -> None:
        """Link the rows committed since the last call (incremental: a live run grows by batches).

        Only rows that name a parent are visited (the index's parent links, from where the last
        call stopped), so a million-row index costs its retries, not its rows. The links are a
        copy taken under the index's lock: the follower may append meanwhile.
        """
        index = self.index
        generation = index.generation
        if generation == self._seen:
            return
        n = len(index)
        links = index.links(self._linked)
        self._linked += len(links)
        id_rows = index.id_rows
        children, waiting = self._children, self._waiting
        touched: set[int] = set()
        # Every parent id looked up in one pass (a million-row index has tens of thousands).
        prows = rows_of(id_rows, list(map(itemgetter(1), links)))
        for (row, pid), prow in zip(links, prows, strict=True):
            if prow is None or prow >= n:
                waiting.setdefault(pid, []).append(row)
            elif prow != row:
                children.setdefault(prow, []).append(row)
                touched.add(prow)
        # Parents that arrived after their retries (out of order, or a member read late).
        pending = list(waiting)
        for pid, prow in zip(pending, rows_of(id_rows, pending), strict=True):
            if prow is None or prow >= n:
                continue
            children.setdefault(prow, []).extend(k for k in waiting.pop(pid) if k != prow)
            touched.add(prow)
        for prow in touched:  # insertion order is not always row order (patched slow rows)
            children[prow].sort()
        self._seen = generation

    def parent_row(self, row: int) -> int | None:
        pid = self.index.parent_ids.get(row)
        if pid is None:
            return None
        prow = self.index.id_rows.get(pid)
        # A parent registered but not yet committed is not there yet for readers.
        return None if prow is None or prow == row or prow >= len(self.index) else prow

    def _caches(self) -> tuple[int, int]:
        """The index's stamp now, with the caches emptied if they were filled at another one.

        Any commit can bring a parent that was missing (changing the root of its whole tree) or
        close a cycle, so the caches hold only while the index stands still; a frozen index (an
        export, a viewer not following) keeps them for good.
        """
        index = self.index
        stamp = (index.generation, len(index))
        if stamp != self._stamp:
            self._roots.clear()
            self._trees.clear()
            self._stamp = stamp
        return stamp

    def root_of(self, row: int) -> tuple[int, bool]:
        """``(root row, cycle found)`` walking parents up from ``row``.

        Every row the walk passes shares its answer (their walks are the tail of this one, and
        a loop is cut at its earliest row whichever member reaches it), so all are remembered:
        asking for each row of an n-row chain costs n steps in all, not n².
        """
        stamp = self._caches()
        roots = self._roots
        hit = roots.get(row)
        if hit is not None:
            return hit
        path = [row]
        on_path = {row}
        current = row
        while True:
            prow = self.parent_row(current)
            if prow is None:
                result = (current, False)
                break
            hit = roots.get(prow)
            if hit is not None:
                result = hit
                break
            if prow in on_path:
                # A loop: cut it at its earliest row so every member agrees on one root.
                result = (min(self._loop_from(prow)), True)
                break
            path.append(prow)
            on_path.add(prow)
            current = prow
        # A row naming no parent is answered in one step: not worth a cache entry per row. A
        # walk the index moved under (a follower committing meanwhile) is not remembered.
        if result != (row, False) and (self.index.generation, len(self.index)) == stamp:
            for r in path:
                roots[r] = result
        return result

    def _loop_from(self, start: int) -> set[int]:
        loop = {start}
        current = self.parent_row(start)
        while current is not None and current not in loop:
            loop.add(current)
            current = self.parent_row(current)
        return loop

    def chain(self, row: int) -> Chain:
        """The whole tree ``row`` belongs to (built once per root while the index stands still)."""
        self._refresh()
        stamp = self._caches()
        root_row, cycle = self.root_of(row)
        # root_of reads the index as it is now: a parent a follower committed since the refresh
        # (a retry's parent arriving after it) leads it to a root whose children here do not yet
        # reach ``row``. Linked again after the walk, the tree holds every link it went up by.
        self._refresh()
        kept = self._trees.get(root_row)
        if kept is not None and (self.index.generation, len(self.index)) == stamp:
            return kept  # (built at this very stamp; a walk the index moved under builds anew)
        root = ChainNode(root_row, 1)
        seen = {root_row}
        stack = [root]
        while stack:
            node = stack.pop()
            for child in self._children.get(node.row, ()):
                if child in seen:
                    cycle = True
                    continue
                seen.add(child)
                cnode = ChainNode(child, node.attempt + 1)
                node.children.append(cnode)
                stack.append(cnode)
        missing = None
        pid = self.index.parent_ids.get(root_row)
        if pid is not None and pid not in self.index.id_rows:
            missing = pid
        chain = Chain(root, missing, cycle)
        # Kept only when the links above were refreshed at the very stamp it was built at.
        if self._seen == stamp[0] and (self.index.generation, len(self.index)) == stamp:
            if len(self._trees) >= TREES_KEPT:
                del self._trees[next(iter(self._trees))]
            self._trees[root_row] = chain
        return chain

    def _linked_rows(self) -> list[int]:
        """Committed rows that name a parent (a snapshot: safe while the run grows)."""
        return list(map(itemgetter(0), self.index.links()))

    def multi_attempt_chains(self) -> list[Chain]:
        """Every chain of two or more attempts, in the set order of their roots."""
        self._refresh()
        roots: dict[int, bool] = {}
        for row in self._linked_rows():
            root, _cycle = self.root_of(row)
            roots[root] = True
        chains = [self.chain(r) for r in sorted(roots)]
        return [c for c in chains if c.root.children]

    def _parent_rows(self, rows: list[int]) -> dict[int, int]:
        """:meth:`parent_row` of each of ``rows`` that has one, found in one pass: the parent
        ids looked up together, not one registry look-up per row (~4 µs each)."""
        index = self.index
        n = len(index)
        pids = list(map(index.parent_ids.get, rows))
        if None in pids:  # a row linked but not (or no longer) naming a parent: none has one
            rows = [row for row, pid in zip(rows, pids, strict=True) if pid is not None]
            pids = [pid for pid in pids if pid is not None]
        prows = rows_of(index.id_rows, cast("list[str]", pids))
        # The same tests as parent_row: known, not the row itself, committed.
        return {
            row: prow
            for row, prow in zip(rows, prows, strict=True)
            if prow is not None and prow != row and prow < n
        }

    def groups(self) -> dict[int, list[int]]:
        """Root row → every row of its tree in set order, for trees of two or more rows.

        The summary's view of chains, without building node objects (or the children map): for
        a million-span run with tens of thousands of retries this is what keeps ``summary`` quick.
        Parents are resolved for every linked row at once, then the walks read a plain dict.
        """
        linked = self._linked_rows()
        index = self.index
        n = len(index)
        pids = list(map(index.parent_ids.get, linked))
        if None not in pids:  # (else a row no longer names a parent: the dict below)
            # The parent rows as they come, judged in C as _parent_rows judges them.
            prows = rows_of(index.id_rows, cast("list[str]", pids))
            walked = chain_groups(linked, prows, n)
            if walked is not None:  # the same walks in C (fastindex.chain_groups), when built
                return walked
        parent_of = self._parent_rows(linked).get
        walked = chain_groups(linked, list(map(parent_of, linked, repeat(-1))))
        if walked is not None:
            return walked
        return self._walk_groups(linked, parent_of)

    @staticmethod
    def _walk_groups(
        linked: list[int], parent_of: Callable[[int], int | None]
    ) -> dict[int, list[int]]:
        """:meth:`groups`' walks in Python (the reference the C walk is tested against)."""
        root_memo: dict[int, int] = {}  # row → root; _ON_PATH while its walk is under way
        for row in linked:
            if row in root_memo:
                continue
            path = [row]
            root_memo[row] = _ON_PATH
            current = root = row
            while True:
                parent = parent_of(current)
                if parent is None:
                    root = current
                    break
                known = root_memo.get(parent)
                if known is None:
                    path.append(parent)
                    root_memo[parent] = _ON_PATH
                    current = parent
                    continue
                if known == _ON_PATH:
                    # A loop closing at `current`: cut at its earliest row, as root_of does.
                    loop = {current}
                    step = parent_of(current)
                    while step is not None and step not in loop:
                        loop.add(step)
                        step = parent_of(step)
                    root = min(loop)
                else:
                    root = known
                break
            for r in path:
                root_memo[r] = root
        groups: dict[int, list[int]] = {}
        for row, root in root_memo.items():
            groups.setdefault(root, []).append(row)
        for root, rows in groups.items():
            if root not in root_memo:
                rows.append(root)
            rows.sort()
        return {r: groups[r] for r in sorted(groups) if len(groups[r]) > 1}

    def cycles(self) -> list[list[int]]:
        """Each retry cycle once, as its rows in set order (the parents looked up in bulk)."""
        found: list[list[int]] = []
        seen: set[int] = set()
        linked = self._linked_rows()
        parent_of = self._parent_rows(linked).get
        for row in linked:
            if row in seen:
                continue
            path: list[int] = []
            on_path: set[int] = set()
            current: int | None = row
            while current is not None and current not in on_path and current not in seen:
                path.append(current)
                on_path.add(current)
                current = parent_of(current)
            if current is not None and current in on_path:
                found.append(sorted(path[path.index(current) :]))
            seen.update(path)
        return found
