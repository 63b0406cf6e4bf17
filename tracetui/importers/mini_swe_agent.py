"""mini-swe-agent ``.traj.json``: one span per command the agent ran.

- 2.x (``trajectory_format: "mini-swe-agent-1.1"``): an assistant message's ``tool_calls[]``
  (``function.arguments`` is a JSON string with ``command``); its result is the ``role: "tool"``
  message with the same ``tool_call_id``, whose ``extra`` holds ``returncode``, ``raw_output``
  (the full output) and ``timestamp`` (epoch seconds).
- 1.x: a list of ``{role, content}`` (bare, or under ``messages``); the command is the one fenced
  ``mswea_bash_command`` (or ``bash``) block of an assistant message; the next user message holds
  ``<returncode>N</returncode>`` and ``<output>…</output>``.

Long outputs are shown as ``<output_head>``, ``<elided_chars>N characters elided</elided_chars>``
and ``<output_tail>``: the head and tail windows are read exactly from those tags. No parent
links: mini-swe-agent has no retries of a call.

Exit rules (docs/importers.md): the return code when recorded; a timeout message is a failure
(mini-swe-agent killed the command); the submission step — the command whose output starts with
``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` (1.x: ``MINI_SWE_AGENT_FINAL_OUTPUT``), answered by the
``exit`` message (2.x) or the final user message (1.x) holding the submitted patch — is
``kind: submission``, never a failure; any other call with no code is exit unknown.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from tracetui.importers._common import (
    Problems,
    as_dict,
    as_int,
    base_record,
    duration_ms,
    guarded,
    iso,
    load_json,
    one_line,
    set_exit,
    set_no_result,
    set_output,
    set_submission,
    shell_argv,
    text_of,
)
from tracetui.importers.protocol import NO, Format, Head

FORMAT = "mini-swe-agent"
_FENCE = re.compile(r"```(?:mswea_bash_command|bash)[ \t]*\n(.*?)\n?```", re.DOTALL)
_RETURNCODE = re.compile(r"<returncode>\s*(-?\d+)\s*</returncode>")
# The template puts a newline after the opening tag and before the closing one: not output.
_HEAD = re.compile(r"<output_head>\n?(.*?)\n?</output_head>", re.DOTALL)
_TAIL = re.compile(r"<output_tail>\n?(.*?)\n?</output_tail>", re.DOTALL)
_TIMEOUT = re.compile(
    r"timed out and has been killed|TimeoutExpired|timed out after", re.IGNORECASE
)
_SUBMIT = re.compile(r"\b(?:COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT|MINI_SWE_AGENT_FINAL_OUTPUT)\b")
"""The words whose echo, as the first line of a command's output, submits the run."""
SUBMITTED = "the submission step: its output is the submitted patch (no exit code is recorded)"
NO_RESULT = "no result recorded (the run ended before the command returned?)"


def sniff(head: Head) -> int:
    """2.x names itself (``mini_version``, the ``trajectory_format``, its command fence); 1.x is a
    bare list of messages holding ``<returncode>`` tags."""
    text = head.text
    if "mini-swe-agent" in text or head.has("mini_version") or "mswea_bash_command" in text:
        return 40
    if text.startswith("[") and head.has("role", "content") and "<returncode>" in text:
        return 40
    return NO


def convert(path: str, problems: Problems) -> Iterator[dict[str, Any]]:
    data = load_json(path)
    messages = (
        data if isinstance(data, list) else data.get("messages") if isinstance(data, dict) else None
    )
    if not isinstance(messages, list):
        problems.add("no messages[] list found")
        return
    if any(
        isinstance(m, dict) and (m.get("tool_calls") or m.get("role") == "tool") for m in messages
    ):
        yield from _convert_v2(path, messages, problems)
    else:
        yield from _convert_v1(path, messages, problems)


