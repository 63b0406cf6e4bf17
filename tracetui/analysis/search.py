"""Search over spans: argv, agent note and previews (SPEC §5 ``/``).

Matching is a plain, case-insensitive substring test (smart case: a query with a capital letter
is matched case-sensitively, as in less and vim). Bad lines match on their file, reason and text.
The walk over rows lives in :meth:`tracetui.analysis.rows.RowView.search`; the UI runs it on a
worker so a million-row run never blocks a key press.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO

from tracetui.model.flags import BAD
from tracetui.model.spans import Span
from tracetui.store.index import RunIndex
from tracetui.store.reader import BadLine


def haystacks(item: Span | BadLine) -> list[str]:
    """The texts a query is matched against, in the order a person reads them."""
    if isinstance(item, BadLine):
        return [f"{item.file}:{item.line}", item.reason, item.text]
    texts = [" ".join(item.argv)]
    if item.tool_name:
        texts.append(item.tool_name)
    if item.agent_note:
        texts.append(item.agent_note)
    if item.command_id:
        texts.append(item.command_id)
    if item.error:
        texts.append(item.error)
    texts.append(item.stdout.preview)
    texts.append(item.stderr.preview)
    return texts


def matcher(query: str) -> Callable[[Span | BadLine], bool]:
    """A predicate for ``query`` (smart case); an empty query matches nothing."""
    if not query:
        return lambda item: False
    if query != query.lower():
        return lambda item: any(query in t for t in haystacks(item))
    q = query.lower()
    return lambda item: any(q in t.lower() for t in haystacks(item))


# Characters a JSON writer may escape: a query holding one cannot be looked for in the raw line.
_ESCAPED = set('"\\/')


def _raw_safe(query: str) -> bool:
    return query.isascii() and query.isprintable() and not (_ESCAPED & set(query))


class _RawLines:
    """Reads rows' raw bytes through one open handle per member (a search reads many rows)."""

    def __init__(self, index: RunIndex) -> None:
        self.index = index
        self.handles: dict[int, BinaryIO] = {}

    def read(self, row: int) -> bytes | None:
        ix = self.index
        mno = ix.member_no[row]
        try:
            fh = self.handles.get(mno)
            if fh is None:
                # Kept open for the rows that follow (not a `with`); close() or __del__ shuts them.
                fh = self.handles[mno] = open(ix.members[mno].readable, "rb")  # noqa: SIM115
            fh.seek(ix.offset[row])
            return fh.read(ix.length[row])
        except OSError:
            return None

    def close(self) -> None:
        for fh in self.handles.values():
            fh.close()
        self.handles.clear()

    def __del__(self) -> None:  # the matcher is dropped when its search ends
        self.close()


def row_matcher(index: RunIndex, query: str) -> Callable[[int], bool]:
    """A predicate over index rows.

    Parsing every row of a big run is slow, so for a plain ASCII query the raw line is checked
    first: if the bytes lack a space-separated piece of the query (case-folded like the query),
    no decoded field can hold the query, and the row is skipped unparsed. Rows that pass are
    matched exactly.
    """
    match = matcher(query)
    if not query or not _raw_safe(query):
        return lambda row: match(index.get(row))
    smart = query != query.lower()
    # argv is matched joined by spaces, which the raw JSON does not hold; but a space-free piece
    # of the query always lies inside one string, so each piece must be in the raw bytes.
    pieces = [p.encode() for p in (query if smart else query.lower()).split()]
    raw = _RawLines(index)

    def check(row: int) -> bool:
        if index.flags[row] & BAD:
            return match(index.get(row))
        data = raw.read(row)
        if data is not None:
            hay = data if smart else data.lower()
            if not all(p in hay for p in pieces):
                return False
        return match(index.get(row))

    return check
