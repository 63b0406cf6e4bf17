"""Suspicions: the incident rules (TT019–TT025) asked of one span, of a row, or of a whole run.

The same rule functions as ``tracetui lint`` (:mod:`tracetui.analysis.lint_incidents`), so the
summary, the viewer and lint always agree; this module only chooses which rows to ask.

- :func:`suspicions_of` (a span) and :func:`suspicions_at` (a row of an index, with the retry
  rule, which needs the row's parent) are for the detail pane: one or two parsed rows.
- :func:`may_be_suspicious` says from the index's columns alone whether a row could fire, and
  :func:`next_suspicious` walks to the next row that does: for the list's marks and its keys.
- :func:`count_suspicions` is ``summary --json``'s ``suspicions``. It reads only the rows that
  can fire (the columns say which: failed, truncated, retries of truncated rows), and of those
  parses only the ones whose raw line could (a note, a stream without a byte count…): a run's
  clean rows are never read again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from typing import Any

from tracetui.analysis.lint import check_record
from tracetui.analysis.lint_incidents import blind_retry
from tracetui.analysis.lint_registry import RULES, Rule
from tracetui.analysis.lint_rules import missing_contract_keys
from tracetui.analysis.notes import predicted_success
from tracetui.model.flags import BAD, FAILED, NO_VALUE, NULL_EXIT, SIDECAR, TRUNCATED
from tracetui.model.spans import NotASpan, Span, normalize
from tracetui.store.index import RunIndex
from tracetui.store.reader import loads

CODES = ("TT019", "TT020", "TT021", "TT022", "TT023", "TT024", "TT025")
"""The incident rules, in code order (every one is a key of :func:`count_suspicions`)."""
RETRY = "TT021"
"""The one incident rule that needs another span (the retry's parent)."""

Suspicion = tuple[str, str]
"""``(code, reason)``: the rule's code and its one-line message, as lint prints them."""


def _record_rules() -> tuple[Rule, ...]:
    # The gate (TT001) comes along: a record it stops gets no other finding from lint, so none
    # here either.
    return tuple(
        r for r in RULES.values() if r.on in ("tool", "record") and (r.code in CODES or r.gate)
    )


def suspicions_of(span: Span) -> list[Suspicion]:
    """The incident findings of one span, without TT021 (see :func:`suspicions_at`)."""
    found = check_record(span.raw, span, _record_rules())
    return [(code, msg) for code, msg in found if code in CODES]


def suspicions_at(index: RunIndex, row: int) -> list[Suspicion]:
    """Every incident finding of one row of ``index`` (TT021 included), in code order."""
    span = index.span(row)
    if span is None:
        return []
    found = check_record(span.raw, span, _record_rules())
    if found and RULES[found[0][0]].gate:
        return []
    out = [(code, msg) for code, msg in found if code in CODES]
    parent = _truncated_parent(index, row)
    if parent is not None:
        parent_span = index.span(parent)
        why = blind_retry(span, parent_span) if parent_span else None
        if why is not None:
            out.append((RETRY, why))
    out.sort(key=lambda s: s[0])
    return out


def _truncated_parent(index: RunIndex, row: int) -> int | None:
    pid = index.parent_ids.get(row)
    prow = index.id_rows.get(pid) if pid is not None else None
    if prow is None or prow == row or not index.flags[prow] & TRUNCATED:
        return None
    return prow


def may_be_suspicious(index: RunIndex, row: int) -> bool:
    """False when the columns prove no incident rule can fire on ``row`` (no read needed).

    On an imported run every row may (a call without a result, or writing a file, shows only in
    the record); on the others a row must have failed, been cut, or retry a cut attempt.
    """
    flags = index.flags[row]
    if flags & BAD:
        return False
    if index.run.source_format is not None:
        return True
    return bool(flags & (FAILED | TRUNCATED)) or _truncated_parent(index, row) is not None


def next_suspicious(index: RunIndex, row: int, step: int = 1) -> int | None:
    """The next row after ``row`` (``step`` 1 or -1) with a suspicion, or None."""
    n = len(index)
    r = row + step
    while 0 <= r < n:
        if may_be_suspicious(index, r) and suspicions_at(index, r):
            return r
        r += step
    return None


# --------------------------------------------------------------------------- counting
def count_suspicions(index: RunIndex) -> dict[str, int]:
    """Rows firing each incident rule in a run (the trace's own rows: re-runs are not counted).

    Every code of :data:`CODES` is a key, zero included. A row counts once per code however
    many of its streams fire.
    """
    counts = dict.fromkeys(CODES, 0)
    for codes in _scan(index):
        for code in codes:
            counts[code] += 1
    return counts


def _scan(index: RunIndex) -> Iterator[set[str]]:
    """The codes firing on each row that fires (rows read in set order, each once).

    A row whose only possible finding is TT022 is judged from its flags and its note alone: the
    rule asks exactly that (a real nonzero exit or a cut, and a note predicting success), and
    the flags are the same judgement the span makes. Every other candidate is normalised and
    given to the rules themselves. (The loop is written flat: it runs once per failed or cut
    row of a run, and ``summary`` must stay fast.)
    """
    rules = _record_rules()
    flags, hidden = index.flags, index.hidden
    if index.run.source_format is not None:  # an imported run: small, and every row may fire
        rows, parents = list(range(len(index))), _cut_parents(index, range(len(index)))
    else:
        rows, parents = _candidates(index)
    with _RawLines(index) as raw:
        line = raw.line
        whole = index.run.source_format is not None
        for row in rows:
            f = flags[row]
            if f & (BAD | SIDECAR):
                continue
            data = line(row)
            if data is None:
                continue
            obj = parent_obj = None
            parent = parents.get(row)
            if parent is not None:
                obj, parent_data = _load(data), line(parent)
                parent_obj = _load(parent_data) if parent_data is not None else None
                if not _may_repeat(obj, parent_obj):
                    parent_obj = None  # another command: no blind retry
            cut = f & TRUNCATED
            failed = f & FAILED and not f & NULL_EXIT  # a real nonzero exit
            if (
                whole
                or parent_obj is not None
                or (cut and failed)  # TT019 may fire: which part was kept is in the record
                or b'"import/' in data  # an imported record in a tracetui file
                or (cut and (hidden[row] == NO_VALUE or not _byte_counts(data)))  # TT020 may
            ):
                codes = _by_rules(rules, _load(data) if obj is None else obj, parent_obj)
            elif (cut or failed) and _note_fires(data):
                codes = {"TT022"}
            else:
                continue
            if codes:
                yield codes


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


def _may_repeat(obj: Any, parent: Any) -> bool:
    """False when two raw records plainly run different commands (argv lists of strings that
    differ, or cwds that differ); True when they may run the same one."""
    if not isinstance(obj, dict) or not isinstance(parent, dict):
        return False
    for key in ("argv", "command", "cwd"):
        a, b = obj.get(key), parent.get(key)
        if _plain(a) and _plain(b) and a != b:
            return False
    return True


def _plain(v: Any) -> bool:
    return isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v))


