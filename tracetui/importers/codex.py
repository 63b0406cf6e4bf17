"""Codex CLI: the ``codex exec --json`` event stream, and rollout files (``rollout-*.jsonl``).

- exec stream: ``item.started`` / ``item.completed`` events whose ``item`` has ``type:
  "command_execution"``, paired by ``item.id``; ``command`` is a shell string
  (``/bin/bash -lc '…'``), split into argv with shell rules; ``aggregated_output`` is the whole
  output (what the model read is not in this stream), ``exit_code`` and ``status``.
- rollout: lines ``{timestamp, type, payload}``. Calls and results are joined by ``call_id``
  across ``response_item`` (``function_call`` / ``local_shell_call`` and
  ``function_call_output``) and ``event_msg`` (``exec_command_begin`` / ``exec_command_end``
  with ``stdout``, ``stderr``, ``aggregated_output``, ``exit_code``, ``duration``,
  ``formatted_output``). ``formatted_output`` (else the function call output) is the preview:
  what the model saw; ``aggregated_output`` is the full output.

Events may be nested under a key (``data``, ``event``, ``msg``, ``payload``) by a wrapper; the
outer ``timestamp`` is used when present.

``exec_command`` (Codex's long-lived shell) answers with a header before the output: ``Wall
time: S seconds``, ``Process exited with code N`` (the exit) or ``Process running with session
ID N`` (still running: exit unknown), ``Original token count: N`` (the whole output's size in
tokens: a lower bound of its bytes, kept as such, never as a byte count), then ``Output:``. A
``write_stdin`` call types into such a session: it continues that command (its parent), and
its own header gives the process's exit once it ends. Codex does not retry a call otherwise.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from typing import Any

from tracetui.importers._common import (
    InOrder,
    Problems,
    as_dict,
    as_int,
    base_record,
    duration_ms,
    parse_time,
    set_exit,
    set_no_result,
    set_output,
    set_source_ok,
    shell_argv,
    text_of,
    tool_argv,
)
from tracetui.importers.protocol import Format, Head, feed_file

FORMAT = "codex"
_WRAPPERS = ("data", "event", "msg", "payload")
_EXEC_TYPES = {
    "thread.started",
    "turn.started",
    "item.started",
    "item.updated",
    "item.completed",
    "turn.completed",
    "turn.failed",
}
_ROLLOUT_TYPES = {"session_meta", "turn_context", "response_item", "event_msg", "compacted"}
_MSG_TYPES = {
    "exec_command_begin",
    "exec_command_end",
    "task_started",
    "agent_message",
    "session_configured",
    "task_complete",
    "token_count",
}
_NESTED_TYPES = _EXEC_TYPES | _MSG_TYPES
_TURN_ENDS = {"turn.completed", "turn.failed", "task_complete", "turn_aborted"}
_SHELL_FUNCTIONS = {"shell", "container.exec", "exec_command", "local_shell", "shell_command"}
_HEADER = re.compile(
    r"\A(?:Command: [^\n]*\n)?(?:Chunk ID: [^\n]*\n)?"
    r"Wall time: (?P<wall>\d{1,12}(?:\.\d{1,12})?) seconds\n"
    r"(?:Process exited with code (?P<code>-?\d{1,10})\n)?"
    r"(?:Process running with session ID (?P<session>\d{1,18})\n)?"
    r"(?:Original token count: (?P<tokens>\d{1,18})\n)?"
    r"Output:\n"
)


def sniff(head: Head) -> int:
    """An exec-stream event, a rollout line, or either nested under a wrapper's key."""
    return head.line_confidence(_is_event_line)


def _is_event_line(obj: dict[str, Any]) -> bool:
    kind = obj.get("type")
    if isinstance(kind, str) and (
        kind in _EXEC_TYPES or (kind in _ROLLOUT_TYPES and "payload" in obj)
    ):
        return True
    for key in _WRAPPERS:
        inner = obj.get(key)
        kind = inner.get("type") if isinstance(inner, dict) else None
        if isinstance(kind, str) and kind in _NESTED_TYPES:
            return True
    return False


def convert(path: str, problems: Problems) -> Iterator[dict[str, Any]]:
    return feed_file(EventFeeder(path), path, problems)


