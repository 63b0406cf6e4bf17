"""OpenHands V1 (the software-agent SDK): a conversation's list of typed events.

Every event names its class in ``kind``. A tool call is an ``ActionEvent`` (``tool_name``,
``tool_call_id``, ``action`` with its own ``kind``: ``TerminalAction`` holds ``command``,
``is_input``…), answered by the event whose ``action_id`` is the action's ``id`` (or, failing
that, the same ``tool_call_id``): an ``ObservationEvent`` (its ``observation`` holds ``content``,
``is_error`` and, for the terminal, ``exit_code``, ``timeout``, ``metadata`` and
``full_output_save_dir``), an ``AgentErrorEvent`` or a ``UserRejectObservation``. Messages,
system prompts, state updates, ``think`` and ``finish`` are no calls. A ``Condensation`` drops
events from what the model sees next: the calls it names get ``forgotten_by_condenser``.

The events come as one JSON array (``events.json``), one object with ``events``/``items``, one
event per JSON line, an evaluation ``output.jsonl`` (``instance_id`` + ``history[]`` of events),
or the SDK's own folder of ``event-NNNNN-<id>.json`` files (one event each, in index order).

Exit (terminal): ``exit_code`` (else ``metadata.exit_code``). ``-1`` is no exit status: the
command was still running when OpenHands stopped waiting (no new output, a timeout: exit
unknown, with an ``exit_note``) or was interrupted (a failure); its suffix says which.
``is_error`` with no code is a failure with no code; a terminal call with neither has no exit
and no error (unknown). Other tools: ``is_error`` false is exit 0.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from typing import Any

from tracetui.importers._common import (
    InOrder,
    Problems,
    as_dict,
    as_list,
    base_record,
    guarded,
    iter_jsonl,
    load_json,
    one_line,
    open_bytes,
    set_no_result,
    shell_argv,
    text_of,
    tool_argv,
)
from tracetui.importers.openhands_v1_results import SHELL_TOOLS, result
from tracetui.importers.protocol import DOCUMENT, FOLDER, LINES, NO, Format, Head

FORMAT = "openhands-v1"

EVENT_KINDS = frozenset(
    {
        "ActionEvent",
        "ObservationEvent",
        "AgentErrorEvent",
        "UserRejectObservation",
        "MessageEvent",
        "SystemPromptEvent",
        "ConversationErrorEvent",
        "ConversationStateUpdateEvent",
        "Condensation",
        "CondensationRequest",
        "CondensationSummaryEvent",
        "PauseEvent",
        "TokenEvent",
        "LLMCompletionLogEvent",
    }
)
"""The event classes tracetui knows (the SDK has more; unknown ones are passed over)."""
KIND_PATTERN = re.compile(r'"kind"\s*:\s*"(' + "|".join(sorted(EVENT_KINDS)) + r')"')
"""A known event kind written in a file's text (for whole-document sniffing)."""
_V1_KEYS = (("llm_message",), ("llm_response_id",), ("system_prompt", "tools"), ("action_id",))
"""Keys only V1 events have (beside ``source``): the SDK writes ``kind`` last, so in an event
bigger than the head (a system prompt with its tools) the kind may not be in it."""
EVENT_FILE = re.compile(r"^event-(\d{5,})-[0-9A-Za-z\-]{8,}\.json\Z")
"""The SDK's name for one event's file in a conversation's ``events/`` folder (``\\Z``, not ``$``,
which would also take a name ending in a newline)."""
_RESULTS = {"ObservationEvent", "AgentErrorEvent", "UserRejectObservation"}
_SHELL_ACTIONS = {"TerminalAction", "ExecuteBashAction", "BashAction"}
_NOT_TOOLS = {"finish", "think"}
_FIRST_LINE = 1 << 22
"""Bytes of a first line read to tell a line-by-line trace from a document (a system prompt
event with its tools can be large)."""


def sniff(head: Head) -> int:
    """An event line (a known ``kind``) or an instance line whose history holds such events;
    else, as a whole document (an array, a single event, a pretty-printed file), a known
    event kind in the head's text, or keys only V1 events have: above every other document
    format but OpenHands' own ``output.jsonl`` clue, which yields to it (see openhands.py)."""
    line = head.line_confidence(is_v1_line)
    if line:
        return line
    return 55 if looks_v1(head) else NO


def looks_v1(head: Head) -> bool:
    """Whole-document evidence of V1 events: a known event kind, or V1's own keys."""
    if head.text[:1] not in "[{":
        return False
    if KIND_PATTERN.search(head.text):
        return True
    return head.has("source") and any(head.has(*keys) for keys in _V1_KEYS)