_MAY_FIRE = bytes(
    1 if f & (FAILED | TRUNCATED) and not f & (BAD | SIDECAR) else 0 for f in range(256)
)
"""Row flags → 1 for a row that failed or was cut (of the trace itself), else 0."""


def _candidates(index: RunIndex) -> tuple[list[int], dict[int, int]]:
    """Rows of a run in tracetui's dialects that may fire, in order: failed or cut rows (found
    at C speed in the flags column), and retries of cut rows; with each retry's cut parent."""
    n = len(index)
    marks = index.flags[:n].tobytes().translate(_MAY_FIRE)
    rows = set()
    row = marks.find(1)
    while row >= 0:
        rows.add(row)
        row = marks.find(1, row + 1)
    parents = _cut_parents(index, index.parent_ids)
    rows.update(parents)
    return sorted(rows), parents


def _cut_parents(index: RunIndex, rows: Iterable[int]) -> dict[int, int]:
    """Row → its parent's row, for the ``rows`` (of those committed) whose parent was cut."""
    n = len(index)
    out = {}
    for row in rows:
        if row < n and (parent := _truncated_parent(index, row)) is not None:
            out[row] = parent
    return out


# A byte-level look at a raw line, to tell rows that need the rules from rows that need only
# their note, without parsing them. It takes the first occurrence of a key for the record's
# own (JSON writers write each key once, plainly spelled, and tracetui's dialects put these
# before the previews, so the look stops early), and errs toward the rules.
_BYTES_KEYS = (b'"stdout_bytes"', b'"stderr_bytes"')
_NOTE_KEY = b'"agent_note"'
_SPACE = b" \t\r\n:"


def _value_at(data: bytes, key: bytes) -> bytes | None:
    """The first bytes of ``key``'s value in a raw line; None when the key is not there."""
    at = data.find(key)
    if at < 0:
        return None
    at += len(key)
    return data[at : at + 24].lstrip(_SPACE)


def _byte_counts(data: bytes) -> bool:
    """Both streams' ``{s}_bytes`` hold a number (TT020 cannot fire then)."""
    for key in _BYTES_KEYS:
        value = _value_at(data, key)
        if value is None or not value[:1].isdigit():
            return False
    return True


def _note_fires(data: bytes) -> bool:
    """TT022 on a row that failed with an exit code or was cut: its note predicts success."""
    note = _value_at(data, _NOTE_KEY)
    if note is None or note.startswith(b"null"):
        return False
    obj = _load(data)
    if not isinstance(obj, dict) or (obj.get("span_type") == "tool" and missing_contract_keys(obj)):
        return False  # not a record, or one TT001 stops (lint checks nothing else on it)
    value = obj.get("agent_note")
    # As the span reads it: a note of another type is its text (and a TT014 finding).
    return predicted_success(None if value is None else str(value)) is not None


def _load(data: bytes) -> Any:
    try:
        return loads(data)[0]
    except ValueError:
        return None


def _span(value: Any) -> Span | None:
    if not isinstance(value, dict):
        return None
    try:
        return normalize(value)
    except NotASpan:
        return None


class _RawLines:
    """The raw bytes of rows, read straight from the members (one descriptor each).

    For a finished index (``summary``): reading through :meth:`RunIndex.get` would parse every
    row it reads, which is what this scan avoids.
    """

    def __init__(self, index: RunIndex) -> None:
        self.index = index
        self.fds: dict[int, int] = {}

    def __enter__(self) -> _RawLines:
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in self.fds.values():
            if fd >= 0:
                os.close(fd)
        self.fds.clear()

    def line(self, row: int) -> bytes | None:
        ix = self.index
        mno = ix.member_no[row]
        fd = self.fds.get(mno)
        if fd is None:
            readable = ix.members[mno].readable
            try:
                fd = self.fds[mno] = os.open(readable, os.O_RDONLY) if readable else -1
            except OSError:
                fd = self.fds[mno] = -1
        if fd < 0:
            return None
        length = ix.length[row]
        try:
            data = os.pread(fd, length, ix.offset[row])
        except OSError:
            return None
        return data if len(data) == length else None
