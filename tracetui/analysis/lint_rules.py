"""The rules of ``tracetui lint``, one decorated function each (see docs/lint.md).

Rules TT001–TT005 are the minimal truncation contract of SPEC §2, applied exactly as written
there (other checkers implement it too; on those rules our verdicts must be theirs) to records in
tracetui's own dialects: an imported record's contract fields are filled by its importer, so the
contract would judge tracetui, not the agent. The rest are tracetui's additions; the incident
rules (TT019–TT025) are in :mod:`tracetui.analysis.lint_incidents`. Importing this module
registers its rules in :data:`tracetui.analysis.lint_registry.RULES`.

Rules of one kind run in the order they are defined here, and their findings on one line come
out in that order: keep new rules at the end of their section so existing output does not move.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeGuard

from tracetui.analysis.chains import ChainIndex
from tracetui.analysis.lint_registry import ERROR, WARNING, rule
from tracetui.model.markers import find_marker, split_preview
from tracetui.model.spans import FEEDBACK, STREAMS, TRACETUI, TRUNCATION_SPAN, Span
from tracetui.store.id_registry import rows_of
from tracetui.store.index import RunIndex
from tracetui.store.reader import BadLine

if TYPE_CHECKING:
    from tracetui.record.redact import Redactor

CONTRACT_KEYS = tuple(f"{s}_{k}" for k in ("bytes", "cap", "truncated") for s in STREAMS)
UTF8_NOTE = "invalid UTF-8"

Located = tuple[str, int, str]
"""A run rule's finding: file, 1-based line (0 for the whole run), message."""


