"""The index's fast facts about a record: what it keeps, without building a whole Span.

:func:`quick_facts` is what the bounded line reader (:mod:`tracetui.store.reader`) calls for each
line when the C scanner does not take it (indexing a million spans cannot afford a Span per
line). It reads only what the index keeps, judged exactly as
:func:`tracetui.model.spans.normalize` judges it (both call
:func:`tracetui.model.truncation.judge_stream`), and hands any record holding a value of an
unexpected type to normalize() itself, so the two paths can never disagree.
"""

from __future__ import annotations

from typing import Any

from tracetui.model.fields import INT_MAX, INT_MIN, Fields
from tracetui.model.markers import find_marker
from tracetui.model.spans import (
    FEEDBACK,
    STREAMS,
    TRUNCATION_SPAN,
    Facts,
    NotASpan,
    Span,
    detect_dialect,
    judge_exit,
    normalize,
)
from tracetui.model.truncation import judge_stream

_INT = int
_STREAM_KEYS = {
    s: (
        f"{s}_bytes",
        f"{s}_cap",
        f"{s}_truncated",
        f"preview_{s}",
        f"{s}_head_bytes",
        f"{s}_tail_bytes",
        f"{s}_tail",
    )
    for s in STREAMS
}


class _Slow(Exception):
    pass


def _opt_int(v: Any) -> int | None:
    if v is None or (type(v) is _INT and INT_MIN <= v <= INT_MAX):
        return v
    raise _Slow  # odd types and out-of-range values: normalize() decides, and notes them


def _stream_facts(obj: dict[str, Any], s: str, feedback: bool) -> tuple[bool | None, int | None]:
    kb, kc, kf, kp, khb, ktb, ktail = _STREAM_KEYS[s]
    if feedback:
        tail = obj.get(ktail)
        if tail is not None and type(tail) is not str:
            raise _Slow
        return judge_stream(None, None, None, find_marker(tail) if tail else None, None, None)
    nbytes = _opt_int(obj.get(kb))
    cap = _opt_int(obj.get(kc))
    flag = obj.get(kf)
    if flag is not None and type(flag) is not bool:
        raise _Slow
    preview = obj.get(kp)
    if preview is not None and type(preview) is not str:
        raise _Slow
    head, tail = _opt_int(obj.get(khb)), _opt_int(obj.get(ktb))
    marker = find_marker(preview) if preview else None
    return judge_stream(nbytes, cap, flag, marker, head, tail)


def quick_facts(obj: Any) -> Facts:
    """The index's facts about one parsed record; raises :class:`NotASpan` like normalize()."""
    if not isinstance(obj, dict):
        raise NotASpan(f"expected a JSON object, got {type(obj).__name__}")
    dialect = detect_dialect(obj)
    try:
        feedback = dialect == FEEDBACK
        if dialect == TRUNCATION_SPAN and "returncode" in obj:
            exit_code = _opt_int(obj.get("returncode"))
        else:
            exit_code = _opt_int(obj.get("exit_code"))
        out_t, out_h = _stream_facts(obj, "stdout", feedback)
        err_t, err_h = _stream_facts(obj, "stderr", feedback)
        cid, pid = obj.get("command_id"), obj.get("parent_command_id")
        if (cid is not None and type(cid) is not str) or (pid is not None and type(pid) is not str):
            raise _Slow
        error = obj.get("error")
        if error is not None and type(error) is not str:
            raise _Slow  # normalize() reads it as text and notes the wrong type
    except _Slow:
        return _facts_from_span(normalize(obj))
    truncated = True if (out_t or err_t) else (None if (out_t is None or err_t is None) else False)
    known = [h for h in (out_h, err_h) if h is not None]
    return Facts(
        failed=judge_exit(exit_code, error),
        exit_code=exit_code,
        truncated=truncated,
        hidden_bytes=sum(known) if known else None,
        command_id=cid or None,
        parent_command_id=pid or None,
        problems=False,
    )


def _facts_from_span(span: Span) -> Facts:
    return Facts(
        span.failed,
        span.exit_code,
        span.truncated,
        span.hidden_bytes,
        span.command_id,
        span.parent_command_id,
        bool(span.problems),
    )


def produced_and_start(obj: Any) -> tuple[int | None, str | None]:
    """``(bytes produced, started_at)`` of one parsed record, as :func:`normalize` reads them:
    the streams' byte counts before any cap, summed (None when neither is recorded, as in the
    feedback dialect), and the start time as text. Raises :class:`NotASpan` like normalize().

    The trend (:mod:`tracetui.analysis.trends`) reads these of a thousand sampled spans; a whole
    Span each cost a hundred microseconds, most of it judging previews it does not need. The
    values come through the same :class:`Fields` accessors as the span's.
    """
    if not isinstance(obj, dict):
        raise NotASpan(f"expected a JSON object, got {type(obj).__name__}")
    dialect = detect_dialect(obj)
    f = Fields(obj)
    start = f.str_("started_at")
    if dialect == FEEDBACK:
        return None, start
    known = [n for s in STREAMS if (n := f.int_(f"{s}_bytes")) is not None]
    return (sum(known) if known else None), start
