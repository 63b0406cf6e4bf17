"""Inspect AI eval logs: ``.json``, or ``.eval`` (a zip holding one ``samples/*.json`` per sample).

One span per tool call of each sample. The ``tool`` event (``events[]``) gives the function,
arguments, ``result`` (the whole output), ``error``, ``truncated`` and times; the ``role: "tool"``
message with the same ``tool_call_id`` gives what the model read. Logs without events fall back
to the assistant ``tool_calls[]`` and the tool messages.

``truncated`` is a pair ``[original bytes, limit]``: the model saw head and tail around a cut
with no marker at the cut (the message's header ``The output of your call to … was too long``
is recognised as a marker), so the span gets ``stdout_bytes``/``stdout_cap`` from the pair.

Exit: a ``sandbox`` exec event nested in the tool event gives the code; otherwise an ``error``
is a failure with no code and no error is 0 (Inspect's tools raise on a nonzero exit); an
``approval`` error (the approver refused the call) is a failure that never ran
(``not_executed``). A tool event still ``pending`` (the log was written while it ran) is exit
unknown, with ``result_missing``.
``bash`` calls become ``["bash", "--login", "-c", cmd]`` (how Inspect's bash tool runs them);
other tools ``[function, JSON arguments]``. No parent links: Inspect does not retry a call.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Iterator
from typing import Any

from tracetui.importers._common import (
    NO_CODE,
    ImportProblem,
    Problems,
    as_dict,
    as_int,
    as_list,
    base_record,
    duration_ms,
    guarded,
    load_json,
    one_line,
    set_exit,
    set_no_result,
    set_output,
    text_of,
    tool_argv,
)
from tracetui.importers.protocol import NO, Format, Head
from tracetui.store.reader import loads

FORMAT = "inspect-ai"
_SHELL = {"bash": "cmd", "shell": "cmd", "exec": "cmd"}


def sniff(head: Head) -> int:
    """An ``.eval`` zip by its entry names, or a ``.json`` log by its top-level keys."""
    if head.zip_names is not None:
        names = head.zip_names
        if (
            "header.json" in names
            or "_journal/start.json" in names
            or any(n.startswith("samples/") and n.endswith(".json") for n in names)
        ):
            return 50
        return NO
    text = head.text
    if (
        text.startswith("{")
        and head.has("eval", "version")
        and (head.has("samples") or head.has("task"))
    ):
        return 30
    return NO


def convert(path: str, problems: Problems) -> Iterator[dict[str, Any]]:
    if zipfile.is_zipfile(path):
        yield from _convert_zip(path, problems)
        return
    data = load_json(path)
    samples = data.get("samples") if isinstance(data, dict) else None
    if not isinstance(samples, list):
        if isinstance(data, dict) and data.get("status") in ("error", "started", "cancelled"):
            problems.add(f"the log holds no samples (eval status {data['status']!r})")
        else:
            problems.add("the log holds no samples[] (written with samples excluded?)")
        return
    for k, sample in enumerate(samples):
        yield from _sample(path, sample, f"samples[{k}]", problems)


def _convert_zip(path: str, problems: Problems) -> Iterator[dict[str, Any]]:
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ImportProblem(f"not a readable .eval zip: {exc}") from None
    with zf:
        names = sorted(
            (n for n in zf.namelist() if n.startswith("samples/") and n.endswith(".json")),
            key=_natural,
        )
        if not names:
            problems.add("the .eval file holds no samples/*.json entries")
        for name in names:
            try:
                sample, _note = loads(_read_member(zf, name))
            except _BAD_MEMBER as exc:
                # One damaged sample costs that sample, never the ones after it.
                problems.add(f"{name}: unreadable ({_why(exc)}), skipped")
                continue
            yield from _sample(path, sample, name, problems)


MAX_SAMPLE = 1 << 30
"""Decompressed bytes of one ``samples/*.json`` entry at most (its size in the zip may lie)."""
_BAD_MEMBER = (
    ValueError,  # bad JSON, and the too-large entry below
    zipfile.BadZipFile,  # bad CRC, bad local header
    zlib.error,  # a corrupt deflate stream
    OSError,
    EOFError,  # cut short
    NotImplementedError,  # a compression method zipfile does not have
    RuntimeError,  # an encrypted entry
)


def _read_member(zf: zipfile.ZipFile, name: str) -> bytes:
    """The entry's bytes, read no further than MAX_SAMPLE (a zip bomb stops there)."""
    with zf.open(name) as fh:
        data = fh.read(MAX_SAMPLE + 1)
    if len(data) > MAX_SAMPLE:
        raise ValueError(f"over {MAX_SAMPLE >> 20:,} MiB decompressed")
    return data


def _why(exc: BaseException) -> str:
    """A short reason: the kind of failure, with zlib's words for a corrupt stream."""
    if isinstance(exc, zlib.error):
        return "corrupt compressed data: " + str(exc).split(": ", 1)[-1]
    if type(exc) is ValueError:  # _read_member's own
        return str(exc)
    return type(exc).__name__


def _natural(name: str) -> list[Any]:
    import re

    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def _sample(path: str, sample: Any, where: str, problems: Problems) -> Iterator[dict[str, Any]]:
    if not isinstance(sample, dict):
        problems.add(f"{where}: not an object, skipped")
        return
    sid = f"{sample.get('id')}/{sample.get('epoch', 1)}"
    messages = as_list(sample.get("messages"))
    seen: dict[str, dict[str, Any]] = {}
    calls: list[tuple[int, dict[str, Any]]] = []
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            continue
        if msg.get("role") == "tool" and msg.get("tool_call_id") is not None:
            seen[str(msg["tool_call_id"])] = msg
        tool_calls = msg.get("tool_calls")
        for call in tool_calls if isinstance(tool_calls, list) else []:
            if msg.get("role") == "assistant" and isinstance(call, dict):
                calls.append((i, call))
    events = as_list(sample.get("events"))
    tool_events = [
        (i, e) for i, e in enumerate(events) if isinstance(e, dict) and e.get("event") == "tool"
    ]
    if tool_events:
        for i, ev in tool_events:
            rec = guarded(
                problems,
                f"{where}.events[{i}]",
                _span,
                path,
                sid,
                i,
                ev,
                seen.get(str(ev.get("id"))),
                True,
            )
            if rec is not None:
                yield rec
        return
    for i, call in calls:
        rec = guarded(
            problems,
            f"{where}.messages[{i}]",
            _span,
            path,
            sid,
            i,
            call,
            seen.get(str(call.get("id"))),
            False,
        )
        if rec is not None:
            yield rec


def _span(
    path: str, sid: str, i: int, ev: dict[str, Any], msg: dict[str, Any] | None, is_event: bool
) -> dict[str, Any]:
    function = str(ev.get("function") or "?")
    args = as_dict(ev.get("arguments"))
    cmd = args.get(_SHELL.get(function, "\0"))
    shell = isinstance(cmd, str)
    argv = ["bash", "--login", "-c", cmd] if isinstance(cmd, str) else tool_argv(function, args)
    rec = base_record(FORMAT, path, f"{sid}/{ev.get('id')}", function, argv, rerunnable=shell)
    rec["sample"] = sid
    rec["source_index"] = i
    rec["source_list"] = "events" if is_event else "messages"
    if is_event:
        rec["started_at"] = ev.get("timestamp") if isinstance(ev.get("timestamp"), str) else None
        rec["duration_ms"] = duration_ms(ev.get("timestamp"), ev.get("completed"))
        wt = ev.get("working_time")
        if rec["duration_ms"] is None and isinstance(wt, (int, float)) and not isinstance(wt, bool):
            rec["duration_ms"] = round(float(wt) * 1000.0, 3)
    view = as_dict(ev.get("view"))
    rec["agent_note"] = one_line(view.get("title")) if view else None
    full = text_of(ev.get("result")) if is_event and ev.get("result") is not None else None
    error = ev.get("error") if isinstance(ev.get("error"), dict) else None
    if msg is not None:
        preview = text_of(msg.get("content"))
        if isinstance(msg.get("error"), dict):
            error = error or msg["error"]
            if not preview:
                preview = str(msg["error"].get("message") or "")
    else:
        preview = full if full is not None else ""
    if error is not None and not full:
        full = None  # an empty result beside an error is no output: the error text is what was read
    pair = ev.get("truncated")
    if isinstance(pair, list) and len(pair) == 2 and all(as_int(v) is not None for v in pair):
        set_output(rec, preview, full=full, cut="head_tail")
        rec["stdout_bytes"], rec["stdout_cap"] = as_int(pair[0]), as_int(pair[1])
        rec.pop("stdout_head_bytes", None)
        rec.pop("stdout_tail_bytes", None)
    else:
        set_output(rec, preview, full=full, complete=True)
    code = _sandbox_exit(ev.get("events"))
    if code is not None:
        set_exit(rec, code)
    elif is_event and ev.get("pending") is True and error is None:
        set_no_result(rec, "still running when the log was written")
    elif error is not None and error.get("type") == "approval":
        message = one_line(error.get("message"))
        set_exit(
            rec, None, "not run: the approver refused it" + (f": {message}" if message else "")
        )
        rec["not_executed"] = True
    elif error is not None:
        kind, message = error.get("type"), one_line(error.get("message"))
        set_exit(rec, None, f"{NO_CODE}: {kind}" + (f": {message}" if message else ""))
    else:
        set_exit(rec, 0)
    return rec


def _sandbox_exit(events: Any) -> int | None:
    """The exit code of the last sandbox exec nested in a tool event, when the log nests them."""
    if not isinstance(events, list):
        return None
    code = None
    for ev in events:
        if isinstance(ev, dict) and ev.get("event") == "sandbox" and ev.get("action") == "exec":
            code = as_int(ev.get("result"))
    return code


IMPORTER = Format(name=FORMAT, sniff=sniff, convert=convert, markers=("inspect-ai",))
