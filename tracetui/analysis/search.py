"""Search over spans: argv, agent note and previews (SPEC §5 ``/``).

Matching is a plain, case-insensitive substring test (smart case: a query with a capital letter
is matched case-sensitively, as in less and vim). Bad lines match on their file, reason and text.
The walk over rows lives in :meth:`tracetui.analysis.rows.RowView.search`; the UI runs it on a
worker so a million-row run never blocks a key press.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable

from tracetui.analysis.raw_lines import RawLines
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
    raw = RawLines(index)  # members opened as their rows are first read, closed with it

    def check(row: int) -> bool:
        if index.flags[row] & BAD:
            return match(index.get(row))
        data = raw.line(row)  # None: unreadable or shorter than indexed, so parse the row
        if data is not None:
            hay = data if smart else data.lower()
            if not all(p in hay for p in pieces):
                return False
        return match(index.get(row))

    return check


def match_spans(text: str, query: str) -> list[tuple[int, int]]:
    """Where ``query`` occurs in ``text`` (smart case, as :func:`matcher`), for highlighting."""
    if not query:
        return []
    hay, needle = (text, query) if query != query.lower() else (text.lower(), query.lower())
    out = []
    start = hay.find(needle)
    while start >= 0:
        out.append((start, start + len(needle)))
        start = hay.find(needle, start + len(needle))
    return out


def count_matches(
    n: int,
    at: Callable[[int], int],
    match: Callable[[int], bool],
    found: array[int],
    *,
    progress: Callable[[int], None] = lambda scanned: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> bool:
    """Append to ``found`` every list position below ``n`` whose row (``at(pos)``) matches.

    ``found`` only grows, in order, so a reader on another thread may bisect its first entries
    while the count goes on. ``progress`` is told how many positions were scanned every 4,096.
    Returns False when ``cancelled`` stopped the count.
    """
    for pos in range(n):
        if pos % 4096 == 0 and pos:
            if cancelled():
                return False
            progress(pos)
        if match(at(pos)):
            found.append(pos)
    return True


def step_match(found: array[int], cursor: int, step: int) -> tuple[int, bool] | None:
    """The match after (``step`` 1) or before (-1) ``cursor``, and whether it wrapped round."""
    if not found:
        return None
    if step > 0:
        i = bisect_right(found, cursor)
        return (found[i], False) if i < len(found) else (found[0], True)
    i = bisect_left(found, cursor)
    return (found[i - 1], False) if i > 0 else (found[-1], True)


def ordinal(found: array[int], known: int, pos: int) -> int | None:
    """1-based number of the match at ``pos`` among the first ``known`` of ``found``, or None."""
    i = bisect_left(found, pos, 0, known)
    return i + 1 if i < known and found[i] == pos else None
