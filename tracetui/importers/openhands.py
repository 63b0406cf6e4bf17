"""OpenHands: evaluation ``output.jsonl`` (one instance per line, events in ``history[]``), or an
event stream (one event per line, or one JSON list of events).

An action event (``action: "run"`` with ``args.command``; other tools: ``read``, ``edit``,
``run_ipython``, ``browse``…) is paired with the observation whose ``cause`` is the action's
``id`` (or, failing that, the same ``tool_call_metadata.tool_call_id``). Older logs keep
``history`` as ``[action, observation]`` pairs; both shapes are read.

Exit: ``extras.metadata.exit_code`` (older: ``extras.exit_code``), else the suffix
``[The command completed with exit code N.]``. OpenHands writes ``-1`` when a command had not
finished (still running, or timed out): that is no exit status, so it becomes ``exit_code:
null``, exit unknown (not a failure), with an ``exit_note`` saying so; so does a command with
no code at all. An ``error`` observation is a failure with no code.

Parent links: an action with ``args.is_input`` sends input to the command still running, so it
continues that command: its parent is the last command run before it in the same instance.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tracetui.importers._common import (
    NO_CODE,
    InOrder,
    Problems,
    as_dict,
    as_int,
    base_record,
    duration_ms,
    guarded,
    iter_jsonl,
    load_json,
    one_line,
    open_bytes,
    set_exit,
    set_no_result,
    set_output,
    shell_argv,
    text_of,
    tool_argv,
)
from tracetui.importers.openhands_v1 import first_line_shape, is_v1_line, looks_v1
from tracetui.importers.protocol import NO, Format, Head

FORMAT = "openhands"
_SOURCE = re.compile(r'"source"\s*:\s*"(agent|user|environment)"')
_SUFFIX = re.compile(r"\[The command completed with exit code (-?\d+)\.\]")
_NOT_TOOLS = {
    "message",
    "system",
    "finish",
    "think",
    "recall",
    "change_agent_state",
    "null",
    "condensation",
    "reject",
    "delegate",
    "mcp_list",
}


def sniff(head: Head) -> int:
    """An instance line (``instance_id`` + ``history[]``) or an event line; else, as a whole
    document, an ``output.jsonl`` whose first line is longer than the head (strong) or an event
    list saved as one JSON array (weak: checked after every other document format). V1 events
    (a ``kind`` the SDK writes) are openhands_v1's, whatever else the head holds."""
    line = head.line_confidence(_is_instance_or_event)
    if line:
        return line
    if looks_v1(head):
        return NO
    if head.has("instance_id", "history"):
        return 60
    if head.text.startswith("[") and head.has("action") and _SOURCE.search(head.text):
        return 20
    return NO


def _is_instance_or_event(obj: dict[str, Any]) -> bool:
    if is_v1_line(obj):
        return False
    if isinstance(obj.get("history"), list) and ("instance_id" in obj or "instance" in obj):
        return True
    return (
        isinstance(obj.get("id"), int)
        and ("action" in obj or "observation" in obj)
        and "source" in obj
    )


def convert(path: str, problems: Problems) -> Iterator[dict[str, Any]]:
    with open_bytes(path) as fh:
        first = fh.read(256).lstrip()
    if first.startswith(b"["):
        events = load_json(path)
        yield from _instance(path, None, events, problems, "")
        return
    stream: list[Any] = []
    for line_no, obj in iter_jsonl(path, problems):
        if isinstance(obj, dict) and isinstance(obj.get("history"), list):
            instance = obj.get("instance_id")
            yield from _instance(
                path,
                line_no,
                obj["history"],
                problems,
                f"line {line_no}: ",
                str(instance) if instance is not None else None,
            )
        elif isinstance(obj, dict) and "history" in obj:
            problems.add(f"line {line_no}: history is not a list")
        elif isinstance(obj, dict) and ("action" in obj or "observation" in obj):
            stream.append(obj)
    if stream:
        yield from _instance(path, None, stream, problems, "")


def _shape(path: str) -> str | None:
    return first_line_shape(path, lambda obj: "history" in obj or _is_instance_or_event(obj))


