"""Claude Code session JSONL: one span per ``tool_use`` in an assistant line, with its result.

The call sits in an assistant line's ``message.content[]`` (``type: tool_use``), the result in a
later user line's ``message.content[]`` (``type: tool_result``, same ``tool_use_id``), with the
tool's own view of it in that line's top-level ``toolUseResult``.

Choices (see docs/importers.md):
- ``parentUuid`` links messages, not retries, so no span gets a parent.
- Bash calls become ``["bash", "-lc", command]``; other tools ``[name, JSON input]``.
- Exit: ``Exit code N`` at the start of the result text; else a call the user interrupted
  (``[Request interrupted by user``, ``toolUseResult.interrupted``) is a failure with no code,
  and one the user refused (``The user doesn't want to …``) a failure that never ran
  (``not_executed``), as OpenHands V1's rejections; else ``is_error`` alone is a failure with no
  code; else 0 (the tool reported success). A call with no result is exit unknown.
- The result text is what the model saw. For Bash, ``toolUseResult.stdout``/``stderr`` is the
  tool's own copy: when it is longer and carries no marker it is the full output.
- Timing: the call line's timestamp, and the time until the result line (approximate).
- ``--output-format stream-json`` (``claude -p``) writes the same lines with snake_case ids
  (``session_id``, ``tool_use_result``, ``parent_tool_use_id``: a sub-agent's lines name the
  Task call that runs them, its calls' parent), no timestamps, and the cwd once, in its
  ``system`` line.
- Sub-agents: a Task (or Agent) call whose result names an ``agentId`` ran a sub-agent, whose
  own lines are in ``<session>/subagents/agent-<agentId>.jsonl`` beside the session: its calls
  come right after the Task call, as its children (``parent_command_id``).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from typing import IO, Any

from tracetui.importers._common import (
    NO_CODE,
    InOrder,
    Problems,
    as_dict,
    as_int,
    base_record,
    duration_ms,
    guarded,
    one_line,
    set_exit,
    set_no_result,
    set_output,
    set_source_ok,
    shell_argv,
    text_of,
    tool_argv,
)
from tracetui.importers.protocol import Format, Head, feed_file
from tracetui.store.reader import iter_lines, loads, open_regular

FORMAT = "claude-code"
_EXIT = re.compile(r"\AExit code (-?\d+)\b")
_INTERRUPTED = "[Request interrupted by user"
_REFUSED = "The user doesn't want to"
# A big result Claude Code saved to a file, showing the model only a preview of its head.
_SAVED = re.compile(
    r"^<persisted-output>\nOutput too large \(([^)\n]{1,40})\)\. Full output saved to: ([^\n]+)\n",
    re.M,
)
_LINE_TYPES = {"user", "assistant", "summary", "system", "file-history-snapshot"}
_AGENT_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")
_DENIED = re.compile(
    r"\A(?:Error: )?(?:Permission (?:to use \S+ |for this action )has been denied)"
)
MAX_DEPTH = 4
"""Sub-agents of sub-agents read at most this deep (a loop of files names itself again)."""


def sniff(head: Head) -> int:
    """A session line: one of Claude Code's line types, with its message or session ids."""
    return head.line_confidence(_is_session_line)


def _is_session_line(obj: dict[str, Any]) -> bool:
    """One of Claude Code's line types with one of its ids; or a line of a type newer versions
    added (``progress``, ``queue-operation``…) with both its session and its message id."""
    kind = obj.get("type")
    if not isinstance(kind, str):
        return False
    if kind not in _LINE_TYPES:
        return "sessionId" in obj and "uuid" in obj
    return "uuid" in obj or "sessionId" in obj or "leafUuid" in obj or "session_id" in obj


def convert(path: str, problems: Problems) -> Iterator[dict[str, Any]]:
    return feed_file(SessionFeeder(path, problems), path, problems)


