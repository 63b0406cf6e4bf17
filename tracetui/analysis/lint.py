"""The truncation-contract linter (``tracetui lint``): one small function per rule.

Rules TT001–TT005 are the minimal truncation contract of SPEC §2, applied exactly as written
there (other checkers implement it too; on those rules our verdicts must be theirs). The rest are
tracetui's additions. Every rule takes a parsed record (and its normalised span) and yields
``(code, message)`` pairs; cross-record rules (ids, parents, cycles) run over the index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tracetui.analysis.chains import ChainIndex
from tracetui.model.markers import find_marker, split_preview
from tracetui.model.spans import FEEDBACK, STREAMS, TRACETUI, TRUNCATION_SPAN, Span
from tracetui.record.redact import Redactor
from tracetui.store.index import RunIndex
from tracetui.store.reader import BadLine

ERROR = "error"
WARNING = "warning"

CONTRACT_KEYS = tuple(f"{s}_{k}" for k in ("bytes", "cap", "truncated") for s in STREAMS)
UTF8_NOTE = "invalid UTF-8"

# code → (severity, one-line description for docs and --list-rules)
RULES: dict[str, tuple[str, str]] = {
    "TT001": (
        ERROR,
        "a tool span lacks one of the six contract keys ({s}_bytes, {s}_cap, {s}_truncated)",
    ),
    "TT002": (ERROR, "stream clipped without flag: bytes > cap but {s}_truncated is not true"),
    "TT003": (ERROR, "flag set under cap: {s}_truncated is true but bytes <= cap"),
    "TT004": (ERROR, "full-stream {s}_sha256 present on a clipped stream"),
    "TT005": (ERROR, "ok_preview is true while a stream is flagged truncated"),
    "TT006": (ERROR, "ok_preview is true with a nonzero or null exit"),
    "TT007": (ERROR, "null exit without an error saying why"),
    "TT008": (ERROR, "preview holds more bytes than the cap allows"),
    "TT009": (ERROR, "byte count smaller than the preview shown"),
    "TT010": (WARNING, "parent_command_id names a span not in the set (rotated away?)"),
    "TT011": (ERROR, "retry cycle: parent links loop back"),
    "TT012": (ERROR, "duplicate command_id"),
    "TT013": (ERROR, "bad line: malformed JSON, not a record, or over the size limit"),
    "TT014": (ERROR, "wrong field type"),
    "TT015": (WARNING, "secret-looking text in a preview (redaction missed it)"),
    "TT016": (WARNING, "invalid UTF-8 in the line (replaced when read)"),
    "TT017": (WARNING, "truncation marker in the preview while the flag says not truncated"),
    "TT018": (WARNING, "run has no span records"),
}


@dataclass(frozen=True, slots=True)
class Issue:
    """One finding."""

    file: str
    line: int
    """1-based line in ``file``; 0 for findings about the whole run."""
    code: str
    message: str

    @property
    def severity(self) -> str:
        return RULES[self.code][0]

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }


Finding = tuple[str, str]
RecordRule = Callable[[dict[str, Any], Span], Iterator[Finding]]


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


# --------------------------------------------------------------- the minimal contract
def missing_contract_keys(rec: dict[str, Any]) -> list[str]:
    return [k for k in CONTRACT_KEYS if k not in rec]


def rule_clipped_without_flag(rec: dict[str, Any], span: Span) -> Iterator[Finding]:
    for s in STREAMS:
        nbytes, cap, flag = rec.get(f"{s}_bytes"), rec.get(f"{s}_cap"), rec.get(f"{s}_truncated")
        if (
            cap is not None
            and _is_num(cap)
            and _is_num(nbytes)
            and nbytes > cap
            and flag is not True
        ):
            yield (
                "TT002",
                f"{s} clipped without flag ({s}_bytes {nbytes} > {s}_cap {cap}, {s}_truncated {_j(flag)})",
            )


def rule_flag_under_cap(rec: dict[str, Any], span: Span) -> Iterator[Finding]:
    for s in STREAMS:
        nbytes, cap, flag = rec.get(f"{s}_bytes"), rec.get(f"{s}_cap"), rec.get(f"{s}_truncated")
        if cap is not None and _is_num(cap) and _is_num(nbytes) and nbytes <= cap and flag is True:
            yield "TT003", f"{s} flag set under cap ({s}_bytes {nbytes} <= {s}_cap {cap})"


def rule_full_hash_on_clipped(rec: dict[str, Any], span: Span) -> Iterator[Finding]:
    for s in STREAMS:
        digest = rec.get(f"{s}_sha256")
        if rec.get(f"{s}_truncated") is True and isinstance(digest, str) and digest:
            yield (
                "TT004",
                f"full hash on a clipped stream ({s}_sha256 set while {s}_truncated is true)",
            )


def rule_ok_preview_truncated(rec: dict[str, Any], span: Span) -> Iterator[Finding]:
    if rec.get("ok_preview") is True:
        flagged = [s for s in STREAMS if rec.get(f"{s}_truncated") is True]
        if flagged:
            yield "TT005", f"ok_preview true while {' and '.join(flagged)} truncated"


CONTRACT_RULES: tuple[RecordRule, ...] = (
    rule_clipped_without_flag,
    rule_flag_under_cap,
    rule_full_hash_on_clipped,
    rule_ok_preview_truncated,
)


# --------------------------------------------------------------- additions
def rule_ok_preview_failed(rec: dict[str, Any], span: Span) -> Iterator[Finding]:
    if rec.get("ok_preview") is True and span.exit_code != 0:
        shown = "null" if span.exit_code is None else str(span.exit_code)
        yield "TT006", f"ok_preview true with exit {shown}"


def rule_null_exit_without_error(rec: dict[str, Any], span: Span) -> Iterator[Finding]:
    if span.exit_code is None and not span.error and not _exit_has_wrong_type(span):
        yield "TT007", "exit code is null and no error says why"


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


def rule_preview_over_cap(rec: dict[str, Any], span: Span) -> Iterator[Finding]:
    if not _comparable(rec, span):
        return
    for st in span.streams:
        if st.cap is not None and st.preview and (shown := _shown_bytes(st.preview)) > st.cap:
            yield (
                "TT008",
                f"preview_{st.name} shows {shown} bytes, more than {st.name}_cap {st.cap}",
            )


def rule_bytes_below_preview(rec: dict[str, Any], span: Span) -> Iterator[Finding]:
    if not _comparable(rec, span):
        return
    for st in span.streams:
        if st.bytes is not None and st.preview and (shown := _shown_bytes(st.preview)) > st.bytes:
            yield (
                "TT009",
                f"{st.name}_bytes {st.bytes} is smaller than the {shown} bytes shown in preview_{st.name}",
            )


def rule_wrong_types(rec: dict[str, Any], span: Span) -> Iterator[Finding]:
    for problem in span.problems:
        if not problem.startswith(UTF8_NOTE):
            yield "TT014", f"wrong field type: {problem}"


def rule_invalid_utf8(rec: dict[str, Any], span: Span) -> Iterator[Finding]:
    if any(p.startswith(UTF8_NOTE) for p in span.problems):
        yield "TT016", "line holds invalid UTF-8 (replaced with U+FFFD when read)"


_REDACTOR = Redactor()


def rule_secret_in_preview(rec: dict[str, Any], span: Span) -> Iterator[Finding]:
    for st in span.streams:
        names = _REDACTOR.findings(st.preview) if st.preview else []
        if names:
            yield (
                "TT015",
                f"preview_{st.name} holds secret-looking text ({', '.join(sorted(set(names)))})",
            )


def rule_marker_without_flag(rec: dict[str, Any], span: Span) -> Iterator[Finding]:
    for st in span.streams:
        if st.marker is not None and st.flag is False:
            yield (
                "TT017",
                f"preview_{st.name} carries a truncation marker but {st.name}_truncated is false",
            )


ADDED_RULES: tuple[RecordRule, ...] = (
    rule_ok_preview_failed,
    rule_null_exit_without_error,
    rule_preview_over_cap,
    rule_bytes_below_preview,
    rule_wrong_types,
    rule_invalid_utf8,
    rule_secret_in_preview,
    rule_marker_without_flag,
)


def check_record(rec: dict[str, Any], span: Span) -> list[Finding]:
    """All per-record findings for one record."""
    if rec.get("span_type") == "tool":
        missing = missing_contract_keys(rec)
        if missing:
            # The contract says: report the missing keys and check nothing else on this record.
            return [("TT001", "missing required field(s): " + ", ".join(missing))]
        findings = [f for rule in CONTRACT_RULES for f in rule(rec, span)]
    else:
        findings = []
    findings.extend(f for rule in ADDED_RULES for f in rule(rec, span))
    return findings


# --------------------------------------------------------------- whole runs
def lint_index(index: RunIndex) -> list[Issue]:
    """Every finding for one indexed run, in set order."""
    issues: list[Issue] = []
    skip: set[int] = set()  # rows whose record failed TT001: nothing else is checked on them
    for row in range(len(index)):
        path, line = index.location(row)
        got = index.get(row)
        if isinstance(got, BadLine):
            issues.append(Issue(path, line, "TT013", got.reason))
            continue
        findings = check_record(got.raw, got)
        if findings and findings[0][0] == "TT001":
            skip.add(row)
        issues.extend(Issue(path, line, code, msg) for code, msg in findings)
    issues.extend(_cross_record(index, skip))
    if index.stats.spans == 0 and not index.bad:
        first = index.members[0].member.path if index.members else index.run.base
        issues.append(Issue(first, 0, "TT018", "no span records in this run"))
    order = {m.member.path: i for i, m in enumerate(index.members)}
    issues.sort(key=lambda i: (order.get(i.file, len(order)), i.line))
    return issues


def _cross_record(index: RunIndex, skip: set[int]) -> Iterator[Issue]:
    for cid, rows in index.duplicates.items():
        first_path, first_line = index.location(rows[0])
        for row in rows[1:]:
            path, line = index.location(row)
            yield Issue(
                path,
                line,
                "TT012",
                f"duplicate command_id {cid!r} (first at {first_path}:{first_line})",
            )
    for row, pid in index.parent_ids.items():
        if row in skip:
            continue
        if pid not in index.id_rows:
            path, line = index.location(row)
            yield Issue(path, line, "TT010", f"parent {pid!r} not in set (rotated away?)")
    for cycle in ChainIndex(index).cycles():
        path, line = index.location(cycle[0])
        ids = " -> ".join(str(index.ids[r]) for r in cycle)
        yield Issue(path, line, "TT011", f"retry cycle: {ids} -> {index.ids[cycle[0]]}")


def _j(v: Any) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    return repr(v)