def _instance(
    path: str,
    line_no: int | None,
    history: Any,
    problems: Problems,
    where: str,
    instance: str | None = None,
) -> Iterator[dict[str, Any]]:
    if not isinstance(history, list):
        problems.add(f"{where}history is not a list")
        return
    pairs: list[tuple[int, dict[str, Any], dict[str, Any] | None]] = []
    if history and all(isinstance(h, list) for h in history):
        # Older logs: [action, observation] pairs.
        for i, pair in enumerate(history):
            if len(pair) == 2 and isinstance(pair[0], dict):
                pairs.append((i, pair[0], pair[1] if isinstance(pair[1], dict) else None))
    else:
        observations: dict[str, dict[str, Any]] = {}
        by_call: dict[str, dict[str, Any]] = {}
        for ev in history:
            if isinstance(ev, dict) and "observation" in ev:
                if ev.get("cause") is not None:
                    observations.setdefault(str(ev["cause"]), ev)
                call_id = _call_id(ev)
                if call_id:
                    by_call.setdefault(call_id, ev)
        for i, ev in enumerate(history):
            if isinstance(ev, dict) and "action" in ev:
                obs = observations.get(str(ev.get("id"))) or by_call.get(_call_id(ev) or "\0")
                pairs.append((i, ev, obs))
    last_run: str | None = None
    for i, action, obs in pairs:
        if not isinstance(action.get("action"), str) or action["action"] in _NOT_TOOLS:
            continue
        rec = guarded(
            problems, f"{where}history[{i}]", _span, path, line_no, i, action, obs, instance
        )
        if rec is None:
            continue
        if rec["tool_name"] == "run":
            if rec.pop("_is_input", False):
                rec["parent_command_id"] = last_run
            else:
                last_run = rec["command_id"]
        rec.pop("_is_input", None)
        yield rec


