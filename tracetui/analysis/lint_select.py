"""Which rows ``tracetui lint`` must read, from the index's columns (lint at summary speed).

The C scanner marks each row with the rules that may fire on it (:mod:`tracetui.model.marks`):
a mark is conservative (it may be set where nothing fires, never missing where something
does), and on a row the scanner judged its HEAD_CUT and SAYS_PASS verdicts are exact. Lint
reads only

- rows with a :data:`~tracetui.model.marks.FULL_READ` mark (a secret word, a contract field that
  may be broken, a field of an odd type, an imported record, a cut of unknown size), and rows
  the scanner did not judge (marked ``ALL``: bad lines, the scanner's slow lines, re-runs, rows
  read line by line);
- rows where the scanner's verdicts say TT019 or TT022 fires: HEAD_CUT on a row that failed with
  an exit code and was cut, SAYS_PASS on a row that failed with an exit code or was cut
  (``summary``'s suspicion count reads the same verdicts as they are). A failed or cut row with
  neither, and no FULL_READ mark, fires nothing.

Most of the rows read carry no FULL_READ mark: only TT019 and TT022 may fire on them, and lint
judges them from a few fields (:mod:`tracetui.analysis.lint_marked`).

Every other row can fire no per-record rule, so it is not read; the whole-run rules (TT010–TT012,
TT018, TT021) use the columns and read what they need themselves. TT015, the slowest rule (every
redaction pattern over every text), is given only the rows marked SECRET.

The selection is only as sound as the marks, so it gives up (every row is read, with every rule)
when the index has no marks for some row, or when a rule or redaction pattern exists that the
marks were not written for: :data:`MARKED_RULES` and ``SECRET_HINTS`` name what they cover.
tests/unit/test_lint_fast.py compares this path with the full reading on every fixture.
"""

from __future__ import annotations

from collections.abc import Iterable

from tracetui.analysis.lint_registry import RULES
from tracetui.analysis.raw_lines import RawLines, columns_and, columns_or, ones
from tracetui.model import marks
from tracetui.model.flags import FAILED, NULL_EXIT, TRUNCATED
from tracetui.store.index import RunIndex

SECRET_RULE = "TT015"
"""The rule given only the rows marked SECRET."""
MARKED_RULES = frozenset(
    {f"TT{n:03d}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 14, 15, 16, 17, 19, 20, 22, 23, 24, 25)}
)
"""The per-record rules the marks and flags were written for (TT016, invalid UTF-8, is a line
the scanner leaves to Python: marked ALL)."""

Selection = list[tuple[int, bool]]
"""``(row, secrets)`` in row order: the rows to read, and whether TT015 must look at each."""

# Byte value → 1 when the marks send the row to the full reading.
_READ_MARKS = bytes(1 if m & marks.FULL_READ else 0 for m in range(256))
_HEAD_CUT = bytes(1 if m & marks.HEAD_CUT else 0 for m in range(256))
_SAYS_PASS = bytes(1 if m & marks.SAYS_PASS else 0 for m in range(256))
_SECRET_MARKS = bytes(1 if m & marks.SECRET else 0 for m in range(256))
# Flags → 1 for a row that exited nonzero with a code and was cut (TT019 may fire) / that
# exited nonzero with a code or was cut (TT022 may fire).
_FAILED_CUT = bytes(
    1 if f & TRUNCATED and f & FAILED and not f & NULL_EXIT else 0 for f in range(256)
)
_FAILED_OR_CUT = bytes(
    1 if f & TRUNCATED or (f & FAILED and not f & NULL_EXIT) else 0 for f in range(256)
)


def selection_usable(index: RunIndex) -> bool:
    """Whether the marks can choose the rows: every row has them, and they cover every rule."""
    record_rules = {r.code for r in RULES.values() if r.on in ("tool", "record")}
    if not record_rules <= MARKED_RULES:
        return False  # a rule the marks know nothing of: it must see every row
    from tracetui.record.redact import Redactor  # lint's alone: summary need not compile it

    if not {r.name for r in Redactor().all_rules()} <= marks.SECRET_HINTS.keys():
        return False  # a redaction pattern without its words: TT015 must see every row
    return len(index.marks) >= len(index)


def rows_to_read(index: RunIndex) -> Selection:
    """The rows lint must read, in row order, each with whether TT015 must look at it.

    Call :func:`selection_usable` first; this trusts the marks.
    """
    n = len(index)
    row_marks = index.marks[:n].tobytes()
    flags = index.flags[:n].tobytes()
    head_cut = columns_and(row_marks.translate(_HEAD_CUT), flags.translate(_FAILED_CUT))
    says_pass = columns_and(row_marks.translate(_SAYS_PASS), flags.translate(_FAILED_OR_CUT))
    read = columns_or(row_marks.translate(_READ_MARKS), columns_or(head_cut, says_pass))
    secret = row_marks.translate(_SECRET_MARKS)
    chosen = ones(read)
    unmarked = _secrets_unmarked(index, (r for r in chosen if row_marks[r] == marks.ALL))
    return [(row, secret[row] == 1 and unmarked.get(row, True)) for row in chosen]


def _secrets_unmarked(index: RunIndex, rows: Iterable[int]) -> dict[int, bool]:
    """Row → whether TT015 must look at it, for rows the scanner did not mark (its slow lines):
    the same search over the raw line's bytes (a bad line, or one not where the index says,
    is read whatever this says)."""
    out = {}
    bad = index.bad
    with RawLines(index) as raw:
        for row in rows:
            got = None if row in bad else raw.locate(row)
            if got is not None:
                buf, start, end = got
                out[row] = marks.line_may_hold_secret(buf[start:end])
    return out