class EventFeeder:
    """Codex events converted line by line (:class:`~tracetui.importers.protocol.Feeder`).

    A call whose end never comes does not hold the calls after it for ever: the end of a turn
    (``turn.completed`` / ``turn.failed`` in the exec stream, ``task_complete`` /
    ``turn_aborted`` in a rollout) ends every call still waiting, as the end of the file would.
    """

    def __init__(self, path: str, problems: Problems | None = None) -> None:
        self.path = path
        self.calls = InOrder()
        self.done: set[str] = set()  # ids already let out: a late event for them is ignored
        self.cwd: str | None = None
        self.sessions: dict[str, str] = {}  # exec_command session id -> the call that opened it
        # call_id -> the key of its latest call: a function_call reusing the id of a call that
        # has ended is a new call under a key of its own (it was taken for a late event of the
        # first and dropped, a failing call lost without a word).
        self.key_of: dict[str, str] = {}

    def feed(self, line_no: int, obj: Any) -> list[dict[str, Any]]:
        if not isinstance(obj, dict):
            return []
        ts = next(
            (obj[k] for k in ("timestamp", "ts", "time") if isinstance(obj.get(k), str)), None
        )
        ev = _unwrap(obj)
        kind = ev.get("type")
        if kind in ("session_meta", "turn_context") or (ev.get("cwd") and kind is None):
            self.cwd = ev.get("cwd") if isinstance(ev.get("cwd"), str) else self.cwd
            return []
        if isinstance(kind, str) and kind in _TURN_ENDS:
            return self._end_all()
        item = ev.get("item")
        if isinstance(kind, str) and kind.startswith("item.") and isinstance(item, dict):
            # An exec-stream command: folded in, and let out once its completion arrives.
            if (
                item.get("type") in ("command_execution", "commandExecution")
                and str(item.get("id")) not in self.done
                and _exec_item(self.path, self.calls, line_no, ts, kind, item, self.cwd)
            ):
                return self._ready(str(item.get("id")))
            return []
        call_id = ev.get("call_id")
        if call_id is None:
            return []
        key = self.key_of.get(str(call_id), str(call_id))
        if kind == "function_call" and key in self.done:
            key = self.key_of[str(call_id)] = f"{call_id}\0{line_no}"
        if key in self.done:
            return []
        rec = self.calls.get(key)
        if rec is None:
            rec = _new(self.path, str(call_id), line_no, self.cwd)
            self.calls.add(key, rec)
        # The last event of a call: its output as sent to the model, or the end of an exec
        # when no function call asked for one (older exec streams).
        ended = _merge(rec, kind, ev, ts)
        self._link(rec, kind)
        if ended and (kind == "function_call_output" or not rec.get("_wants_output")):
            return self._ready(key)
        return []

    def _link(self, rec: dict[str, Any], kind: Any) -> None:
        """An exec_command session opened, or a write_stdin call continuing one (its parent)."""
        opened = rec.get("exec_session_id")
        if kind == "function_call_output" and opened is not None:
            self.sessions.setdefault(str(opened), str(rec["command_id"]))
        typed = rec.get("_stdin_session")
        if kind == "function_call" and typed is not None:
            rec["parent_command_id"] = self.sessions.get(str(typed))

    def _ready(self, key: str) -> list[dict[str, Any]]:
        self.done.add(key)
        return [_finish(rec) for rec in self.calls.finish(key)]

    def _end_all(self) -> list[dict[str, Any]]:
        self.done.update(self.calls.records)
        return self.finish()

    def pending(self) -> list[dict[str, Any]]:
        out = []
        for key, rec in self.calls.records.items():
            copy = dict(rec)
            if key in self.calls.finished:
                out.append(_finish(copy))
                continue
            for name in [k for k in copy if k.startswith("_")]:
                del copy[name]
            copy["running"] = True
            out.append(copy)
        return out

    def finish(self) -> list[dict[str, Any]]:
        return [_finish(rec) for _key, rec in self.calls.rest()]


