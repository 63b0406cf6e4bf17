"""What another agent kept of a stream: the whole output an imported trace points to or holds.

Some agents keep what they cut from the model's view, and an imported record says where:

* inline — the trace itself holds the whole text beside the cut one (Codex's
  ``aggregated_output`` next to the ``formatted_output`` the model read; Claude Code's
  ``toolUseResult.stdout``): the importer put it in ``full_stdout``;
* a file the agent wrote — Claude Code's ``<persisted-output>`` ("Full output saved to: PATH",
  ``<session>/tool-results/<tool_use_id>.txt``) and OpenHands V1's saved output
  (``<full_output_save_dir>/<tool>_output_<sha256[:8]>.txt``): the importer records
  ``stdout_kept_by_agent: {"path": …}``.

:func:`find_agent_kept` is the one answer for all of them, in the shape
:func:`tracetui.record.kept_read.find_kept` hands to every reader (``show``, the viewer's ``u``).

There is no recorded hash for any of these, so nothing is "verified" the way tracetui's own
store is; what can be checked is checked before a byte is shown, and the note says what it was:
the preview the agent saw must be the head (and tail) of the kept bytes, Claude Code's stated
size must match, OpenHands' file name carries a prefix of the content's sha256.

A path named inside a trace is hostile input: where such a file may be, and how it is opened
and checked, is :mod:`tracetui.record.agent_files`.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import IO, Any

from tracetui.model.markers import find_marker, persisted_preview
from tracetui.record.agent_files import (
    Checks,
    Seen,
    allowed_roots,
    beside_trace,
    expected_name,
    locate,
    open_named,
)
from tracetui.record.kept_errors import KeptMismatch, NotKept

_PATH_CHARS = 4096
_PERSISTED = re.compile(r"<persisted-output>\n.*?\n(?=Preview \([^)\n]*\):\n)", re.S)
_OPENHANDS_NOTE = re.compile(r"<response clipped><NOTE>.*?</NOTE>", re.S)


@dataclass(frozen=True, slots=True)
class AgentKept:
    """One stream as another agent kept it: how big, which part the agent never saw, how to
    open it and how to check it once opened."""

    size: int
    unseen_start: int
    unseen_end: int
    where: str
    """The file, or ``the trace itself`` for an inline copy (for messages)."""
    opener: Callable[[], IO[bytes]] | None
    check: Callable[[IO[bytes]], None]
    """Reads the opened bytes through and raises :class:`KeptMismatch` when they do not fit."""
    note: str
    """One line: kept by whom, and what was checked (no hash was recorded)."""


def find_agent_kept(
    raw: Mapping[str, Any], stream: str, fmt: str, env: Mapping[str, str] | None = None
) -> AgentKept:
    """The kept ``stream`` of the imported record ``raw`` (format ``fmt``); :class:`NotKept`
    with one line when the agent kept none, or its file cannot be used."""
    env = os.environ if env is None else env
    if stream == "stderr":
        return _stderr(raw, fmt)
    full = raw.get("full_stdout")
    by_agent = raw.get("stdout_kept_by_agent")
    has_file = isinstance(by_agent, dict) and isinstance(by_agent.get("path"), str)
    if isinstance(full, str):
        try:
            return _inline(raw, full, fmt)
        except NotKept:
            # The tool's own copy need not be the text the model's preview was cut from
            # (Claude Code's toolUseResult.stdout is the raw stdout): the agent's file may be.
            if not has_file:
                raise
    if has_file:
        assert isinstance(by_agent, dict)
        return _agent_file(raw, by_agent, fmt, env)
    whole = _uncut(raw, "stdout", fmt)
    if whole is not None:
        return whole
    raise NotKept(f"it is from an imported {fmt} trace, which kept no full output")


def _uncut(raw: Mapping[str, Any], stream: str, fmt: str) -> AgentKept | None:
    """A stream the trace says was never cut: the preview the agent saw is all of it, so it is
    the whole output (nothing unseen). None when the cut is unknown, or the trace counts more
    bytes than the preview holds."""
    preview = raw.get(f"preview_{stream}")
    if raw.get(f"{stream}_truncated") is not False or not isinstance(preview, str):
        return None
    data = _b(preview)
    stated = raw.get(f"{stream}_bytes")
    if isinstance(stated, int) and not isinstance(stated, bool) and stated != len(data):
        return None
    note = (
        f"not cut: this is the preview in the {fmt} trace, and it is the whole {stream} "
        "(complete; not verified by a hash)"
    )
    return _in_memory(data, len(data), len(data), note)


# ------------------------------------------------------------------------------ inline copies
def _stderr(raw: Mapping[str, Any], fmt: str) -> AgentKept:
    """The agent's own copy of stderr; its model read it inside stdout, so none of it is unseen
    apart from stdout's unseen part."""
    err = raw.get("full_stderr")
    whole = _uncut(raw, "stderr", fmt) if raw.get("preview_stderr") else None
    if whole is not None and not isinstance(err, str):
        return whole  # a format with a stderr of its own, never cut
    if not isinstance(err, str):
        raise NotKept(
            f"it is from an imported {fmt} trace, whose agent kept no separate stderr "
            "(its model read one text, shown as stdout)"
        )
    data = err.encode("utf-8", errors="replace")
    note = f"kept in the {fmt} trace itself (the agent's own copy of stderr), not verified"
    return _in_memory(data, len(data), len(data), note)