def _convert_v2(path: str, messages: list[Any], problems: Problems) -> Iterator[dict[str, Any]]:
    calls: dict[str, dict[str, Any]] = {}
    order: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            continue
        extra = as_dict(msg.get("extra"))
        if msg.get("role") == "assistant":
            tool_calls = msg.get("tool_calls")
            for k, call in enumerate(tool_calls if isinstance(tool_calls, list) else []):
                rec = guarded(
                    problems, f"messages[{i}].tool_calls[{k}]", _call_v2, path, i, msg, call, extra
                )
                if rec is not None:
                    calls[rec["command_id"]] = rec
                    order.append(rec)
        elif msg.get("role") == "exit" and extra.get("exit_status") == "Submitted" and calls:
            # The submitting call gets no tool message: the exit message holds what it output.
            rec = calls.pop(next(reversed(calls)))
            rec["result_index"] = i
            rec.pop("_ts", None)
            set_output(rec, text_of(msg.get("content")), complete=True)
            set_submission(rec, SUBMITTED)
        elif msg.get("role") == "tool":
            rec = calls.pop(str(msg.get("tool_call_id")), None)
            if rec is None:
                problems.add(
                    f"messages[{i}]: result for a call not in the file ({msg.get('tool_call_id')})"
                )
                continue
            rec["result_index"] = i
            rec["duration_ms"] = duration_ms(rec.pop("_ts", None), extra.get("timestamp"))
            raw = extra.get("raw_output")
            guarded(
                problems,
                f"messages[{i}]",
                _observation,
                rec,
                text_of(msg.get("content")),
                raw if isinstance(raw, str) else None,
                as_int(extra.get("returncode")),
            )
    for rec in calls.values():
        set_no_result(rec, NO_RESULT)
    for rec in order:
        rec.pop("_ts", None)
        yield rec


def _call_v2(
    path: str, i: int, msg: dict[str, Any], call: dict[str, Any], extra: dict[str, Any]
) -> dict[str, Any]:
    fn = as_dict(call.get("function"))
    args = fn.get("arguments")
    if isinstance(args, str):
        args = json.loads(args)
    command = args.get("command") if isinstance(args, dict) else None
    if not isinstance(command, str):
        raise ValueError("tool call without a command string")
    rec = base_record(
        FORMAT,
        path,
        str(call.get("id") or f"call-{i}"),
        "bash",
        shell_argv(command),
        rerunnable=True,
    )
    rec["source_index"] = i
    rec["agent_note"] = one_line(text_of(msg.get("content")))
    rec["started_at"] = iso(extra.get("timestamp"))
    rec["_ts"] = extra.get("timestamp")
    return rec


def _convert_v1(path: str, messages: list[Any], problems: Problems) -> Iterator[dict[str, Any]]:
    pending: dict[str, Any] | None = None
    n = 0
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict):
            continue
        text = text_of(msg.get("content"))
        if msg.get("role") == "assistant":
            blocks = _FENCE.findall(text)
            pending = None
            if len(blocks) != 1:
                continue  # mini-swe-agent runs nothing unless there is exactly one block
            n += 1
            pending = base_record(
                FORMAT, path, f"step-{n}", "bash", shell_argv(blocks[0].strip()), rerunnable=True
            )
            pending["source_index"] = i
            pending["agent_note"] = one_line(text.split("```", 1)[0])
        elif msg.get("role") in ("user", "exit") and pending is not None:
            rec, pending = pending, None
            rec["result_index"] = i
            submitted = as_dict(msg.get("extra")).get("exit_status") == "Submitted"
            guarded(problems, f"messages[{i}]", _observation, rec, text, None, None, submitted)
            yield rec
    if pending is not None:
        set_no_result(pending, NO_RESULT)
        yield pending


def _observation(
    rec: dict[str, Any], text: str, raw: str | None, code: int | None, submitted: bool = False
) -> None:
    """Fill output and exit from an observation message (both versions share its layout)."""
    windows = None
    head, tail = _HEAD.search(text), _TAIL.search(text)
    if head or tail:
        windows = (head.group(1) if head else "", tail.group(1) if tail else "")
    set_output(rec, text, full=raw, windows=windows, complete=True)
    if code is None:
        m = _RETURNCODE.search(text)
        code = as_int(m.group(1)) if m else None
    if code is not None:
        set_exit(rec, code)
    elif _TIMEOUT.search(text):
        set_exit(rec, None, "timed out: mini-swe-agent killed the command (no exit code)")
    elif submitted or _SUBMIT.search(rec["argv"][-1] if rec["argv"] else ""):
        set_submission(rec, SUBMITTED)  # 1.x: the final user message is the submitted patch
    else:
        set_exit(rec, None, note="no return code in the observation")


IMPORTER = Format(name=FORMAT, sniff=sniff, convert=convert, markers=("mini-swe-agent",))