class StreamFeeder:
    """An event stream (or ``output.jsonl``) fed one line at a time as it is written.

    An action becomes a call, held until its observation arrives (paired as :func:`convert`
    pairs them: by ``cause``, else by ``tool_call_id``, the first observation of each); calls
    come out in action order. An instance line (``history[]``) is whole: its calls at once."""

    def __init__(self, path: str, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.calls = InOrder()
        self.open: dict[str, tuple[int, dict[str, Any]]] = {}
        """Key → (stream index, action) of the calls still waiting for their observation."""
        self.by_cause: dict[str, dict[str, Any]] = {}
        self.by_call: dict[str, dict[str, Any]] = {}
        self.count = 0
        self.last_run: str | None = None

    def feed(self, line_no: int, obj: Any) -> list[dict[str, Any]]:
        if not isinstance(obj, dict):
            return []
        if isinstance(obj.get("history"), list):
            instance = obj.get("instance_id")
            where = f"line {line_no}: "
            name = str(instance) if instance is not None else None
            return list(_instance(self.path, line_no, obj["history"], self.problems, where, name))
        if "history" in obj:
            self.problems.add(f"line {line_no}: history is not a list")
            return []
        if "action" not in obj and "observation" not in obj:
            return []
        i = self.count
        self.count += 1
        out: list[dict[str, Any]] = []
        if "observation" in obj:
            out.extend(self._observation(obj))
        if "action" in obj:
            out.extend(self._action(i, obj))
        return out

    def _pair(self, action: dict[str, Any]) -> dict[str, Any] | None:
        return self.by_cause.get(str(action.get("id"))) or self.by_call.get(
            _call_id(action) or "\0"
        )

    def _action(self, i: int, action: dict[str, Any]) -> list[dict[str, Any]]:
        if not isinstance(action.get("action"), str) or action["action"] in _NOT_TOOLS:
            return []
        obs = self._pair(action)
        rec = guarded(self.problems, f"history[{i}]", _span, self.path, None, i, action, obs, None)
        if rec is None:
            return []
        if rec["tool_name"] == "run":
            if rec.pop("_is_input", False):
                rec["parent_command_id"] = self.last_run
            else:
                self.last_run = rec["command_id"]
        rec.pop("_is_input", None)
        key = f"#{i}"
        self.calls.add(key, rec)
        if obs is not None:
            return list(self.calls.finish(key))
        self.open[key] = (i, action)
        return []

    def _observation(self, obs: dict[str, Any]) -> list[dict[str, Any]]:
        if obs.get("cause") is not None:
            self.by_cause.setdefault(str(obs["cause"]), obs)
        call_id = _call_id(obs)
        if call_id:
            self.by_call.setdefault(call_id, obs)
        out: list[dict[str, Any]] = []
        for key, (i, action) in list(self.open.items()):
            found = self._pair(action)
            if found is None:
                continue
            del self.open[key]
            held = self.calls.records[key]
            rec = guarded(
                self.problems, f"history[{i}]", _span, self.path, None, i, action, found, None
            )
            if rec is None:
                self.calls.records[key] = {"_dropped": True}
            else:
                rec.pop("_is_input", None)
                rec["parent_command_id"] = held["parent_command_id"]
                self.calls.records[key] = rec
            out.extend(r for r in self.calls.finish(key) if not r.get("_dropped"))
        return out

    def pending(self) -> list[dict[str, Any]]:
        out = []
        for key, rec in self.calls.records.items():
            if rec.get("_dropped"):
                continue
            copy = dict(rec)
            if key in self.open:
                for name in ("exit_note", "result_missing"):
                    copy.pop(name, None)  # not missing yet: still running
                copy["running"] = True
            out.append(copy)
        return out

    def finish(self) -> list[dict[str, Any]]:
        self.open.clear()
        return [rec for _key, rec in self.calls.rest() if not rec.get("_dropped")]


def _call_id(ev: dict[str, Any]) -> str | None:
    meta = ev.get("tool_call_metadata")
    if isinstance(meta, dict) and meta.get("tool_call_id"):
        return str(meta["tool_call_id"])
    return None


def _span(
    path: str,
    line_no: int | None,
    i: int,
    action: dict[str, Any],
    obs: dict[str, Any] | None,
    instance: str | None,
) -> dict[str, Any]:
    kind = str(action["action"])
    args = as_dict(action.get("args"))
    command = args.get("command")
    shell = kind == "run" and isinstance(command, str)
    argv = shell_argv(command) if shell and isinstance(command, str) else tool_argv(kind, args)
    ident = action.get("id", i)
    cid = f"{instance}:{ident}" if instance is not None else str(ident)
    rec = base_record(FORMAT, path, cid, kind, argv, rerunnable=shell)
    if line_no is not None:
        rec["source_line"] = line_no
    rec["source_index"] = i
    if instance is not None:
        rec["instance_id"] = instance
    rec["started_at"] = (
        action.get("timestamp") if isinstance(action.get("timestamp"), str) else None
    )
    rec["agent_note"] = one_line(args.get("thought")) or one_line(action.get("thought"))
    rec["_is_input"] = args.get("is_input") in (True, "true", "True")
    if isinstance(args.get("cwd"), str):
        rec["cwd"] = args["cwd"]
    if obs is None:
        set_no_result(rec, "no observation recorded (the run ended before the command returned?)")
        return rec
    rec["duration_ms"] = duration_ms(rec["started_at"], obs.get("timestamp"))
    text = text_of(obs.get("content"))
    # Older versions stored the output already cut, so an unmarked text proves nothing.
    set_output(rec, text)
    extras = as_dict(obs.get("extras"))
    meta = as_dict(extras.get("metadata"))
    if rec["cwd"] is None and isinstance(meta.get("working_dir"), str):
        rec["cwd"] = meta["working_dir"]
    if obs.get("observation") == "error":
        set_exit(rec, None, NO_CODE + (f": {one_line(text)}" if one_line(text) else ""))
        return rec
    if not shell:
        set_exit(rec, 0)
        return rec
    code = as_int(meta.get("exit_code"))
    if code is None:
        code = as_int(extras.get("exit_code"))
    if code is None:
        m = _SUFFIX.search(text) or _SUFFIX.search(str(meta.get("suffix") or ""))
        code = as_int(m.group(1)) if m else None
    if code == -1:
        note = "no exit code: the command had not finished (still running or timed out)"
        set_exit(rec, None, note=note)
    elif code is None:
        set_exit(rec, None, note="no exit code recorded")
    else:
        set_exit(rec, code)
    return rec


# ``generic``: the bare ``<response clipped>`` that starts OpenHands' clip notices.
IMPORTER = Format(
    name=FORMAT,
    sniff=sniff,
    convert=convert,
    markers=("openhands", "generic"),
    feeder=StreamFeeder,
    shape=_shape,
)