def _inline(raw: Mapping[str, Any], full: str, fmt: str) -> AgentKept:
    if isinstance(raw.get("full_stdout_cut_at_chars"), int):
        raise NotKept(
            f"the {fmt} trace holds its whole output, but the import kept only its first "
            f"{raw['full_stdout_cut_at_chars']:,} characters"
        )
    data = full.encode("utf-8", errors="replace")
    seen = _seen(raw)
    start, end = _unseen(raw, seen, len(data))
    if seen is not None and not (data.startswith(seen.head) and data.endswith(seen.tail)):
        raise KeptMismatch(
            f"the {fmt} trace's full output does not begin and end with the preview the agent "
            "saw, so it is not shown as that call's output"
        )
    note = (
        f"kept in the {fmt} trace itself (the agent's full output beside the cut one), not "
        "verified by a hash; the preview the agent saw matches its ends"
    )
    return _in_memory(data, start, end, note)


def _in_memory(data: bytes, start: int, end: int, note: str) -> AgentKept:
    opener = (lambda: io.BytesIO(data)) if data else None
    return AgentKept(len(data), start, end, "the trace itself", opener, _no_check, note)


def _no_check(_fh: IO[bytes]) -> None:
    """An inline copy was checked when it was found (it is in memory already)."""


def _seen(raw: Mapping[str, Any]) -> Seen | None:
    """What the agent saw of its output, as the head and tail of the whole; None: all of it."""
    if raw.get("stdout_truncated") is not True:
        return None
    preview = raw.get("preview_stdout")
    preview = preview if isinstance(preview, str) else ""
    persisted = _persisted_preview(preview)
    if persisted is not None:
        return Seen(_b(persisted), b"")
    around = raw.get("stdout_kept_by_agent")
    note = _OPENHANDS_NOTE.search(preview)
    if isinstance(around, dict) and note is not None:
        lead, trail = _around(around.get("around"))
        tail = preview[note.end() : len(preview) - trail if trail else None]
        return Seen(_b(preview[lead : note.start()]), _b(tail))
    marker = find_marker(preview)
    if marker is None:
        raise NotKept("its preview has no cut marker, so where the agent's view ends is unknown")
    clip = raw.get("stdout_clip") or marker.clip
    head, tail = preview[: marker.start], preview[marker.end :]
    if clip == "head":
        tail = ""
    elif clip == "tail":
        head = ""
    return Seen(_b(head), _b(tail))


def _unseen(raw: Mapping[str, Any], seen: Seen | None, size: int) -> tuple[int, int]:
    if seen is None:
        return size, size
    start = min(len(seen.head), size)
    end = max(start, size - len(seen.tail))
    return start, end


def _around(value: Any) -> tuple[int, int]:
    """OpenHands' metadata prefix and suffix lengths around the output (in characters)."""
    if isinstance(value, list) and len(value) == 2 and all(_count(v) for v in value):
        return int(value[0]), int(value[1])
    return 0, 0


def _count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _persisted_preview(text: str) -> str | None:
    """The preview inside Claude Code's ``<persisted-output>`` block; None when there is none.

    Claude Code writes the first ~2,000 characters (cut at a newline when one is near), then
    ``\\n...\\n`` when there is more (``\\n`` alone otherwise) and the closing tag.
    """
    m = _PERSISTED.search(text)
    found = None if m is None else persisted_preview(text, m.end())  # model/markers.py's rule
    return found[0] if found is not None and found[1] else None


def _b(text: str) -> bytes:
    return text.encode("utf-8", errors="replace")


# --------------------------------------------------------------------- files the agent wrote
def _agent_file(
    raw: Mapping[str, Any], by_agent: Mapping[str, Any], fmt: str, env: Mapping[str, str]
) -> AgentKept:
    named = str(by_agent["path"])[:_PATH_CHARS]
    if "\x00" in named or not os.path.isabs(named):
        raise NotKept(f"the file it names ({named!r}) is not an absolute path, so it is not used")
    name = os.path.basename(named)
    expect = expected_name(raw, fmt, name)
    source = raw.get("source_file")
    trace_dir = os.path.dirname(os.path.abspath(source)) if isinstance(source, str) else None
    roots = allowed_roots(trace_dir, fmt, env)
    path = locate(named, beside_trace(raw, trace_dir, fmt, name), roots)
    size = os.lstat(path).st_size
    seen = _seen(raw)
    start, end = _unseen(raw, seen, size)
    stated = by_agent.get("stated_size")
    checks = Checks(
        path, size, seen or Seen(b"", b""), expect, stated if isinstance(stated, str) else None
    )
    ends = "start and end" if seen is not None and seen.tail else "start"
    what = [f"the preview the agent saw is its {ends}"]
    if expect is not None:
        what.append("its name holds its sha256 prefix")
    if checks.stated is not None:
        what.append(f"its size is the {checks.stated} stated")
    shown = path if path == named else f"{path} (the trace names {named})"
    note = f"kept by the agent in {shown}, not verified (no hash recorded); checked: " + ", ".join(
        what
    )
    return AgentKept(size, start, end, path, lambda: open_named(path, size), checks.run, note)
