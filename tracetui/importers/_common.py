"""Helpers shared by the importers: bounded reading, record building, output and exit facts.

Every importer yields plain dicts in the ``import/<format>`` dialect (read like tracetui/1 by
:func:`tracetui.model.spans.normalize`). The helpers here keep the rules the same for all formats:
what the model saw goes to ``preview_stdout`` as is; a full output stored beside it gives the byte
count and is kept (bounded) in ``full_stdout``; truncation comes from a marker or an explicit
flag. Exit: a code when the format records one; with none, an error signal of the format
(``is_error``, an error event, a kill on timeout) makes the call a failure, and without one the
exit is *unknown* — not a failure (docs/importers.md, "Exit rules").
"""

from __future__ import annotations

import gzip
import io
import json
import re
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import IO, Any, cast

import orjson

from tracetui.model.markers import find_marker
from tracetui.model.text import neutralize_line
from tracetui.store.reader import iter_lines, loads, open_regular

SNIFF_BYTES = 64 << 10
"""Sniffing never reads more than this much of a file."""
MAX_FULL = 1 << 20
"""The full output kept beside the preview is cut to this many characters (flagged when cut)."""
MAX_PROBLEMS = 20
"""Problems listed in the note at the end of a conversion; the rest are only counted."""
PROBLEM_CHARS = 300
"""Longest problem kept in the note (a problem may quote a huge id or member name)."""

NO_CODE = "tool reported an error (no exit code recorded)"
EXIT_MIN, EXIT_MAX = -(2**63), 2**63 - 1
"""The range an integer from a trace is kept in (exit codes, counts): a value past it is read
as the nearest end, so an absurd nonzero exit (``Exit code 99999999999999999999``, ``1e300``,
5,000 digits) is still a failure rather than text that reads as no exit at all."""


class ImportProblem(ValueError):
    """Raised after a conversion that had to skip parts of a file; the message says which.

    Records yielded before it are kept: the index writes them before it sees the exception.
    """


class Problems:
    """Problems met while converting, reported as one note when the conversion ends."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.count = 0

    def add(self, msg: str) -> None:
        """Count a problem; keep it, neutralised and bounded, among the first MAX_PROBLEMS.

        A problem often quotes the trace (a member name, a tool_use_id, an exception message):
        it is made one safe line here, once, whatever prints or shows the note later.
        """
        self.count += 1
        if len(self.items) < MAX_PROBLEMS:
            line = neutralize_line(msg)
            if len(line) > PROBLEM_CHARS:
                line = line[: PROBLEM_CHARS - 1] + "…"
            self.items.append(line)

    def raise_if_any(self, imported: int) -> None:
        if not self.count:
            return
        more = f" (and {self.count - len(self.items)} more)" if self.count > len(self.items) else ""
        outcome = f"{imported} tool call(s) imported" if imported else "nothing imported"
        raise ImportProblem(f"{outcome}; {self.count} problem(s): " + "; ".join(self.items) + more)


# ------------------------------------------------------------------------------------- reading
def open_bytes(path: str) -> IO[bytes]:
    """Open a trace for reading; a gzip'd trace (by its magic bytes) is decompressed on the fly.

    Regular files only (:func:`~tracetui.store.reader.open_regular`, an OSError otherwise): a
    FIFO among an OpenHands conversation's event files would block the open for ever, and a
    link to /dev/zero would be read until memory ran out.
    """
    fh = io.BufferedReader(cast(io.RawIOBase, open_regular(path)))  # readline() wants a buffer
    magic = fh.read(2)
    fh.seek(0)
    if magic == b"\x1f\x8b":
        return gzip.open(fh, "rb")  # type: ignore[return-value]
    return fh


def read_head(path: str, n: int = SNIFF_BYTES) -> bytes:
    with open_bytes(path) as fh:
        return fh.read(n)


def load_json(path: str) -> Any:
    """The whole file as one JSON value; raises ValueError (with a plain reason) when it is not."""
    with open_bytes(path) as fh:
        data = fh.read()
    try:
        return loads(data)[0]
    except ValueError as exc:
        raise ImportProblem(f"not valid JSON: {str(exc).split(':', 1)[0]}") from None


def iter_jsonl(path: str, problems: Problems) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` for each JSON line; bad lines become problems, never exceptions."""
    with open_bytes(path) as fh:
        for raw in iter_lines(fh):
            if raw.data is None:
                problems.add(f"line {raw.line_no}: over the line size limit, skipped")
                continue
            if not raw.data.strip():
                continue
            try:
                value, _note = loads(raw.data)
            except ValueError:
                what = "cut short (no newline at end)" if not raw.complete else "malformed JSON"
                problems.add(f"line {raw.line_no}: {what}, skipped")
                continue
            yield raw.line_no, value


