"""OpenHands V1: a call's output and exit, from the event that answered it (openhands_v1.py).

The rules are in :mod:`tracetui.importers.openhands_v1`'s docstring; this module holds only the
reading of one result event, so the conversation's folding stays readable on its own.
"""

from __future__ import annotations

import re
from typing import Any

from tracetui.importers._common import (
    NO_CODE,
    as_dict,
    as_int,
    duration_ms,
    one_line,
    set_exit,
    set_output,
    set_source_ok,
    text_of,
)
from tracetui.model.markers import find_marker

SHELL_TOOLS = {"terminal", "execute_bash", "bash"}
"""Tool names of the SDK's terminal (older names too)."""
_MARKED_TOOLS = SHELL_TOOLS | {"file_editor", "str_replace_editor"}
"""Tools whose every cut carries a notice: an unmarked output from them was shown whole."""
_CLIP_NOTE = re.compile(r"<response clipped><NOTE>Due to the max output limit.*?</NOTE>", re.S)
_SAVED_TO = re.compile(r"The complete output has been saved to (\S+) - ")
_PATH_CHARS = 4096


def result(rec: dict[str, Any], ev: dict[str, Any]) -> None:
    """Fill a call's output and exit from the event that answered it."""
    rec["duration_ms"] = duration_ms(rec["started_at"], ev.get("timestamp"))
    kind = ev.get("kind")
    if kind == "AgentErrorEvent":
        err = ev.get("error")
        text = err if isinstance(err, str) else text_of(err)
        set_output(rec, text)
        set_exit(rec, None, _why("OpenHands reported an error", text))
        set_source_ok(rec, False, "AgentErrorEvent")
        return
    if kind == "UserRejectObservation":
        reason = one_line(ev.get("rejection_reason")) or "no reason given"
        by = one_line(ev.get("rejection_source"), 20) or "user"
        set_output(rec, f"Action rejected: {reason}", complete=True)
        set_exit(rec, None, f"not run: rejected by the {by}: {reason}")
        rec["not_executed"] = True
        return
    obs = as_dict(ev.get("observation"))
    meta = as_dict(obs.get("metadata"))
    text = text_of(obs.get("content")) if "content" in obs else text_of(obs.get("output"))
    prefix, suffix = _text(meta.get("prefix")), _text(meta.get("suffix"))
    preview = prefix + text + suffix
    shell = bool(rec.get("_shell"))
    _set_preview(rec, preview, complete=rec["tool_name"] in _MARKED_TOOLS or shell)
    if isinstance(rec.get("full_output_file"), str):
        # Where the whole output is, and what OpenHands put around it in the model's view.
        rec["stdout_kept_by_agent"] = {
            "path": rec["full_output_file"],
            "around": [len(prefix), len(suffix)],
        }
    save_dir = obs.get("full_output_save_dir")
    if isinstance(save_dir, str) and save_dir:
        rec["full_output_save_dir"] = save_dir[:_PATH_CHARS]
    if isinstance(meta.get("working_dir"), str) and rec["cwd"] is None:
        rec["cwd"] = meta["working_dir"]
    failed = obs.get("is_error") is True or obs.get("error") is True
    if not shell:
        if failed:
            set_exit(rec, None, _why(NO_CODE, text))
            set_source_ok(rec, False, "is_error: true")
        else:
            set_exit(rec, 0)
            set_source_ok(rec, True, "is_error: false")
        return
    # The top-level code, when the key is there (null included): metadata's defaults to -1.
    code = as_int(obs["exit_code"]) if "exit_code" in obs else as_int(meta.get("exit_code"))
    if obs.get("timeout") is True:
        rec["timed_out"] = True
    if failed:
        set_source_ok(rec, False, "is_error: true")
    if code is not None and code != -1:
        set_exit(rec, code)
    elif code == -1:
        error, note = _unfinished(suffix, obs.get("timeout") is True)
        set_exit(rec, None, error)
        if note:
            rec["exit_note"] = note
    elif failed:
        set_exit(rec, None, _why(NO_CODE, text))
    else:
        set_exit(rec, None)  # no code and no error: exit unknown


def _set_preview(rec: dict[str, Any], preview: str, *, complete: bool) -> None:
    """The stdout facts; the SDK's clip notice keeps the head and the tail (a middle cut)."""
    marker = find_marker(preview)
    note = _CLIP_NOTE.search(preview) if marker is not None else None
    if note is not None and marker is not None and marker.start == note.start():
        tail = preview[note.end() :]
        cut = "head_tail" if tail.strip() else "head"
        set_output(rec, preview, cut=cut, windows=(preview[: note.start()], tail))
        saved = _SAVED_TO.search(note.group(0))
        if saved:
            rec["full_output_file"] = saved.group(1)[:_PATH_CHARS]
        return
    set_output(rec, preview, complete=complete)


def _unfinished(suffix: str, timed_out: bool) -> tuple[str | None, str | None]:
    """Why a ``-1`` is no exit status, from the notice OpenHands put after the output: an
    ``(error, note)`` pair. An interrupt stopped the command: the format flags the call. A
    timeout or a quiet spell only ends OpenHands' wait (the command keeps running, the model
    may read more of it later): its exit is unknown, and the note says why."""
    if "interrupted" in suffix:
        return "interrupted: the command got SIGINT before it finished (no exit code)", None
    if timed_out or "timed out" in suffix:
        return (
            None,
            "no exit code: the command timed out, still running when OpenHands stopped waiting",
        )
    return None, "no exit code: the command was still running (no new output for a while)"


def _why(lead: str, text: str) -> str:
    line = one_line(text)
    return f"{lead}: {line}" if line else lead


def _text(v: Any) -> str:
    return v if isinstance(v, str) else ""
