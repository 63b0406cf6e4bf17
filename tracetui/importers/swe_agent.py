"""SWE-agent ``.traj``: one span per ``trajectory[]`` step that has an action.

SWE-agent keeps no exit codes, ids or timestamps: a step is known by its index, and a failure
shows only in the text. A step whose observation shows a failure (a traceback, ``command not
found``, a syntax-error notice…) gets ``exit_code: null`` and an ``error`` quoting the line (a
failure); the ``submit`` step is ``kind: submission``; any other step is exit unknown — no exit
and no error, not a failure (docs/importers.md, "Exit rules").

The stored observation is usually whole; a cut shows in what was sent to the model. Each step is
paired with the observation message of ``history[]`` that followed the same action; when that
message carries a truncation marker the step's own observation does not, the message is the
preview and the stored observation the full output.

SWE-agent 1.x (``replay_config``, ``info.exit_status``) also keeps in ``trajectory[]`` the steps
it refused to run (a format error, a blocked command, a shell syntax error: it asked the model
again, and kept neither in ``history[]``): a step whose action is missing from the history and
which has no observation was never run (``not_executed``). A command SWE-agent cancelled for
taking too long is a failure (a timeout kill). ``info.exit_status`` (how the run ended:
``submitted``, ``exit_cost``…) is kept on the last span as ``run_exit_status``.

Commands ran in a persistent shell session; they become ``["bash", "-lc", action]``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from tracetui.importers._common import (
    Problems,
    as_dict,
    base_record,
    guarded,
    load_json,
    one_line,
    set_exit,
    set_output,
    set_submission,
    shell_argv,
    text_of,
)
from tracetui.importers.protocol import NO, Format, Head
from tracetui.model.markers import find_marker

FORMAT = "swe-agent"

# Failure signs in an observation: some at a line's start, some anywhere. One regex of all of
# them tried every alternative at every offset (5.6 ms per 84 KB, 35 s for a 261 MB .traj); the
# line-start ones are anchored on the newline before them, the others found with str.find.
_LINE_SIGNS = re.compile(
    r"\n(?:Traceback \(most recent call last\):"
    r"|bash: .*: No such file or directory"
    r"|(?:[A-Z]\w*(?:Error|Exception)|Error|ERROR|FAILED)\b[: ]"
    r"|=+ .*\b\d+ failed\b)"
)
_ANYWHERE_SIGNS = ("command not found", "Syntax error", "syntax error")
_CANCELLED = re.compile(r"was cancelled because it took more than (\d+(?:\.\d+)?) seconds")
_NOT_IN_HISTORY = "\0not in history"
"""Pairing verdict for a step whose action the history never shows (SWE-agent did not run it)."""


def sniff(head: Head) -> int:
    """One JSON object with a ``trajectory`` of ``action``/``observation`` steps (or, for 1.x,
    whose head shows its ``replay_config`` or ``info.exit_status`` beside the trajectory)."""
    if (
        head.text.startswith("{")
        and head.has("trajectory")
        and (
            head.has("action")
            or head.has("observation")
            or head.has("replay_config")
            or head.has("exit_status")
        )
    ):
        return 50
    return NO


def convert(path: str, problems: Problems) -> Iterator[dict[str, Any]]:
    data = load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("trajectory"), list):
        problems.add("no trajectory[] list at the top level")
        return
    steps = data["trajectory"]
    seen = _pair(steps, _observations_sent(data.get("history")))
    last: dict[str, Any] | None = None
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            problems.add(f"trajectory[{i}]: not an object, skipped")
            continue
        rec = guarded(problems, f"trajectory[{i}]", _step, path, i, step, seen[i])
        if rec is not None:
            if last is not None:
                yield last
            last = rec
    if last is not None:
        status = as_dict(data.get("info")).get("exit_status")
        if isinstance(status, str) and status:
            last["run_exit_status"] = status[:200]
        yield last


def _pair(steps: list[Any], sent: list[tuple[str | None, str]]) -> list[str | None]:
    """For each step, the observation message the model read after it (None: not known).

    A history message names its action: a step is paired with the next message of the same
    action. A step the history skips (1.x keeps refused steps in the trajectory only) gets
    :data:`_NOT_IN_HISTORY`. Messages that name no action are paired in order.
    """
    out: list[str | None] = []
    j = 0
    for step in steps:
        action = step.get("action") if isinstance(step, dict) else None
        if not isinstance(action, str) or not action.strip():
            out.append(None)
            continue
        named = sent[j][0] if j < len(sent) else None
        if j < len(sent) and (named is None or named.strip() == action.strip()):
            out.append(sent[j][1])
            j += 1
        elif sent and sent[0][0] is not None:
            out.append(_NOT_IN_HISTORY)
        else:
            out.append(None)
    return out


def _observations_sent(history: Any) -> list[tuple[str | None, str]]:
    """The observation messages the model read, in order: the message after each action, with
    that action as the history wrote it (None when the message names none)."""
    out: list[tuple[str | None, str]] = []
    if not isinstance(history, list):
        return out
    waiting: str | bool | None = False
    for msg in history:
        if not isinstance(msg, dict) or msg.get("agent", "main") not in ("main", "primary"):
            continue
        if msg.get("role") == "assistant" and (
            "action" in msg or msg.get("message_type") == "action"
        ):
            action = msg.get("action")
            waiting = action if isinstance(action, str) else None
        elif waiting is not False and msg.get("role") in ("user", "tool"):
            out.append((waiting if isinstance(waiting, str) else None, text_of(msg.get("content"))))
            waiting = False
    return out


def _step(path: str, i: int, step: dict[str, Any], sent: str | None) -> dict[str, Any] | None:
    action = step.get("action")
    if not isinstance(action, str) or not action.strip():
        return None  # a step where the model produced no command (a format error)
    rec = base_record(
        FORMAT,
        path,
        f"step-{i + 1}",
        action.split()[0],
        shell_argv(action.strip()),
        rerunnable=True,
    )
    rec["source_index"] = i
    rec["agent_note"] = one_line(step.get("thought"))
    state = step.get("state")
    if isinstance(state, str):
        try:
            state = json.loads(state)
        except ValueError:
            state = None
    if isinstance(state, dict) and isinstance(state.get("working_dir"), str):
        rec["cwd"] = state["working_dir"]
    seconds = step.get("execution_time")
    if isinstance(seconds, (int, float)) and not isinstance(seconds, bool):
        rec["duration_ms"] = round(float(seconds) * 1000.0, 3)
    observation = text_of(step.get("observation"))
    if sent == _NOT_IN_HISTORY and not observation.strip():
        rec["duration_ms"] = None
        rec["not_executed"] = True
        set_output(rec, "", complete=True)
        set_exit(
            rec,
            None,
            "not run: SWE-agent refused the command (a format error, a blocked command or a "
            "shell syntax error) and asked the model again",
        )
        return rec
    if sent == _NOT_IN_HISTORY:
        sent = None
    if sent is not None and find_marker(sent) is not None and find_marker(observation) is None:
        clip = sent.find("<response clipped>")
        # What precedes the clip notice is the kept head; the notice itself is not output, nor
        # is the template's lead-in before the output (1.x: "OBSERVATION:\n").
        start = max(0, sent.find(observation[:80])) if observation else 0
        windows = (sent[start:clip], "") if clip >= start else None
        set_output(rec, sent, full=observation, windows=windows)
    else:
        # SWE-agent marks its cuts, so an unmarked observation is what the model read whole.
        set_output(rec, observation, complete=True)
    at = failure_at(observation)
    cancelled = _CANCELLED.search(observation)
    if cancelled:
        set_exit(rec, None, f"timed out: SWE-agent cancelled the command after {cancelled[1]} s")
    elif action.split()[0] == "submit":
        set_submission(rec, "the submission step: its output is the submitted patch")
    elif at is not None:
        line = observation[at:].split("\n", 1)[0].strip()
        set_exit(
            rec, None, f"SWE-agent records no exit code; the output shows a failure: {line[:160]}"
        )
    else:
        set_exit(rec, None, note="SWE-agent records no exit code; the output shows no failure")
    return rec


def failure_at(text: str) -> int | None:
    """Where the first failure sign of ``text`` starts; None when it shows none."""
    found = [i for sign in _ANYWHERE_SIGNS if (i := text.find(sign)) >= 0]
    m = _LINE_SIGNS.search("\n" + text)  # offsets there are one past ours: at the newline
    if m is not None:
        found.append(m.start())
    return min(found) if found else None


# ``generic``: the bare ``<response clipped>`` that starts SWE-agent's clip notices.
IMPORTER = Format(name=FORMAT, sniff=sniff, convert=convert, markers=("swe-agent", "generic"))