# ------------------------------------------------------------------------------------- values
def text_of(content: Any) -> str:
    """Flatten a message content (a string, or a list of parts) to the text the model read."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (text_of(part) for part in content) if t)
    if isinstance(content, dict):
        text = content.get("text")
        if isinstance(text, str):
            return text
        kind = content.get("type")
        if kind in ("image", "image_url"):
            return "[image]"
        if "content" in content:
            return text_of(content["content"])
    return json.dumps(content, ensure_ascii=False, sort_keys=True, default=str)


def one_line(text: Any, limit: int = 200) -> str | None:
    """The first non-empty line of ``text``, cut to ``limit`` characters; None when there is none."""
    if not isinstance(text, str):
        return None
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return None


def shell_argv(command: str) -> list[str]:
    """A shell command string as the argv that runs it: the agent ran it through a shell."""
    return ["bash", "-lc", command]


def tool_argv(name: str, args: Any) -> list[str]:
    """A non-shell tool call as ``[tool name, JSON input]`` (not runnable: it names no program)."""
    return [name, json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)]


def as_dict(v: Any) -> dict[str, Any]:
    """``v`` when it is a JSON object, else an empty one (a field of the wrong shape reads empty)."""
    return v if isinstance(v, dict) else {}


def as_list(v: Any) -> list[Any]:
    """``v`` when it is a JSON array, else an empty one."""
    return v if isinstance(v, list) else []


_DIGITS = re.compile(r"-?\d+")


def as_int(v: Any) -> int | None:
    """An integer from a trace (a number, or digits as text), kept in :data:`EXIT_MIN` ..
    :data:`EXIT_MAX`; None for anything else (a bool, a fraction, inf, NaN)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, float):
        if not v.is_integer():
            return None
        v = int(v)
    elif isinstance(v, str):
        text = v.strip()
        if not _DIGITS.fullmatch(text):
            return None
        if len(text.lstrip("-")) > 19:  # past 64 bits (and int() refuses 4,300 digits)
            return EXIT_MIN if text.startswith("-") else EXIT_MAX
        v = int(text)
    if not isinstance(v, int):
        return None
    return max(EXIT_MIN, min(EXIT_MAX, v))