def _unwrap(obj: dict[str, Any]) -> dict[str, Any]:
    ev = obj
    for _ in range(2):  # a wrapper around a rollout line: two levels at most
        if ev.get("type") in ("event_msg", "response_item") and isinstance(ev.get("payload"), dict):
            ev = ev["payload"]
            continue
        inner = next(
            (ev[k] for k in _WRAPPERS if isinstance(ev.get(k), dict) and "type" in ev[k]), None
        )
        if inner is None or (isinstance(ev.get("type"), str) and "item" in ev):
            break
        ev = inner
    return ev


def _new(path: str, cid: str, line_no: int, cwd: str | None) -> dict[str, Any]:
    rec = base_record(FORMAT, path, cid, "shell", [], rerunnable=True)
    rec["source_line"] = line_no
    rec["cwd"] = cwd
    return rec


def _argv(command: Any) -> list[str]:
    if isinstance(command, list) and all(isinstance(a, str) for a in command):
        return list(command)
    if isinstance(command, str):
        try:
            return shlex.split(command)
        except ValueError:
            return shell_argv(command)
    return []


def _exec_item(
    path: str,
    calls: InOrder,
    line_no: int,
    ts: Any,
    kind: str,
    item: dict[str, Any],
    cwd: str | None,
) -> bool:
    """Fold one exec-stream item event in; True when it completes the command."""
    cid = str(item.get("id"))
    rec = calls.get(cid)
    if rec is None:
        rec = _new(path, cid, line_no, cwd)
        calls.add(cid, rec)
        rec["started_at"] = ts if isinstance(ts, str) else None
    rec["argv"] = _argv(item.get("command")) or rec["argv"]
    rec["_status"] = item.get("status")
    if kind == "item.completed":
        rec["_end_ts"] = ts
        out = item.get("aggregated_output")
        rec["_full"] = out if isinstance(out, str) else None
        rec["_exit"] = as_int(item.get("exit_code"))
        rec["_ended"] = True
        return True
    return False


def _merge(rec: dict[str, Any], kind: Any, ev: dict[str, Any], ts: Any) -> bool:
    """Fold one event into its call's record; True when the event ends the call."""
    if kind in ("function_call", "local_shell_call"):
        args: Any = ev.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                args = {"command": args}
        action = as_dict(ev.get("action"))
        args = args if isinstance(args, dict) else action
        rec["_wants_output"] = True
        rec["tool_name"] = str(ev.get("name") or "shell")
        rec["rerunnable"] = rec["tool_name"] in _SHELL_FUNCTIONS or kind == "local_shell_call"
        cmd = args.get("cmd")  # exec_command: a script its shell runs
        rec["argv"] = rec["argv"] or (
            shell_argv(cmd) if isinstance(cmd, str) else _argv(args.get("command"))
        )
        if not rec["argv"]:  # no command: another tool (write_stdin, apply_patch, a plan…)
            rec["argv"] = tool_argv(rec["tool_name"], args)
        if rec["tool_name"] == "write_stdin" and as_int(args.get("session_id")) is not None:
            rec["_stdin_session"] = as_int(args.get("session_id"))
        workdir = args.get("workdir") or args.get("working_directory")
        rec["cwd"] = workdir if isinstance(workdir, str) else rec["cwd"]
        rec["started_at"] = rec["started_at"] or (ts if isinstance(ts, str) else None)
    elif kind == "exec_command_begin":
        rec["argv"] = _argv(ev.get("command")) or rec["argv"]
        rec["cwd"] = ev.get("cwd") if isinstance(ev.get("cwd"), str) else rec["cwd"]
        rec["started_at"] = ts if isinstance(ts, str) else rec["started_at"]
    elif kind == "exec_command_end":
        rec["_ended"] = True
        rec["_end_ts"] = ts
        full = ev.get("aggregated_output")
        if not isinstance(full, str) and isinstance(ev.get("stdout"), str):
            full = ev["stdout"] + (ev["stderr"] if isinstance(ev.get("stderr"), str) else "")
        rec["_full"] = full if isinstance(full, str) else None
        if isinstance(ev.get("stderr"), str) and ev["stderr"]:
            rec["full_stderr"] = ev["stderr"]
        if isinstance(ev.get("formatted_output"), str):
            rec["_seen"] = ev["formatted_output"]
        rec["_exit"] = as_int(ev.get("exit_code"))
        rec["duration_ms"] = _duration(ev.get("duration"))
        return True
    elif kind == "function_call_output":
        rec["_ended"] = True
        out = ev.get("output")
        meta: dict[str, Any] = {}
        if isinstance(out, str) and out.startswith("{"):
            try:
                parsed = json.loads(out)
                if isinstance(parsed, dict):
                    out, meta = parsed.get("output"), parsed.get("metadata") or {}
            except ValueError:
                pass
        rec.setdefault("_seen_call", text_of(out))
        if rec.get("_exit") is None and isinstance(meta, dict):
            rec["_exit"] = as_int(meta.get("exit_code"))
        _exec_header(rec, text_of(out))
        return True
    return False


