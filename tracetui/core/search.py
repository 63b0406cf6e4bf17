"""Search over spans: argv, agent note and previews (SPEC §5 ``/``).

Matching is a plain, case-insensitive substring test (smart case: a query with a capital letter
is matched case-sensitively, as in less and vim). Bad lines match on their file, reason and text.
The walk over rows lives in :meth:`tracetui.core.rows.RowView.search`; the UI runs it on a
worker so a million-row run never blocks a key press.
"""

from __future__ import annotations

from collections.abc import Callable

from tracetui.core.index import RunIndex
from tracetui.core.reader import BadLine
from tracetui.core.spans import Span


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


def row_matcher(index: RunIndex, query: str) -> Callable[[int], bool]:
    """A predicate over index rows (parses each row on demand)."""
    match = matcher(query)
    return lambda row: match(index.get(row))