def parse_time(value: Any) -> datetime | None:
    """An ISO 8601 string (``Z`` or offset or naive) or epoch seconds → datetime; None if neither."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(float(value), tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value)  # Python 3.11+ reads most forms directly
    except ValueError:
        pass
    text = value.strip().replace("Z", "+00:00")
    # fromisoformat before 3.11 wants 0, 3 or 6 fraction digits: pad or cut to 6.
    text = re.sub(r"\.(\d+)", lambda m: "." + (m.group(1) + "000000")[:6], text, count=1)
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return None


def iso(value: Any) -> str | None:
    """A timestamp as RFC 3339 text: strings are kept as recorded, epoch seconds become UTC."""
    if isinstance(value, str):
        return value or None
    dt = parse_time(value)
    return dt.isoformat().replace("+00:00", "Z") if dt else None


def duration_ms(start: Any, end: Any) -> float | None:
    """Milliseconds between two timestamps; None when either is unknown or they disagree in kind."""
    a, b = parse_time(start), parse_time(end)
    if a is None or b is None or (a.tzinfo is None) != (b.tzinfo is None):
        return None
    ms = (b - a).total_seconds() * 1000.0
    return round(ms, 3) if ms >= 0 else None


# ------------------------------------------------------------------------------------- records
def base_record(
    fmt: str,
    source_file: str,
    command_id: str | None,
    tool_name: str | None,
    argv: list[str],
    *,
    rerunnable: bool,
) -> dict[str, Any]:
    """A new ``import/<fmt>`` record; the stream and exit fields are filled by the helpers below."""
    return {
        "schema": f"import/{fmt}",
        "span_type": "tool",
        "source_format": fmt,
        "source_file": source_file,
        "command_id": command_id,
        "parent_command_id": None,
        "tool_name": tool_name,
        "argv": argv,
        "rerunnable": rerunnable,
        "cwd": None,
        "started_at": None,
        "duration_ms": None,
        "exit_code": None,
        "error": None,
        "agent_note": None,
        "preview_stdout": "",
        "preview_stderr": "",
        # The six keys of the minimal truncation contract are always present; null = unknown
        # (these agents store no byte counts and no caps unless the helpers below find them).
        "stdout_bytes": None,
        "stderr_bytes": None,
        "stdout_cap": None,
        "stderr_cap": None,
        "stdout_truncated": None,
        # These agents hand the model one text with both streams in it: it is ``stdout`` here,
        # and nothing can have been withheld from a separate stderr.
        "stderr_truncated": False,
    }


def set_exit(
    rec: dict[str, Any], code: int | None, error: str | None = None, *, note: str | None = None
) -> None:
    """The call's exit (the rule is :func:`tracetui.model.spans.judge_exit`).

    ``code`` when the format recorded one. Without a code, ``error`` — the format flagged the
    call an error — makes it a failure; with no error the exit is unknown, not a failure, and
    ``note`` (kept as ``exit_note``) says why no code is known.
    """
    code = None if code is None else max(EXIT_MIN, min(EXIT_MAX, code))
    rec["exit_code"] = code
    rec["error"] = (error or None) if code is None else None
    if code is None and not error and note:
        rec["exit_note"] = note
    else:
        rec.pop("exit_note", None)


def set_no_result(rec: dict[str, Any], why: str) -> None:
    """The call never got a result (the session ended, the result was lost): its exit is unknown
    (how it ended was never written), ``exit_note`` says why, and ``result_missing: true`` says
    so plainly (lint TT023 reads it)."""
    set_exit(rec, None, note=why)
    rec["result_missing"] = True


SUBMISSION = "submission"
"""``kind`` of a call whose output is what the agent submitted (mini-swe-agent's last step)."""


def set_submission(rec: dict[str, Any], why: str) -> None:
    """The agent's submission step: no exit recorded, and no failure (``kind: submission``)."""
    set_exit(rec, None, note=why)
    rec["kind"] = SUBMISSION


def set_source_ok(rec: dict[str, Any], ok: bool, field: str) -> None:
    """Keep the agent format's own verdict on the call: ``source_ok`` (true: it marked the call
    successful) and ``source_ok_field``, the field as the format wrote it (``is_error: false``).
    Lint TT025 compares it with the exit the call really had."""
    rec["source_ok"] = ok
    rec["source_ok_field"] = field


def set_output(
    rec: dict[str, Any],
    preview: str,
    *,
    full: str | None = None,
    windows: tuple[str, str] | None = None,
    complete: bool = False,
    cut: str | None = None,
) -> None:
    """Fill the stdout facts from what the model saw (``preview``) and the stored full output.

    ``full`` is the whole output when the agent kept it beside the cut one; it is ignored when it
    carries a truncation marker itself (then it is no whole output). ``windows`` are the exact
    kept head and tail texts when the converter can tell them (else they are taken around the
    marker). ``complete`` says the format always marks its cuts, so no marker means no cut.
    ``cut`` is the clip mode when the format says the output was cut without a marker.
    """
    rec["preview_stdout"] = preview
    marker = find_marker(preview)
    if full is not None and find_marker(full) is not None:
        full = None
    truncated: bool | None = True if (marker is not None or cut) else (False if complete else None)
    if truncated is not None:
        rec["stdout_truncated"] = truncated
    if full is not None:
        rec["stdout_bytes"] = len(full.encode("utf-8", errors="replace"))
    if not truncated:
        return
    rec["stdout_clip"] = cut or (marker.clip if marker else None) or "head"
    if full is None:
        return
    rec["full_stdout"] = full[:MAX_FULL]
    if len(full) > MAX_FULL:
        rec["full_stdout_cut_at_chars"] = MAX_FULL
    if marker is None:
        return
    head, tail = windows or (preview[: marker.start], preview[marker.end :])
    if rec["stdout_clip"] == "head":
        head, tail = head + tail, ""
    elif rec["stdout_clip"] == "tail":
        head, tail = "", head + tail
    rec["stdout_head_bytes"] = len(head.encode("utf-8", errors="replace"))
    rec["stdout_tail_bytes"] = len(tail.encode("utf-8", errors="replace"))


class InOrder:
    """Records yielded in the order their calls appeared, each as soon as it and all before it
    are finished: memory holds only the calls still waiting, not the whole trace."""

    def __init__(self) -> None:
        self.records: dict[str, dict[str, Any]] = {}  # insertion-ordered: call order
        self.finished: set[str] = set()

    def add(self, key: str, rec: dict[str, Any]) -> None:
        self.records[key] = rec

    def get(self, key: str) -> dict[str, Any] | None:
        return self.records.get(key)

    def finish(self, key: str) -> Iterator[dict[str, Any]]:
        """Mark ``key`` done; yield every record at the head of the order that is done."""
        self.finished.add(key)
        while self.records:
            head = next(iter(self.records))
            if head not in self.finished:
                break
            self.finished.discard(head)
            yield self.records.pop(head)

    def rest(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """The records still waiting (never finished, or behind one that never finished)."""
        while self.records:
            key = next(iter(self.records))
            yield key, self.records.pop(key)


def guarded(problems: Problems, where: str, fn: Any, *args: Any) -> Any:
    """Run one record's conversion; an unexpected shape becomes a problem, not a traceback."""
    try:
        return fn(*args)
    except Exception as exc:
        problems.add(f"{where}: skipped, unexpected shape ({type(exc).__name__}: {exc})")
        return None


_INT64 = 2**63
MAX_DEPTH = 64
"""Nesting kept in a converted record: deeper values become a short text (orjson writes at
most 255 levels, and a trace may hold a thousand: one such field lost the whole import)."""


def record_line(record: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """A converted record as it is kept, and its JSON line (no newline): written once, by the
    one rule every converted record follows. When orjson cannot write the record as it came
    (an integer beyond 64 bits, a value nested too deeply), both are of its ``json_safe`` form;
    any other value orjson does not know is written as its ``str``."""
    try:
        return record, orjson.dumps(record, default=str)
    except TypeError:
        safe = json_safe(record)
        return safe, orjson.dumps(safe, default=str)


def json_safe(value: Any, depth: int = 0) -> Any:
    """``value`` as orjson can write it: integers beyond 64 bits as text, and any list or object
    nested past :data:`MAX_DEPTH` levels as a text saying so (the record, and its row, stay)."""
    if isinstance(value, (dict, list)) and depth >= MAX_DEPTH:
        return f"[a {'list' if isinstance(value, list) else 'object'} nested too deeply to keep]"
    if isinstance(value, dict):
        return {k: json_safe(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v, depth + 1) for v in value]
    if isinstance(value, int) and not isinstance(value, bool) and not -_INT64 <= value < _INT64:
        return str(value)
    return value
