"""Retry chains: trees built from ``parent_command_id`` over an index's rows.

A span may be retried more than once (a branch); a parent may be missing from the set (rotated
away); ids may repeat and parents may form a cycle. Every walk here carries a visited set, so bad
data can make a chain odd but never makes a loop infinite.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tracetui.core.index import RunIndex

PARENT_MISSING = "parent not in set (rotated away?)"


@dataclass(slots=True)
class ChainNode:
    """One attempt in a retry tree."""

    row: int
    attempt: int
    """1 for the root, 2 for a retry of it, and so on (depth + 1)."""
    children: list["ChainNode"] = field(default_factory=list)


@dataclass(slots=True)
class Chain:
    """The retry tree a row belongs to."""

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
        self._seen = 0
        """Rows already linked into ``_children``."""
        self._children: dict[int, list[int]] = {}
        self._waiting: dict[str, list[int]] = {}
        """Parent id → rows naming it, for parents not (yet) in the set: a live run may bring them."""

    def _refresh(self) -> None:
        """Link the rows appended since the last call (incremental: a live run grows by batches)."""
        index = self.index
        n = len(index)
        if n == self._seen:
            return
        parent_ids, id_rows, ids = index.parent_ids, index.id_rows, index.ids
        children, waiting = self._children, self._waiting
        for row in range(self._seen, n):
            pid = parent_ids.get(row)
            if pid is not None:
                prow = id_rows.get(pid)
                if prow is None:
                    waiting.setdefault(pid, []).append(row)
                elif prow != row:
                    children.setdefault(prow, []).append(row)
            cid = ids[row]
            if cid is not None and cid in waiting and id_rows.get(cid) == row:
                # A parent arriving after its retries (out of order, or a member read late).
                kids = children.setdefault(row, [])
                kids.extend(k for k in waiting.pop(cid) if k != row)
                kids.sort()
        self._seen = n

    def parent_row(self, row: int) -> int | None:
        pid = self.index.parent_ids.get(row)
        if pid is None:
            return None
        prow = self.index.id_rows.get(pid)
        return None if prow == row else prow

    def root_of(self, row: int) -> tuple[int, bool]:
        """``(root row, cycle found)`` walking parents up from ``row``."""
        seen = {row}
        current = row
        while True:
            prow = self.parent_row(current)
            if prow is None:
                return current, False
            if prow in seen:
                # A loop: cut it at its earliest row so every member agrees on one root.
                loop = self._loop_from(prow)
                return min(loop), True
            seen.add(prow)
            current = prow

    def _loop_from(self, start: int) -> set[int]:
        loop = {start}
        current = self.parent_row(start)
        while current is not None and current not in loop:
            loop.add(current)
            current = self.parent_row(current)
        return loop

    def chain(self, row: int) -> Chain:
        """The whole tree ``row`` belongs to."""
        self._refresh()
        root_row, cycle = self.root_of(row)
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
        return Chain(root, missing, cycle)

    def multi_attempt_chains(self) -> list[Chain]:
        """Every chain of two or more attempts, in the set order of their roots."""
        self._refresh()
        roots: dict[int, bool] = {}
        for row in self.index.parent_ids:
            root, _cycle = self.root_of(row)
            roots[root] = True
        chains = [self.chain(r) for r in sorted(roots)]
        return [c for c in chains if c.root.children]

    def cycles(self) -> list[list[int]]:
        """Each retry cycle once, as its rows in set order."""
        found: list[list[int]] = []
        seen: set[int] = set()
        for row in self.index.parent_ids:
            if row in seen:
                continue
            path: list[int] = []
            on_path: set[int] = set()
            current: int | None = row
            while current is not None and current not in on_path and current not in seen:
                path.append(current)
                on_path.add(current)
                current = self.parent_row(current)
            if current is not None and current in on_path:
                found.append(sorted(path[path.index(current):]))
            seen.update(path)
        return found