def _exec_header(rec: dict[str, Any], text: str) -> None:
    """The facts of an exec_command / write_stdin output header (see the module docstring)."""
    m = _HEADER.match(text)
    if m is None:
        return
    if m["code"] is not None and rec.get("_exit") is None:
        rec["_exit"] = int(m["code"])
    if m["session"] is not None:
        rec["exec_session_id"] = int(m["session"])
        if rec.get("_exit") is None:
            rec["_still_running"] = True
    if m["tokens"] is not None:
        # A count of tokens, not bytes: the whole output was at least this many bytes.
        rec["original_tokens"] = int(m["tokens"])
        rec["stdout_bytes_at_least"] = int(m["tokens"])
    if rec["duration_ms"] is None:
        rec["duration_ms"] = round(float(m["wall"]) * 1000.0, 3)


def _duration(value: Any) -> float | None:
    """Codex writes ``{secs, nanos}``; a bare number is taken as seconds, ``"1.5s"``/``"20ms"`` parsed."""
    if isinstance(value, dict):
        secs, nanos = as_int(value.get("secs")) or 0, as_int(value.get("nanos")) or 0
        return round(secs * 1000.0 + nanos / 1e6, 3)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return round(float(value) * 1000.0, 3)
    if isinstance(value, str):
        m = re.fullmatch(r"\s*([\d.]+)\s*(ms|s)\s*", value)
        if m:
            return round(float(m.group(1)) * (1.0 if m.group(2) == "ms" else 1000.0), 3)
    return None


def _finish(rec: dict[str, Any]) -> dict[str, Any]:
    seen = rec.pop("_seen", None) or rec.pop("_seen_call", None)
    rec.pop("_seen_call", None)
    full = rec.pop("_full", None)
    end_ts = rec.pop("_end_ts", None)
    status = rec.pop("_status", None)
    rec.pop("_wants_output", None)
    rec.pop("_stdin_session", None)
    running = rec.pop("_still_running", False)
    if rec["duration_ms"] is None:
        rec["duration_ms"] = duration_ms(rec["started_at"], end_ts) if parse_time(end_ts) else None
    if seen is not None:
        # Codex marks the cuts it makes in what the model reads.
        set_output(rec, seen, full=full, complete=True)
    elif full is not None:
        # The exec stream keeps only the whole output: what the model read was not recorded, so
        # whether it was cut is unknown. A byte count would read as "not truncated": it goes in
        # a field of its own instead.
        set_output(rec, full)
        rec["output_bytes"] = len(full.encode("utf-8", errors="replace"))
        rec["model_view_recorded"] = False
    code = rec.pop("_exit", None)
    if status in ("completed", "failed"):  # the exec stream's own verdict on the command
        set_source_ok(rec, status == "completed", f"status: {status}")
    if not rec.pop("_ended", False):
        set_no_result(rec, "no end event (still running, or the stream was cut)")
    elif code is None and status == "failed":
        set_exit(rec, None, "command failed with no exit code recorded")
    elif code is None and running:
        note = (
            f"still running (session {rec.get('exec_session_id')}) when Codex returned its output"
        )
        set_exit(rec, None, note=note)
    elif code is None:
        set_exit(rec, None, note="no exit code recorded")  # and no failure: exit unknown
    else:
        set_exit(rec, code)
    return rec


IMPORTER = Format(name=FORMAT, sniff=sniff, convert=convert, markers=("codex",), feeder=EventFeeder)