def _is_num(v: Any) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _j(v: Any) -> str:
    """A field value as the message shows it: JSON words for null and booleans, else repr."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    return repr(v)


# --------------------------------------------------------------- the minimal contract
def missing_contract_keys(rec: dict[str, Any]) -> list[str]:
    return [k for k in CONTRACT_KEYS if k not in rec]


@rule(
    "TT001",
    ERROR,
    "a tool span lacks one of the six contract keys ({s}_bytes, {s}_cap, {s}_truncated)",
    on="tool",
    gate=True,  # the contract says: report the missing keys and check nothing else on the record
    formats="own",  # an importer fills these keys itself (null = the agent stores none)
)
def missing_contract_key(rec: dict[str, Any], span: Span) -> Iterator[str]:
    missing = missing_contract_keys(rec)
    if missing:
        yield "missing required field(s): " + ", ".join(missing)


@rule(
    "TT002",
    ERROR,
    "stream clipped without flag: bytes > cap but {s}_truncated is not true",
    on="tool",
    formats="own",
)
def clipped_without_flag(rec: dict[str, Any], span: Span) -> Iterator[str]:
    for s in STREAMS:
        nbytes, cap, flag = rec.get(f"{s}_bytes"), rec.get(f"{s}_cap"), rec.get(f"{s}_truncated")
        # "not true" is meant: a null flag, or one of the wrong type, does not say "clipped".
        if _is_num(cap) and _is_num(nbytes) and nbytes > cap and flag is not True:
            yield (
                f"{s} clipped without flag ({s}_bytes {nbytes} > {s}_cap {cap}, "
                f"{s}_truncated {_j(flag)})"
            )


@rule(
    "TT003",
    ERROR,
    "flag set under cap: {s}_truncated is true but bytes <= cap",
    on="tool",
    formats="own",
)
def flag_under_cap(rec: dict[str, Any], span: Span) -> Iterator[str]:
    for s in STREAMS:
        nbytes, cap, flag = rec.get(f"{s}_bytes"), rec.get(f"{s}_cap"), rec.get(f"{s}_truncated")
        if _is_num(cap) and _is_num(nbytes) and nbytes <= cap and flag is True:
            yield f"{s} flag set under cap ({s}_bytes {nbytes} <= {s}_cap {cap})"


@rule(
    "TT004", ERROR, "full-stream {s}_sha256 present on a clipped stream", on="tool", formats="own"
)
def full_hash_on_clipped(rec: dict[str, Any], span: Span) -> Iterator[str]:
    for s in STREAMS:
        digest = rec.get(f"{s}_sha256")
        if rec.get(f"{s}_truncated") is True and isinstance(digest, str) and digest:
            yield f"full hash on a clipped stream ({s}_sha256 set while {s}_truncated is true)"


@rule(
    "TT005",
    ERROR,
    "ok_preview is true while a stream is flagged truncated",
    on="tool",
    formats="own",
)
def ok_preview_truncated(rec: dict[str, Any], span: Span) -> Iterator[str]:
    if rec.get("ok_preview") is True:
        flagged = [s for s in STREAMS if rec.get(f"{s}_truncated") is True]
        if flagged:
            yield f"ok_preview true while {' and '.join(flagged)} truncated"


# --------------------------------------------------------------- additions, per record
@rule("TT006", ERROR, "ok_preview is true with a nonzero or null exit")
def ok_preview_failed(rec: dict[str, Any], span: Span) -> Iterator[str]:
    if rec.get("ok_preview") is True and span.exit_code != 0:
        shown = "null" if span.exit_code is None else str(span.exit_code)
        yield f"ok_preview true with exit {shown}"


# Own records only: an imported call with no exit and no error is "exit unknown" (its format
# records no exit code), which is no defect of the record.
@rule("TT007", ERROR, "null exit without an error saying why", formats="own")
def null_exit_without_error(rec: dict[str, Any], span: Span) -> Iterator[str]:
    if span.exit_code is None and not span.error and not _exit_has_wrong_type(span):
        yield "exit code is null and no error says why"


def _exit_has_wrong_type(span: Span) -> bool:
    return any(p.startswith(("exit_code:", "returncode:")) for p in span.problems)


def _shown_bytes(preview: str) -> int:
    """Bytes of stream content in a preview, its truncation marker left out."""
    before, withheld, after = split_preview(preview)
    if withheld is not None:
        return len(before.encode()) + len(after.encode())
    marker = find_marker(preview)
    if marker is not None:
        preview = preview[: marker.start] + preview[marker.end :]
    return len(preview.encode())


def _comparable(rec: dict[str, Any], span: Span) -> bool:
    # Redaction and U+FFFD replacement change lengths; a binary preview is a rendering, not bytes;
    # an imported preview carries the agent's own wrappers (tags, notices) around the output.
    if any(p.startswith(UTF8_NOTE) for p in span.problems):
        return False
    if span.dialect not in (TRACETUI, TRUNCATION_SPAN, FEEDBACK):
        return False
    return rec.get("encoding") != "binary" and not rec.get("redacted")


@rule("TT008", ERROR, "preview holds more bytes than the cap allows")
def preview_over_cap(rec: dict[str, Any], span: Span) -> Iterator[str]:
    if not _comparable(rec, span):
        return
    for st in span.streams:
        if st.cap is not None and st.preview and (shown := _shown_bytes(st.preview)) > st.cap:
            yield f"preview_{st.name} shows {shown} bytes, more than {st.name}_cap {st.cap}"


@rule("TT009", ERROR, "byte count smaller than the preview shown")
def bytes_below_preview(rec: dict[str, Any], span: Span) -> Iterator[str]:
    if not _comparable(rec, span):
        return
    for st in span.streams:
        if st.bytes is not None and st.preview and (shown := _shown_bytes(st.preview)) > st.bytes:
            yield (
                f"{st.name}_bytes {st.bytes} is smaller than the {shown} bytes shown in "
                f"preview_{st.name}"
            )


@rule("TT014", ERROR, "wrong field type")
def wrong_types(rec: dict[str, Any], span: Span) -> Iterator[str]:
    for problem in span.problems:
        if not problem.startswith(UTF8_NOTE):
            yield f"wrong field type: {problem}"


# TT016 runs before TT015 (as it always has): on a line with both, output keeps that order.
@rule("TT016", WARNING, "invalid UTF-8 in the line (replaced when read)")
def invalid_utf8(rec: dict[str, Any], span: Span) -> Iterator[str]:
    if any(p.startswith(UTF8_NOTE) for p in span.problems):
        yield "line holds invalid UTF-8 (replaced with U+FFFD when read)"


_redactors: list[Redactor] = []
"""The recorder's own rules (record/redact.py): lint sees exactly what redaction would catch.
Made on first use: compiling them costs ~10 ms at every start, and ``summary`` (which imports
this module for the contract keys) never runs TT015."""


def _redactor() -> Redactor:
    if not _redactors:
        from tracetui.record.redact import Redactor

        _redactors.append(Redactor())
    return _redactors[0]


@rule(
    "TT015", WARNING, "secret-looking text in a preview, argv, note or error (redaction missed it)"
)
def secret_in_text(rec: dict[str, Any], span: Span) -> Iterator[str]:
    redactor = _redactor()
    for st in span.streams:
        names = redactor.findings(st.preview) if st.preview else []
        if names:
            yield f"preview_{st.name} holds secret-looking text ({', '.join(names)})"
    # An argv item and its neighbour are read together, as the recorder does (`--password`, `x`).
    names = redactor.argv_findings(span.argv) if span.argv else []
    if names:
        field = "command" if span.dialect == FEEDBACK else "argv"
        yield f"{field} holds secret-looking text ({', '.join(names)})"
    for field, text in (
        ("tool_name", span.tool_name),
        ("agent_note", span.agent_note),
        ("error", span.error),
    ):
        names = redactor.findings(text) if text else []
        if names:
            yield f"{field} holds secret-looking text ({', '.join(names)})"


@rule("TT017", WARNING, "truncation marker in the preview while the flag says not truncated")
def marker_without_flag(rec: dict[str, Any], span: Span) -> Iterator[str]:
    for st in span.streams:
        if st.marker is not None and st.flag is False:
            yield f"preview_{st.name} carries a truncation marker but {st.name}_truncated is false"


# --------------------------------------------------------------- lines that are no record
@rule(
    "TT013", ERROR, "bad line: malformed JSON, not a record, or over the size limit", on="bad_line"
)
def bad_line(bad: BadLine) -> Iterator[str]:
    yield bad.reason


# --------------------------------------------------------------- whole runs
# Run rules get the rows whose record failed a gate rule (TT001): nothing else is checked there.
@rule("TT012", ERROR, "duplicate command_id", on="run")
def duplicate_id(index: RunIndex, gated: frozenset[int]) -> Iterator[Located]:
    for cid, rows in index.duplicates.items():
        first_path, first_line = index.location(rows[0])
        for row in rows[1:]:
            path, line = index.location(row)
            yield path, line, f"duplicate command_id {cid!r} (first at {first_path}:{first_line})"


@rule("TT010", WARNING, "parent_command_id names a span not in the set (rotated away?)", on="run")
def parent_not_in_set(index: RunIndex, gated: frozenset[int]) -> Iterator[Located]:
    rows = [row for row in index.parent_ids if row not in gated]
    pids = list(map(index.parent_ids.__getitem__, rows))
    # The parent ids looked up together (a million-span run names tens of thousands).
    for row, pid, prow in zip(rows, pids, rows_of(index.id_rows, pids), strict=True):
        if prow is None:
            path, line = index.location(row)
            yield path, line, f"parent {pid!r} not in set (rotated away?)"


@rule("TT011", ERROR, "retry cycle: parent links loop back", on="run")
def retry_cycle(index: RunIndex, gated: frozenset[int]) -> Iterator[Located]:
    for cycle in ChainIndex(index).cycles():
        path, line = index.location(cycle[0])
        ids = " -> ".join(str(index.ids[r]) for r in cycle)
        yield path, line, f"retry cycle: {ids} -> {index.ids[cycle[0]]}"


@rule("TT018", WARNING, "run has no span records", on="run")
def no_spans(index: RunIndex, gated: frozenset[int]) -> Iterator[Located]:
    if index.stats.spans == 0 and not index.bad:
        first = index.members[0].member.path if index.members else index.run.base
        yield first, 0, "no span records in this run"