def is_v1_line(obj: dict[str, Any]) -> bool:
    """Whether one JSON line is a V1 event, or an evaluation instance holding V1 events."""
    if obj.get("kind") in EVENT_KINDS:
        return True
    history = obj.get("history")
    if isinstance(history, list) and ("instance_id" in obj or "instance" in obj):
        first = next((h for h in history if isinstance(h, dict)), None)
        return first is not None and first.get("kind") in EVENT_KINDS
    return False


def event_files(names: list[str]) -> list[str]:
    """The SDK's event files among ``names``, in event-index order."""
    found = [(int(m.group(1)), n) for n in names if (m := EVENT_FILE.match(n))]
    return [n for _i, n in sorted(found)]


# ------------------------------------------------------------------------------------ reading
Located = tuple[Any, str, int | None, int]
"""An event, the file it came from, its line there (JSON Lines) and its position in the list."""


def convert(path: str, problems: Problems) -> Iterator[dict[str, Any]]:
    if os.path.isdir(path):
        yield from Conversation(path, None, problems).run(_folder(path, problems))
        return
    if not _is_json_lines(path):
        data = load_json(path)
        yield from Conversation(path, None, problems).run(_located(path, _events_of(data)))
        return
    stream: list[Located] = []
    for line_no, obj in iter_jsonl(path, problems):
        if not isinstance(obj, dict):
            problems.add(f"line {line_no}: not a JSON object, skipped")
        elif isinstance(obj.get("history"), list) and obj.get("kind") is None:
            instance = obj.get("instance_id", obj.get("instance"))
            events: list[Located] = [(e, path, line_no, i) for i, e in enumerate(obj["history"])]
            conv = Conversation(path, None if instance is None else str(instance), problems)
            yield from conv.run(events)
        elif "kind" in obj:
            stream.append((obj, path, line_no, len(stream)))
    if stream:
        yield from Conversation(path, None, problems).run(stream)


def _is_json_lines(path: str) -> bool:
    """Whether the file is JSON Lines: a complete JSON first line with more after it, or one
    event line ended by its newline (an event-lines file with one line so far: read as the
    follower reads it, so both give the same records)."""
    import orjson

    with open_bytes(path) as fh:
        first = fh.readline()  # a document on one line is read whole below anyway
        rest = fh.read(4096)
    try:
        obj = orjson.loads(first)
    except orjson.JSONDecodeError:
        return False
    if rest.strip():
        return True
    return first.endswith(b"\n") and isinstance(obj, dict) and obj.get("kind") in EVENT_KINDS


