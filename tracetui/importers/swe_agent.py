"""SWE-agent ``.traj``: one span per ``trajectory[]`` step that has an action.

SWE-agent keeps no exit codes, ids or timestamps: a step is known by its index, and a failure
shows only in the text. A step whose observation shows a failure (a traceback, ``command not
found``, a syntax-error notice…) gets ``exit_code: null`` and an ``error`` quoting the line (a
failure); the ``submit`` step is ``kind: submission``; any other step is exit unknown — no exit
and no error, not a failure (docs/importers.md, "Exit rules").

The stored observation is usually whole; a cut shows in what was sent to the model. Each step is
paired with the observation message of ``history[]`` that followed its action (in order); when
that message carries a truncation marker the step's own observation does not, the message is
the preview and the stored observation the full output.

Commands ran in a persistent shell session; they become ``["bash", "-lc", action]``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from tracetui.importers._common import (
    Problems,
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

_FAILURE_SIGNS = re.compile(
    r"^Traceback \(most recent call last\):"
    r"|command not found"
    r"|^bash: .*: No such file or directory"
    r"|[Ss]yntax error"
    r"|^(?:[A-Z]\w*(?:Error|Exception)|Error|ERROR|FAILED)\b[: ]"
    r"|^=+ .*\b\d+ failed\b",
    re.MULTILINE,
)


def sniff(head: Head) -> int:
    """One JSON object with a ``trajectory`` of ``action``/``observation`` steps."""
    if (
        head.text.startswith("{")
        and head.has("trajectory")
        and (head.has("action") or head.has("observation"))
    ):
        return 50
    return NO


def convert(path: str, problems: Problems) -> Iterator[dict[str, Any]]:
    data = load_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("trajectory"), list):
        problems.add("no trajectory[] list at the top level")
        return
    seen = _observations_sent(data.get("history"))
    for i, step in enumerate(data["trajectory"]):
        if not isinstance(step, dict):
            problems.add(f"trajectory[{i}]: not an object, skipped")
            continue
        rec = guarded(
            problems, f"trajectory[{i}]", _step, path, i, step, seen[i] if i < len(seen) else None
        )
        if rec is not None:
            yield rec


def _observations_sent(history: Any) -> list[str]:
    """The observation messages the model read, in order: the message after each action."""
    out: list[str] = []
    if not isinstance(history, list):
        return out
    waiting = False
    for msg in history:
        if not isinstance(msg, dict) or msg.get("agent", "main") not in ("main", "primary"):
            continue
        if msg.get("role") == "assistant" and (
            "action" in msg or msg.get("message_type") == "action"
        ):
            waiting = True
        elif waiting and msg.get("role") in ("user", "tool"):
            out.append(text_of(msg.get("content")))
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
    if sent is not None and find_marker(sent) is not None and find_marker(observation) is None:
        clip = sent.find("<response clipped>")
        # What precedes the clip notice is the kept head; the notice itself is not output.
        set_output(rec, sent, full=observation, windows=(sent[:clip], "") if clip >= 0 else None)
    else:
        # SWE-agent marks its cuts, so an unmarked observation is what the model read whole.
        set_output(rec, observation, complete=True)
    m = _FAILURE_SIGNS.search(observation)
    if action.split()[0] == "submit":
        set_submission(rec, "the submission step: its output is the submitted patch")
    elif m:
        line = observation[m.start() :].split("\n", 1)[0].strip()
        set_exit(
            rec, None, f"SWE-agent records no exit code; the output shows a failure: {line[:160]}"
        )
    else:
        set_exit(rec, None, note="SWE-agent records no exit code; the output shows no failure")
    return rec


# ``generic``: the bare ``<response clipped>`` that starts SWE-agent's clip notices.
IMPORTER = Format(name=FORMAT, sniff=sniff, convert=convert, markers=("swe-agent", "generic"))