class SessionFeeder:
    """A session converted line by line (:class:`~tracetui.importers.protocol.Feeder`).

    A call whose result never comes does not hold the calls after it for ever: when a main-chain
    assistant line starts a new message (its ``message.id`` not seen before), every call still
    waiting from an earlier message has lost its result — Claude Code sends every result of a
    turn before the model's next turn, and a sub-agent's calls end before the Task that ran it.
    Lines without message ids never end a call early.
    """

    def __init__(
        self,
        path: str,
        problems: Problems,
        *,
        subagents: str | None = None,
        depth: int = 0,
        agents_read: dict[str, str] | None = None,
    ) -> None:
        self.path = path
        self.problems = problems
        self.calls = InOrder()
        # Calls still waiting for their result → the assistant message they came in (calls of a
        # line without a message id are not here: they are never ended early). Only these are
        # looked at on a new turn: walking every record held behind one call that never ends
        # made a session quadratic (20,000 calls: 388 s).
        self.message_of: dict[str, str] = {}
        self.messages: set[str] = set()
        self.cwd: str | None = None  # stream-json names it once, in its system line
        self.depth = depth
        # Where this session's sub-agents' files are: <session>/subagents/ beside the session.
        stem = os.path.basename(path).removesuffix(".jsonl")
        self.subagents = subagents or os.path.join(os.path.dirname(path), stem, "subagents")
        # Each sub-agent's file is read once in the whole tree (agent id → the call it went
        # under): Task calls naming one again, or a file naming itself, would multiply it.
        self.agents_read = {} if agents_read is None else agents_read
        # tool_use id → the keys of its calls still waiting for a result, oldest first. An id
        # used again while an earlier call with it is held gets a key of its own (the earlier
        # call was overwritten and lost), and results are given to its calls in order.
        self.open_keys: dict[str, list[str]] = {}

    def feed(self, line_no: int, obj: Any) -> list[dict[str, Any]]:
        if not isinstance(obj, dict):
            return []
        if obj.get("type") == "system" and isinstance(obj.get("cwd"), str):
            self.cwd = obj["cwd"]
        msg = obj.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if not isinstance(content, list):
            return []
        out: list[dict[str, Any]] = []
        if obj.get("type") == "assistant":
            assert isinstance(msg, dict)
            side = obj.get("isSidechain") is True or isinstance(obj.get("parent_tool_use_id"), str)
            out.extend(self._new_turn(msg.get("id"), side))
            for item in content:
                if isinstance(item, dict) and item.get("type") == "tool_use":
                    rec = guarded(
                        self.problems, f"line {line_no}", _call, self.path, line_no, obj, item
                    )
                    if rec is not None:
                        rec["cwd"] = rec["cwd"] or self.cwd
                        key = self._key_for(str(rec["command_id"]), line_no)
                        self.calls.add(key, rec)
                        mid = msg.get("id")
                        if isinstance(mid, str):
                            self.message_of[key] = mid
        elif obj.get("type") == "user":
            results = [i for i in content if isinstance(i, dict) and i.get("type") == "tool_result"]
            # toolUseResult belongs to the line; it can only be matched when the line holds one result.
            tool_result = obj.get("toolUseResult", obj.get("tool_use_result"))
            tool_result = tool_result if len(results) == 1 else None
            for item in results:
                cid = str(item.get("tool_use_id"))
                held = self._take_key(cid)
                rec = self.calls.get(held) if held is not None else None
                if held is None or rec is None or held in self.calls.finished:
                    self.problems.add(f"line {line_no}: result for a call not in the file ({cid})")
                    continue
                key = held
                guarded(
                    self.problems, f"line {line_no}", _result, rec, item, tool_result, obj, line_no
                )
                self.message_of.pop(key, None)
                out.extend(self._done(key))
        return out

    def _key_for(self, cid: str, line_no: int) -> str:
        key, n = cid, 0
        while key in self.calls.records:
            n += 1
            key = f"{cid}\0{line_no}.{n}"
        self.open_keys.setdefault(cid, []).append(key)
        return key

    def _take_key(self, cid: str, key: str | None = None) -> str | None:
        """The oldest waiting call's key for ``cid`` (or ``key`` itself), no longer waiting."""
        keys = self.open_keys.get(cid)
        if not keys:
            return None
        if key is None:
            key = keys[0]
        if key in keys:
            keys.remove(key)
        if not keys:
            del self.open_keys[cid]
        return key

    def _new_turn(self, mid: Any, sidechain: bool) -> list[dict[str, Any]]:
        """A main-chain line of a message not seen before ends every call of earlier messages."""
        if sidechain or not isinstance(mid, str) or mid in self.messages:
            return []
        self.messages.add(mid)
        out: list[dict[str, Any]] = []
        for key, came_in in list(self.message_of.items()):
            if came_in == mid:
                continue
            del self.message_of[key]
            rec = self.calls.get(key)
            if rec is None:
                continue
            self._take_key(str(rec["command_id"]), key)
            set_no_result(rec, "no result before the agent's next turn (the result was lost?)")
            out.extend(self._done(key))
        return out

    def _done(self, key: str) -> list[dict[str, Any]]:
        return self._with_subagents(list(self.calls.finish(key)))

    def _with_subagents(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each Task call that ran a sub-agent, followed by the sub-agent's calls."""
        out: list[dict[str, Any]] = []
        for rec in records:
            out.append(rec)
            agent = rec.pop("_agent_id", None)
            if not isinstance(agent, str) or self.depth >= MAX_DEPTH:
                continue
            first = self.agents_read.get(agent)
            if first is not None:
                self.problems.add(
                    f"line {rec.get('result_line')}: sub-agent {agent} named again (by call "
                    f"{rec['command_id']}): its calls are shown once, under call {first}"
                )
                continue
            self.agents_read[agent] = str(rec["command_id"])
            sub = os.path.join(self.subagents, f"agent-{agent}.jsonl")
            out.extend(_subagent_calls(sub, rec, self.problems, self.agents_read, self.depth))
        return out

    def pending(self) -> list[dict[str, Any]]:
        out = []
        for key, rec in self.calls.records.items():
            copy = dict(rec)
            copy.pop("_agent_id", None)
            if key not in self.calls.finished:
                copy["running"] = True
            out.append(copy)
        return out

    def finish(self) -> list[dict[str, Any]]:
        out = []
        for _key, rec in self.calls.rest():
            if rec.get("result_line") is None:
                # A call with no result: the session ended (or was cut) while the tool ran.
                set_no_result(
                    rec, "no result recorded (the session ended before the tool returned?)"
                )
            out.append(rec)
        self.message_of.clear()
        self.open_keys.clear()
        return self._with_subagents(out)


def _subagent_calls(
    path: str, task: dict[str, Any], problems: Problems, read: dict[str, str], depth: int
) -> list[dict[str, Any]]:
    """The calls of the sub-agent a Task call ran, read from its own file (regular files only,
    never through a link, lines bounded), each a child of the Task call; nothing when the file
    is not there."""
    name = os.path.basename(path)
    sub = Problems()
    folder = os.path.dirname(path)
    feeder = SessionFeeder(path, sub, subagents=folder, depth=depth + 1, agents_read=read)
    out: list[dict[str, Any]] = []
    try:
        with _open_no_link(path) as fh:
            for raw in iter_lines(fh):
                if raw.data is None or not raw.data.strip():
                    continue
                try:
                    value, _note = loads(raw.data)
                except ValueError:
                    sub.add(f"line {raw.line_no}: malformed JSON, skipped")
                    continue
                out.extend(feeder.feed(raw.line_no, value))
        out.extend(feeder.finish())
    except FileNotFoundError:
        return []
    except OSError as exc:
        problems.add(f"{name}: cannot read: {exc.strerror or exc}")
        return []
    for item in sub.items:
        problems.add(f"{name}: {item}")
    problems.count += sub.count - len(sub.items)  # those past the first few are only counted
    for rec in out:
        rec["parent_command_id"] = rec["parent_command_id"] or task["command_id"]
        # Where it is: its own file's line; the run's location points at the Task's line (the
        # run's file is the session's, and the sub-agent started there).
        rec.setdefault("subagent_file", path)  # a sub-sub-agent keeps its own
        rec["subagent_line"] = rec.get("subagent_line") or rec.get("source_line")
        rec["source_line"] = task.get("source_line")
    return out


def _open_no_link(path: str) -> IO[bytes]:
    """Open a sub-agent's file unless it is a link (Claude Code writes real files there; a link
    could make a file its own parent, or any file a sub-agent): the file opened must be the one
    ``lstat`` saw, so a link swapped in between is refused too."""
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise OSError(
            errno.ELOOP, "it is a symbolic link (a sub-agent's file is never reached through one)"
        )
    fh = open_regular(path)
    now = os.fstat(fh.fileno())
    if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
        fh.close()
        raise OSError(errno.ELOOP, "it was replaced while it was opened")
    return fh


def _call(path: str, line_no: int, obj: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    name = str(item.get("name") or "?")
    args = as_dict(item.get("input"))
    command = args.get("command")
    shell = name == "Bash" and isinstance(command, str)
    argv = shell_argv(command) if shell and isinstance(command, str) else tool_argv(name, args)
    rec = base_record(
        FORMAT, path, str(item.get("id") or f"line{line_no}"), name, argv, rerunnable=shell
    )
    rec["cwd"] = obj.get("cwd") if isinstance(obj.get("cwd"), str) else None
    rec["started_at"] = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
    rec["agent_note"] = one_line(args.get("description"))
    rec["source_line"] = line_no
    content = obj["message"]["content"]
    rec["source_index"] = content.index(item)
    rec["session_id"] = obj.get("sessionId", obj.get("session_id"))
    parent = obj.get("parent_tool_use_id")  # stream-json: the Task call running this sub-agent
    if isinstance(parent, str) and parent:
        rec["parent_command_id"] = parent
    return rec


def _result(
    rec: dict[str, Any], item: dict[str, Any], tool_result: Any, obj: dict[str, Any], line_no: int
) -> bool:
    text = text_of(item.get("content"))
    rec["result_line"] = line_no
    if isinstance(item.get("is_error"), bool):
        set_source_ok(rec, not item["is_error"], f"is_error: {str(item['is_error']).lower()}")
    rec["duration_ms"] = duration_ms(rec["started_at"], obj.get("timestamp"))
    full = None
    if rec["tool_name"] == "Bash" and isinstance(tool_result, dict):
        out, err = tool_result.get("stdout"), tool_result.get("stderr")
        if isinstance(out, str) or isinstance(err, str):
            out = out if isinstance(out, str) else ""
            err = err if isinstance(err, str) else ""
            # The model reads both streams as one text, so they are one stream here too.
            full = out + ("\n" + err if out and err else err)
            if err:
                rec["full_stderr"] = err
        if tool_result.get("interrupted") is True:
            rec["interrupted"] = True
    if isinstance(tool_result, dict):
        agent = tool_result.get("agentId")
        if isinstance(agent, str) and _AGENT_ID.fullmatch(agent):
            rec["_agent_id"] = agent  # a sub-agent ran: its calls follow (SessionFeeder)
    # A plain string is the tool's own error message ("Error: …"): a failure signal even
    # where the result item carries no is_error.
    said = tool_result if isinstance(tool_result, str) else None
    if said is not None:
        rec["tool_use_result_text"] = one_line(said, 300)
    # Claude Code marks every cut it makes, so no marker means the model read it all.
    set_output(rec, text, full=full, complete=True)
    saved = _SAVED.search(text)
    if saved and rec.get("stdout_truncated"):
        # Where the whole output is: `tracetui show` reads it (record/kept_imported.py).
        path, size = saved.group(2)[:4096], saved.group(1)
        rec["stdout_kept_by_agent"] = {"path": path, "stated_size": size}
    m = _EXIT.match(text)
    if m:
        set_exit(rec, as_int(m.group(1)))
    elif rec.get("interrupted") or text.startswith(_INTERRUPTED):
        set_exit(rec, None, "interrupted by the user before it finished")
    elif text.startswith(_REFUSED):
        set_exit(rec, None, "not run: the user refused it (or stopped it before it ran)")
        rec["not_executed"] = True
    elif _DENIED.match(text) or (said is not None and _DENIED.match(said)):
        set_exit(rec, None, "not run: permission to use the tool was denied")
        rec["not_executed"] = True
    elif item.get("is_error") is True:
        set_exit(rec, None, NO_CODE + (f": {one_line(text)}" if one_line(text) else ""))
    elif said is not None and said.startswith("Error:") and item.get("is_error") is not False:
        set_exit(rec, None, NO_CODE + f": {one_line(said)}")
    else:
        set_exit(rec, 0)
    return True


IMPORTER = Format(
    name=FORMAT, sniff=sniff, convert=convert, markers=("claude-code",), feeder=SessionFeeder
)