def _events_of(data: Any) -> list[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in ("events", "items", "history"):
            if isinstance(data.get(key), list):
                return list(data[key])
        return [data]  # one event's file
    return []


def _located(path: str, events: list[Any]) -> list[Located]:
    return [(e, path, None, i) for i, e in enumerate(events)]


def _folder(path: str, problems: Problems) -> list[Located]:
    """The events of an SDK ``events/`` folder, one file each, in index order."""
    out: list[Located] = []
    for i, name in enumerate(event_files(sorted(os.listdir(path)))):
        full = os.path.join(path, name)
        try:
            out.append((load_json(full), full, None, i))
        except (OSError, ValueError) as exc:
            problems.add(f"{name}: {getattr(exc, 'strerror', None) or exc}, skipped")
    return out


# ------------------------------------------------------------------------------- conversation
class Conversation:
    """The calls of one conversation (or one evaluation instance), folded event by event."""

    def __init__(self, path: str, instance: str | None, problems: Problems) -> None:
        self.path = path
        self.instance = instance
        self.problems = problems
        self.calls = InOrder()
        self.by_call_id: dict[str, str] = {}  # tool_call_id -> the action's key
        self.last_run: str | None = None
        self.errors: list[str] = []  # the conversation errors so far, in order

    def run(self, events: list[Located]) -> Iterator[dict[str, Any]]:
        forgotten: set[str] = set()
        for ev, *_ in events:
            if isinstance(ev, dict) and ev.get("kind") == "Condensation":
                forgotten.update(str(i) for i in as_list(ev.get("forgotten_event_ids")))
        for located in events:
            yield from self.take(located, forgotten)
        yield from self.rest()

    def take(self, located: Located, forgotten: set[str]) -> list[dict[str, Any]]:
        """Fold in one event; the calls it lets out, in call order."""
        ev, src, line_no, i = located
        where = f"line {line_no}" if line_no is not None else f"event {i}"
        if not isinstance(ev, dict):
            self.problems.add(f"{where}: not a JSON object, skipped")
            return []
        out = guarded(self.problems, where, self._event, ev, src, line_no, i, forgotten)
        return out or []

    def rest(self) -> list[dict[str, Any]]:
        """The calls still held, ended as the conversation ended (no result for the open ones)."""
        out = []
        for _key, rec in self.calls.rest():
            if rec.get("_open"):
                # The first conversation error after the call, if any, left it unanswered.
                after = int(rec.get("_errors_before", 0))
                stopped = self.errors[after] if after < len(self.errors) else None
                why = (
                    f"no observation: the conversation stopped with an error ({stopped})"
                    if stopped
                    else "no observation recorded (the conversation ended before the tool returned?)"
                )
                set_no_result(rec, why)
            out.append(_clean(rec))
        return out

    def held(self) -> list[dict[str, Any]]:
        """Copies of the calls held, in call order: an open one marked ``running``."""
        out = []
        for rec in self.calls.records.values():
            copy = _clean(dict(rec))
            if rec.get("_open"):
                copy["running"] = True
            out.append(copy)
        return out

    def _event(
        self,
        ev: dict[str, Any],
        src: str,
        line_no: int | None,
        i: int,
        forgotten: set[str],
    ) -> list[dict[str, Any]]:
        kind = ev.get("kind")
        if kind == "ActionEvent":
            self._action(ev, src, line_no, i, str(ev.get("id")) in forgotten)
            return []
        if kind in _RESULTS:
            key = self._key_for(ev)
            rec = self.calls.get(key) if key else None
            if rec is None or not rec.get("_open"):
                return []  # a result for no call we hold (a finish/think, or a duplicate)
            rec.pop("_open")
            result(rec, ev)
            if str(ev.get("id")) in forgotten:
                rec["forgotten_by_condenser"] = True
            return [_clean(r) for r in self.calls.finish(key or "")]
        if kind == "ConversationErrorEvent":
            code, detail = one_line(ev.get("code"), 80), one_line(ev.get("detail"))
            self.errors.append(": ".join(t for t in (code, detail) if t) or "no detail")
        return []

    def _key_for(self, ev: dict[str, Any]) -> str | None:
        action_id = ev.get("action_id")
        if action_id is not None and self.calls.get(str(action_id)) is not None:
            return str(action_id)
        call_id = ev.get("tool_call_id")
        return self.by_call_id.get(str(call_id)) if call_id is not None else None

    def _action(
        self, ev: dict[str, Any], src: str, line_no: int | None, i: int, forgotten: bool
    ) -> None:
        tool = ev.get("tool_name")
        tool = tool if isinstance(tool, str) and tool else "?"
        if tool in _NOT_TOOLS:
            return
        action = as_dict(ev.get("action"))
        args = {k: v for k, v in action.items() if k != "kind"} or _arguments(ev)
        command = args.get("command")
        shell = isinstance(command, str) and (
            tool in SHELL_TOOLS or action.get("kind") in _SHELL_ACTIONS
        )
        is_input = args.get("is_input") in (True, "true", "True")
        argv = shell_argv(str(command)) if shell else tool_argv(tool, args)
        key = event_id = str(ev.get("id", f"#{i}"))
        if self.calls.get(key) is not None:
            # An event id used again while the earlier action is held: a key of its own (the
            # earlier call was overwritten, lost, and its observation given to this one).
            key = f"{key}\0#{i}"
        call_id = ev.get("tool_call_id")
        ident = str(call_id) if call_id is not None else event_id
        cid = f"{self.instance}:{ident}" if self.instance is not None else ident
        rec = base_record(FORMAT, src, cid, tool, argv, rerunnable=shell and not is_input)
        if line_no is not None:
            rec["source_line"] = line_no
        rec["source_index"] = i
        rec["source_event_id"] = event_id
        if self.instance is not None:
            rec["instance_id"] = self.instance
        rec["started_at"] = ev.get("timestamp") if isinstance(ev.get("timestamp"), str) else None
        rec["agent_note"] = one_line(ev.get("summary")) or one_line(text_of(ev.get("thought")))
        if forgotten:
            rec["forgotten_by_condenser"] = True
        if shell:
            rec["_shell"] = True
            if is_input:
                rec["parent_command_id"] = self.last_run
            else:
                self.last_run = cid
        if ev.get("action") is None:
            rec["not_executed"] = True  # the SDK could not turn the call into an action
        rec["_open"] = True
        rec["_errors_before"] = len(self.errors)
        self.calls.add(key, rec)
        if call_id is not None:
            self.by_call_id.setdefault(str(call_id), key)


def _arguments(ev: dict[str, Any]) -> dict[str, Any]:
    """A call's arguments from its ``tool_call`` (when the SDK made no ``action`` of it)."""
    import orjson

    raw = as_dict(ev.get("tool_call")).get("arguments")
    if isinstance(raw, str):
        try:
            raw = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return {"arguments": raw}
    return as_dict(raw)


def _clean(rec: dict[str, Any]) -> dict[str, Any]:
    for k in ("_open", "_shell", "_errors_before"):
        rec.pop(k, None)
    return rec


# ------------------------------------------------------------------------------------ live
class EventFeeder:
    """V1 events fed one at a time as they are written: JSON lines (:meth:`feed`) or the files
    of an ``events/`` folder (:meth:`feed_file`). Calls come out in call order, as
    :func:`convert` gives them, with one difference it cannot avoid: a ``Condensation`` marks
    the calls it names ``forgotten_by_condenser`` only when they are still held (a whole read
    also marks the ones let out before it)."""

    def __init__(self, path: str, problems: Problems) -> None:
        self.path = path
        self.problems = problems
        self.conv = Conversation(path, None, problems)
        self.forgotten: set[str] = set()
        self.count = 0

    def feed(self, line_no: int, obj: Any) -> list[dict[str, Any]]:
        if not isinstance(obj, dict):
            self.problems.add(f"line {line_no}: not a JSON object, skipped")
            return []
        if isinstance(obj.get("history"), list) and obj.get("kind") is None:
            # An evaluation instance: whole in its line, converted at once.
            instance = obj.get("instance_id", obj.get("instance"))
            events: list[Located] = [
                (e, self.path, line_no, i) for i, e in enumerate(obj["history"])
            ]
            conv = Conversation(
                self.path, None if instance is None else str(instance), self.problems
            )
            return list(conv.run(events))
        if "kind" not in obj:
            return []
        self.count += 1
        return self._take((obj, self.path, line_no, self.count - 1))

    def entries(self, names: list[str]) -> list[str]:
        return event_files(names)

    def feed_file(self, index: int, path: str, obj: Any) -> list[dict[str, Any]]:
        return self._take((obj, path, None, index))

    def _take(self, located: Located) -> list[dict[str, Any]]:
        ev = located[0]
        if isinstance(ev, dict) and ev.get("kind") == "Condensation":
            ids = {str(i) for i in as_list(ev.get("forgotten_event_ids"))}
            self.forgotten.update(ids)
            for rec in self.conv.calls.records.values():
                if str(rec.get("source_event_id")) in ids:
                    rec["forgotten_by_condenser"] = True
        return self.conv.take(located, self.forgotten)

    def pending(self) -> list[dict[str, Any]]:
        return self.conv.held()

    def finish(self) -> list[dict[str, Any]]:
        return self.conv.rest()


def first_line_shape(path: str, is_event: Callable[[dict[str, Any]], bool]) -> str | None:
    """How an OpenHands event trace at ``path`` is followed: a folder file by file; a file
    whose first line is an event (``is_event``) line by line; any other (a JSON array, an
    object holding the events, a pretty-printed document) read again whole. None while the
    first line is unfinished."""
    import orjson

    if os.path.isdir(path):
        return FOLDER
    try:
        with open_bytes(path) as fh:
            first = fh.readline(_FIRST_LINE)
    except (OSError, EOFError):
        return DOCUMENT
    text = first.lstrip(b"\xef\xbb\xbf \t\r")
    if text.startswith(b"["):
        return DOCUMENT
    if not first.endswith(b"\n"):
        return None if len(first) < _FIRST_LINE else DOCUMENT
    try:
        obj = orjson.loads(text)
    except orjson.JSONDecodeError:
        return DOCUMENT
    return LINES if isinstance(obj, dict) and is_event(obj) else DOCUMENT


def _shape(path: str) -> str | None:
    return first_line_shape(path, lambda obj: is_v1_line(obj) or "kind" in obj)


# ``generic``: the bare ``<response clipped>`` that starts OpenHands' clip notices.
IMPORTER = Format(
    name=FORMAT,
    sniff=sniff,
    convert=convert,
    markers=("openhands", "generic"),
    feeder=EventFeeder,
    folder_feeder=EventFeeder,
    shape=_shape,
)
