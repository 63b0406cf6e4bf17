"""The truncation judgement of one stream, made in one place (SPEC §2).

Every Python path that decides whether a stream was cut, and how many bytes the consumer never
saw, calls :func:`judge_stream`: normalisation into a Span (``tracetui.model.spans.normalize``)
and the index's fast facts (``tracetui.model.facts.quick_facts``, behind
``tracetui.store.reader.parse_facts``), so the two cannot drift. The C scanner
(``tracetui/store/_scan.c``) copies the rule for the lines it judges itself and hands every other
line back to Python; tests/unit/test_judgement.py runs the same odd records through all three.
"""

from __future__ import annotations

from tracetui.model.markers import Marker

HIDDEN_LIMIT = 1 << 53
"""Hidden bytes this large (8 PiB) are not believed: the record lies, so they are "unknown".

It also keeps the index's 64-bit column, and sums over it, clear of overflow. The C scanner uses
the same value (exported as ``_scan.HIDDEN_LIMIT``; a test checks that they agree).
"""


def judge_stream(
    nbytes: int | None,
    cap: int | None,
    flag: bool | None,
    marker: Marker | None,
    head_bytes: int | None,
    tail_bytes: int | None,
) -> tuple[bool | None, int | None]:
    """``(truncated, hidden bytes)`` of one stream, from what its record says.

    Truncated when the flag is true, OR bytes exceed the cap, OR the preview carries a known
    marker; None ("truncation unknown") when there is no byte count, no flag and no marker;
    else False. A dialect without byte counts (feedback records) passes None for them. Values
    of the wrong type never get here: the caller has already dropped them (and noted why).
    """
    if (
        flag is True
        or (nbytes is not None and cap is not None and nbytes > cap)
        or marker is not None
    ):
        return True, _hidden(nbytes, cap, marker, head_bytes, tail_bytes)
    if nbytes is None and flag is None:
        return None, None
    return False, 0


def _hidden(
    nbytes: int | None,
    cap: int | None,
    marker: Marker | None,
    head_bytes: int | None,
    tail_bytes: int | None,
) -> int | None:
    """Hidden bytes of a truncated stream: bytes - head - tail when a window length is recorded,
    else bytes - cap, else the marker's count (for characters a lower bound: a character is a
    byte or more); never below 0, and None when nothing tells or the number is not credible."""
    if nbytes is not None and (head_bytes is not None or tail_bytes is not None):
        hidden = nbytes - (head_bytes or 0) - (tail_bytes or 0)
    elif nbytes is not None and cap is not None:
        hidden = nbytes - cap
    elif marker is not None and marker.unit in ("bytes", "chars") and marker.count is not None:
        hidden = marker.count
    else:
        return None
    if hidden >= HIDDEN_LIMIT:
        return None
    return max(0, hidden)
