"""How ``summary`` counts suspicions fast: the reading behind
:func:`tracetui.analysis.suspicions.count_suspicions` and ``suspicious_rows``.

On a tracetui run only failed or cut rows and retries of cut rows can fire, and of those only
the ones the scanner's row marks (:mod:`tracetui.model.marks`) do not rule out (the index's
columns say which: :func:`candidates`). Where the scanner gave TT019's, TT020's and TT022's
verdicts in the marks (a row of ours it judged, that no contract rule may stop and no field of
an odd type spoils) the row is counted from them. The other lines are read again (each on its
own when few are left, else in large reads of their members: :class:`RawLines`), looked at as
bytes first (the note; for rows the scanner left to Python, the schema and the byte counts too),
and judged from their fields with the rules' own predicates and the one truncation judgement;
retries, imported records and records of unexpected types go to the rules themselves
(``check_record``). On an imported run every call is asked. Tests check the counts against
lint's on every rule's cases, on random records of every dialect and on a set of hostile rows
(tests/unit/test_lint_fast.py, tests/unit/test_cold_sum_notes.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import compress
from typing import Any

from tracetui.analysis.chains import cut_parents
from tracetui.analysis.lint import check_record
from tracetui.analysis.lint_incidents import (
    blind_retry,
    may_retry_blind,
    stated_clip,
    unknown_size_reason,
)
from tracetui.analysis.lint_registry import RULES, Rule
from tracetui.analysis.lint_rules import missing_contract_keys
from tracetui.analysis.notes import predicted_success
from tracetui.analysis.raw_lines import (
    RawLines,
    columns_and,
    columns_or,
    json_string,
    load_json,
    ones,
    value_at,
)
from tracetui.analysis.record_evidence import NotPlain, own_dialect, stream_evidence
from tracetui.model import marks
from tracetui.model.fields import as_text
from tracetui.model.flags import BAD, FAILED, NO_VALUE, NULL_EXIT, SIDECAR, TRUNCATED
from tracetui.model.spans import FEEDBACK, STREAMS, NotASpan, Span, normalize
from tracetui.store.index import RunIndex

CODES = ("TT019", "TT020", "TT021", "TT022", "TT023", "TT024", "TT025")
"""The incident rules, in code order (every one is a key of ``count_suspicions``)."""
RETRY = "TT021"
"""The one incident rule that needs another span (the retry's parent)."""


def record_rules() -> tuple[Rule, ...]:
    """The incident rules given one record, with the gate (TT001): a record it stops gets no
    other finding from lint, so none here either."""
    return tuple(
        r for r in RULES.values() if r.on in ("tool", "record") and (r.code in CODES or r.gate)
    )


def truncated_parent(index: RunIndex, row: int) -> int | None:
    """The row of ``row``'s parent when that parent was cut (a retry TT021 may judge)."""
    pid = index.parent_ids.get(row)
    prow = index.id_rows.get(pid) if pid is not None else None
    if prow is None or prow == row or not index.flags[prow] & TRUNCATED:
        return None
    return prow


def scan(index: RunIndex, first: int = 0) -> Iterator[tuple[int, set[str]]]:
    """``(row, codes)`` for each row from ``first`` that fires, in set order.

    Most rows of ours are judged from the scanner's verdicts in their marks and flags alone
    (HEAD_CUT, UNSIZED, SAYS_PASS: :func:`_by_marks`), and are not read. Of the rest, a row
    whose only possible finding is TT022 is judged from its flags and its note alone: the
    rule asks exactly that (a real nonzero exit or a cut, and a note predicting success), and
    the flags are the same judgement the span makes. A cut row is judged from its fields with
    the rules' predicates; retries, imported records and odd types are given to the rules
    themselves.
    """
    rows, parents, judged = _plan(index, first)
    return _walk(index, rows, parents, judged, with_judged=True)


def count(index: RunIndex) -> dict[str, int]:
    """Rows firing each code of :data:`CODES` (``count_suspicions``): the rows the marks judge
    summed over the columns at C speed, the others walked as :func:`scan` walks them."""
    counts = dict.fromkeys(CODES, 0)
    rows, parents, judged = _plan(index, 0)
    if judged is not None:
        n = len(judged)
        flags, row_marks = index.flags[:n].tobytes(), index.marks[:n].tobytes()
        failed_cut = columns_and(judged, flags.translate(_FAILED_CUT))
        failed_or_cut = columns_and(judged, flags.translate(_FAILED_OR_CUT))
        counts["TT019"] = columns_and(failed_cut, row_marks.translate(_HEAD_CUT)).count(1)
        counts["TT020"] = columns_and(judged, row_marks.translate(_UNSIZED)).count(1)
        counts["TT022"] = columns_and(failed_or_cut, row_marks.translate(_SAYS_PASS)).count(1)
        # Only the rows the marks leave are walked: picked at C speed, not skipped one by one.
        rows = list(compress(rows, map(judged.translate(_NOT).__getitem__, rows)))
    for _row, codes in _walk(index, rows, parents, None, with_judged=False):
        for code in codes:
            counts[code] += 1
    return counts


def _plan(index: RunIndex, first: int) -> tuple[list[int], dict[int, int], bytes | None]:
    """The rows from ``first`` to look at, in order, each retry's cut parent, and the 0/1
    column of the rows the marks judge (None when none are: an imported run, no marks)."""
    n = len(index)
    if index.run.source_format is not None:  # an imported run: small, every row may fire
        return list(range(first, n)), cut_parents(index, range(first, n)), None
    rows, parents = candidates(index, first)
    if len(index.marks) < n:
        return rows, parents, None
    may = bytearray(n)
    for row in rows:
        may[row] = 1
    for row in parents:  # a retry of a cut row: TT021 needs both records
        may[row] = 0
    return rows, parents, columns_and(bytes(may), index.marks[:n].tobytes().translate(_BY_MARKS))


def _walk(
    index: RunIndex,
    rows: list[int],
    parents: dict[int, int],
    judged: bytes | None,
    *,
    with_judged: bool,
) -> Iterator[tuple[int, set[str]]]:
    """``(row, codes)`` of the firing ``rows``; the rows ``judged`` marks only ``with_judged``.
    (Written flat: it runs once per failed or cut row of a run, and ``summary`` must stay
    fast.)"""
    rules = record_rules()
    flags, hidden = index.flags, index.hidden
    whole = index.run.source_format is not None
    n = len(index)
    # The scanner's marks, where it judged the row: exact for what they say (a record imported,
    # a cut of unknown size); the byte looks are for the rows it left to Python.
    row_marks = index.marks if len(index.marks) >= n else None
    left = len(rows) - (0 if judged is None else judged.count(1))
    # Few rows left to read, far apart (the scanner's verdicts gave the others): a read each.
    with RawLines.for_rows(index, left) as raw:
        for row in rows:
            f = flags[row]
            m = marks.ALL if row_marks is None else row_marks[row]
            if f & (BAD | SIDECAR):
                continue
            if judged is not None and judged[row]:
                if with_judged:
                    said = _by_marks(f, m)  # the scanner's verdicts: nothing to read
                    if said:
                        yield row, said
                continue
            parent = parents.get(row)
            got = raw.locate(row)
            if got is None:
                continue
            buf, start, end = got
            obj = parent_obj = None
            if parent is not None:
                obj, parent_data = load_json(buf[start:end]), raw.line(parent)
                parent_obj = load_json(parent_data) if parent_data is not None else None
                if not may_retry_blind(obj, parent_obj):
                    parent_obj = None  # another command: no blind retry
                    if _BY_MARKS[m]:  # then the scanner's verdicts, as for any other row
                        said = _by_marks(f, m)
                        if said:
                            yield row, said
                        continue
            cut = f & TRUNCATED
            failed = f & FAILED and not f & NULL_EXIT  # a real nonzero exit
            codes: set[str] | None = None
            known = m != marks.ALL
            if (
                whole
                or parent_obj is not None
                or (m & marks.IMPORTED if known else _imported(buf, start, end))
            ):
                pass  # the rules themselves (imported records; a retry to compare)
            elif cut and (
                failed
                or hidden[row] == NO_VALUE
                or (m & marks.UNSIZED if known else not _byte_counts(buf, start, end))
            ):
                # TT019 or TT020 may fire: they need the streams' evidence (TT022 comes along).
                obj = load_json(buf[start:end]) if obj is None else obj
                codes = _stream_codes(obj, bool(failed))
            elif (cut or failed) and _note_fires(buf, start, end, m):
                codes = {"TT022"}
            else:
                continue
            if codes is None:
                record = load_json(buf[start:end]) if obj is None else obj
                codes = _by_rules(rules, record, parent_obj)
            if codes:
                yield row, codes


_RULES_READ = marks.CONTRACT | marks.TYPES | marks.IMPORTED
"""Marks of a row whose verdicts the scanner's marks do not give: TT001 may stop it, a field the
verdicts read may be of another type, or it is an imported record (the rules judge those)."""


_BY_MARKS = bytes(0 if m == marks.ALL or m & _RULES_READ else 1 for m in range(256))
"""Row marks → 1 for a row the scanner's verdicts judge (unless it retries a cut row)."""


_HEAD_CUT = bytes(1 if m & marks.HEAD_CUT else 0 for m in range(256))
_UNSIZED = bytes(1 if m & marks.UNSIZED else 0 for m in range(256))
_SAYS_PASS = bytes(1 if m & marks.SAYS_PASS else 0 for m in range(256))
"""Row marks → 1 where the scanner's verdict says TT019 / TT020 / TT022 fires (on rows it judged)."""


def _by_marks(f: int, m: int) -> set[str]:
    """The incident codes of a row of ours from its flags ``f`` and the scanner's marks ``m``
    (HEAD_CUT, UNSIZED, SAYS_PASS: :mod:`tracetui.model.marks`), for a row none of
    :data:`_RULES_READ` marks and no retry of a cut row."""
    failed = f & FAILED and not f & NULL_EXIT  # a real nonzero exit
    cut = f & TRUNCATED
    codes = set()
    if failed and cut and m & marks.HEAD_CUT:
        codes.add("TT019")
    if m & marks.UNSIZED:
        codes.add("TT020")
    if (failed or cut) and m & marks.SAYS_PASS:
        codes.add("TT022")
    return codes


def _stream_codes(obj: Any, failed: bool) -> set[str] | None:
    """TT019, TT020 and TT022 of a cut record in a tracetui dialect, judged from its fields with
    the rules' own predicates (``stated_clip``, ``unknown_size_reason``, ``predicted_success``)
    and the one truncation judgement (``judge_stream``), without building a Span. None when the
    record is not plain (a field of an unexpected type, another dialect): then the rules decide.
    ``failed``: the row's flags say it exited nonzero (with a code).
    """
    dialect = own_dialect(obj)
    if dialect is None:
        return None
    if obj.get("span_type") == "tool" and missing_contract_keys(obj):
        return set()  # TT001 stops it: lint checks nothing else on it
    codes = set()
    cut = False
    for name in STREAMS:
        try:
            truncated, nbytes, hidden, marker = stream_evidence(obj, name, dialect == FEEDBACK)
        except NotPlain:
            return None
        cut = cut or bool(truncated)
        if failed and truncated and stated_clip(obj, name, marker) == "head":
            codes.add("TT019")
        if unknown_size_reason(name, truncated, nbytes, hidden, marker) is not None:
            codes.add("TT020")
    note = obj.get("agent_note")
    if (failed or cut) and predicted_success(None if note is None else as_text(note)) is not None:
        codes.add("TT022")
    return codes


def _by_rules(rules: tuple[Rule, ...], obj: Any, parent_obj: Any) -> set[str]:
    """The incident codes a record fires, asked of the rules (TT021 against its cut parent)."""
    span = _span(obj)
    if span is None:
        return set()
    found = check_record(span.raw, span, rules)
    if found and RULES[found[0][0]].gate:
        return set()
    codes = {code for code, _msg in found if code in CODES}
    parent_span = _span(parent_obj) if parent_obj is not None else None
    if parent_span is not None and blind_retry(span, parent_span) is not None:
        codes.add(RETRY)
    return codes


_NOT = bytes([1]) + bytes(255)
"""A 0/1 column → its complement (the rows the marks do not judge)."""
_MAY_FIRE = bytes(
    1 if f & (FAILED | TRUNCATED) and not f & (BAD | SIDECAR) else 0 for f in range(256)
)
"""Row flags → 1 for a row that failed or was cut (of the trace itself), else 0."""
_FAILED_CUT = bytes(
    1 if f & TRUNCATED and f & FAILED and not f & NULL_EXIT else 0 for f in range(256)
)
"""Row flags → 1 for a row that exited nonzero with a code and was cut (TT019 may fire)."""
_FAILED_OR_CUT = bytes(
    1 if f & TRUNCATED or (f & FAILED and not f & NULL_EXIT) else 0 for f in range(256)
)
"""Row flags → 1 for a row that exited nonzero with a code or was cut (TT022 may fire)."""
_MARKED = bytes(
    1 if m == marks.ALL or m & (marks.NOTE | marks.UNSIZED | marks.IMPORTED) else 0
    for m in range(256)
)
"""Row marks → 1 for a row an incident rule other than TT019 may fire on: a note (TT022), a cut
of unknown size (TT020), an imported record, or one the scanner did not judge."""


def candidates(index: RunIndex, first: int = 0) -> tuple[list[int], dict[int, int]]:
    """Rows from ``first`` of a run in tracetui's dialects that may fire, in order: failed or
    cut rows that failed with an exit code and were cut, carry a note, were cut without a size
    or are imported records (found at C speed in the flags and the scanner's marks), and cut
    retries of cut rows; with each retry's cut parent."""
    n = len(index)
    flags = index.flags[:n].tobytes()
    may = flags.translate(_MAY_FIRE)
    if len(index.marks) >= n:
        marked = index.marks[:n].tobytes().translate(_MARKED)
        may = columns_and(may, columns_or(marked, flags.translate(_FAILED_CUT)))
    rows = set(ones(may, first))
    linked = list(index.parent_ids)
    if first:
        linked = [r for r in linked if r >= first]
    parents = cut_parents(index, linked)
    rows.update(parents)
    return sorted(rows), parents


# A byte-level look at a raw line, to tell rows that need the rules from rows that need only
# their note, without parsing them. It takes the first occurrence of a key for the record's
# own (JSON writers write each key once, plainly spelled, and tracetui's dialects put these
# before the previews, so the look stops early), and errs toward the rules.
_BYTES_KEYS = (b'"stdout_bytes"', b'"stderr_bytes"')
_NOTE_KEY = b'"agent_note"'
_SCHEMA_KEY = b'"schema"'
_OWN_SCHEMA = b'{"schema":"tracetui/'
_OWN_SCHEMA_SPACED = b'{"schema": "tracetui/'


def _imported(buf: bytes, start: int, end: int) -> bool:
    """The record's ``schema`` is ``import/…`` (or the key is there twice: the rules decide)."""
    if buf.count(_SCHEMA_KEY, start, end) > 1:
        return True
    if buf.startswith(_OWN_SCHEMA, start) or buf.startswith(_OWN_SCHEMA_SPACED, start):
        return False  # how tracetui writes a record (compact or json.dumps-spaced): at once
    at = value_at(buf, _SCHEMA_KEY, start, end)
    return at >= 0 and buf.startswith(b'"import/', at)


def _byte_counts(buf: bytes, start: int, end: int) -> bool:
    """Both streams' ``{s}_bytes`` hold a number (TT020 cannot fire then); False when a key is
    there more than once (the last one counts, or one is nested: only parsing tells), or when
    the line holds another object (its one ``{s}_bytes`` may be nested, the record's absent)."""
    if buf.count(b"{", start, end) > 1:
        return False
    for key in _BYTES_KEYS:
        if buf.count(key, start, end) > 1:
            return False
        at = value_at(buf, key, start, end)
        if at < 0 or not 0x30 <= buf[at] <= 0x39:  # not a digit: null, a string, absent
            return False
    return True


def _note_fires(buf: bytes, start: int, end: int, mark: int = marks.ALL) -> bool:
    """TT022 on a row that failed with an exit code or was cut: its note predicts success.

    ``mark``: the row's marks, when the scanner judged it: without CONTRACT, TT001 cannot stop
    the record, so a plain note decides alone; without NOTE the record has none of its own."""
    if mark != marks.ALL and not mark & marks.NOTE:
        return False  # any "agent_note" in the line is nested: it is not the record's note
    # The one occurrence of the key: the record's own, or a nested one while the record has
    # none (then nothing fires, whatever it says). Twice: only parsing tells which counts.
    once = buf.count(_NOTE_KEY, start, end) == 1
    at = value_at(buf, _NOTE_KEY, start, end)
    if at < 0 or (once and buf.startswith(b"null", at)):
        return False
    note = json_string(buf, at, end) if once else None
    if note is not None and predicted_success(note) is None:
        return False  # the common case, decided without parsing the line
    if note is not None and mark != marks.ALL and not mark & marks.CONTRACT:
        return True
    obj = load_json(buf[start:end])
    if not isinstance(obj, dict) or (obj.get("span_type") == "tool" and missing_contract_keys(obj)):
        return False  # not a record, or one TT001 stops (lint checks nothing else on it)
    value = obj.get("agent_note")
    # As the span reads it: a note of another type is its text (and a TT014 finding).
    return predicted_success(None if value is None else as_text(value)) is not None


def _span(value: Any) -> Span | None:
    if not isinstance(value, dict):
        return None
    try:
        return normalize(value)
    except NotASpan:
        return None
