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

A path named inside a trace is hostile input. It is only read when its folder resolves inside
the trace's own folder (for OpenHands' ``events/`` or Claude Code's ``subagents/``, the session
folder above it) or the agent's home (``$CLAUDE_CONFIG_DIR`` or ``~/.claude``,
``$OPENHANDS_PERSISTENCE_DIR`` or ``~/.openhands``); its name must be the one the agent gives
such files; the last step is never a link (``O_NOFOLLOW``), the open never blocks
(``O_NONBLOCK``), anything but a regular file is refused on its descriptor, and a file over
:data:`MAX_AGENT_FILE` is not read. A path that is not there is looked for once where the agent
keeps such files beside the trace (a session copied from another machine).
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import io
import os
import re
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import IO, Any

from tracetui.model.markers import find_marker
from tracetui.record.kept_errors import KeptMismatch, NotKept

MAX_AGENT_FILE = 256 << 20
"""Bytes of a file named in a trace that tracetui will read; a bigger one is refused."""
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_CHUNK = 1 << 20
_PATH_CHARS = 4096
_PERSISTED = re.compile(r"<persisted-output>\n.*?\nPreview \([^)\n]*\):\n", re.S)
_PERSISTED_END = "</persisted-output>"
_STATED = re.compile(r"\A\s*(\d+(?:\.\d+)?)\s*(bytes|B|KB|MB|GB)\s*\Z", re.I)
_UNITS = {"bytes": 1, "b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30}
_CALL_ID = re.compile(r"\A[A-Za-z0-9_\-]{1,128}\Z")
_OPENHANDS_NAME = re.compile(r"\A[A-Za-z0-9_\-]{1,64}_output_([0-9a-f]{8})\.txt\Z")
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


@dataclass(frozen=True, slots=True)
class _Seen:
    """The part of the kept text the agent saw: its head and its tail (either may be empty)."""

    head: bytes
    tail: bytes


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
    raise NotKept(f"it is from an imported {fmt} trace, which kept no full output")


# ------------------------------------------------------------------------------ inline copies
def _stderr(raw: Mapping[str, Any], fmt: str) -> AgentKept:
    """The agent's own copy of stderr; its model read it inside stdout, so none of it is unseen
    apart from stdout's unseen part."""
    err = raw.get("full_stderr")
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


def _seen(raw: Mapping[str, Any]) -> _Seen | None:
    """What the agent saw of its output, as the head and tail of the whole; None: all of it."""
    if raw.get("stdout_truncated") is not True:
        return None
    preview = raw.get("preview_stdout")
    preview = preview if isinstance(preview, str) else ""
    persisted = _persisted_preview(preview)
    if persisted is not None:
        return _Seen(_b(persisted), b"")
    around = raw.get("stdout_kept_by_agent")
    note = _OPENHANDS_NOTE.search(preview)
    if isinstance(around, dict) and note is not None:
        lead, trail = _around(around.get("around"))
        tail = preview[note.end() : len(preview) - trail if trail else None]
        return _Seen(_b(preview[lead : note.start()]), _b(tail))
    marker = find_marker(preview)
    if marker is None:
        raise NotKept("its preview has no cut marker, so where the agent's view ends is unknown")
    clip = raw.get("stdout_clip") or marker.clip
    head, tail = preview[: marker.start], preview[marker.end :]
    if clip == "head":
        tail = ""
    elif clip == "tail":
        head = ""
    return _Seen(_b(head), _b(tail))


def _unseen(raw: Mapping[str, Any], seen: _Seen | None, size: int) -> tuple[int, int]:
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
    end = text.rfind(_PERSISTED_END)
    if m is None or end < m.end() - 1:
        return None
    body = text[m.end() : end]
    for ending in ("\n...\n", "\n"):
        if body.endswith(ending):
            return body[: -len(ending)]
    return body


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
    expect = _expected_name(raw, fmt, name)
    source = raw.get("source_file")
    trace_dir = os.path.dirname(os.path.abspath(source)) if isinstance(source, str) else None
    roots = _roots(trace_dir, fmt, env)
    path = _locate(named, _beside_trace(raw, trace_dir, fmt, name), roots)
    size = os.lstat(path).st_size
    seen = _seen(raw)
    start, end = _unseen(raw, seen, size)
    stated = by_agent.get("stated_size")
    checks = _Checks(
        path, size, seen or _Seen(b"", b""), expect, stated if isinstance(stated, str) else None
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
    return AgentKept(size, start, end, path, lambda: _open_named(path, size), checks.run, note)


def _expected_name(raw: Mapping[str, Any], fmt: str, name: str) -> str | None:
    """Refuse a file not named as the agent names its saved outputs; OpenHands' name gives an
    8-hex sha256 prefix to check (returned), Claude Code's is the call's id."""
    if fmt == "openhands-v1":
        m = _OPENHANDS_NAME.match(name)
        if m is None:
            raise NotKept(
                f"{name!r} is not named as OpenHands names a saved output "
                "(<tool>_output_<8 hex>.txt), so it is not used"
            )
        return m.group(1)
    call = raw.get("command_id")
    if fmt == "claude-code" and not (
        isinstance(call, str) and _CALL_ID.match(call) and name in (f"{call}.txt", f"{call}.json")
    ):
        raise NotKept(
            f"{name!r} is not named after this call ({call}.txt), as Claude Code names its "
            "saved outputs, so it is not used"
        )
    return None


def _roots(trace_dir: str | None, fmt: str, env: Mapping[str, str]) -> list[str]:
    """The folders a named file may be in: the trace's (and its session's) and the agent's home."""
    roots: list[str] = []
    if trace_dir is not None:
        roots.append(trace_dir)
        if os.path.basename(trace_dir) in ("events", "subagents"):
            roots.append(os.path.dirname(trace_dir))
    home = env.get("HOME") or os.path.expanduser("~")
    if fmt == "claude-code":
        roots.append(env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude"))
    elif fmt == "openhands-v1":
        roots.append(env.get("OPENHANDS_PERSISTENCE_DIR") or os.path.join(home, ".openhands"))
    return [os.path.realpath(r) for r in roots if r]


def _beside_trace(raw: Mapping[str, Any], trace_dir: str | None, fmt: str, name: str) -> str | None:
    """Where the agent would have kept ``name`` had the session been written here."""
    if trace_dir is None:
        return None
    if fmt == "claude-code":
        session = raw.get("session_id")
        if not (isinstance(session, str) and _CALL_ID.match(session)):
            return None
        folder = os.path.dirname(trace_dir) if os.path.basename(trace_dir) == "subagents" else None
        session_dir = folder or os.path.join(trace_dir, session)
        return os.path.join(session_dir, "tool-results", name)
    if fmt == "openhands-v1":
        conv = os.path.dirname(trace_dir) if os.path.basename(trace_dir) == "events" else trace_dir
        return os.path.join(conv, "observations", name)
    return None


def _locate(named: str, beside: str | None, roots: list[str]) -> str:
    """The first usable place of the file (the named one, then the one beside the trace)."""
    refusal: str | None = None
    for candidate in (named, beside):
        if candidate is None or not os.path.lexists(candidate):
            continue  # not there: a path from another machine is "not there", not "outside"
        folder = os.path.realpath(os.path.dirname(candidate))
        if not any(_inside(folder, root) for root in roots):
            refusal = refusal or (
                f"{named}: not used: it is outside the session's folder and the agent's home "
                "(a path named in a trace is only read there)"
            )
            continue
        path = os.path.join(folder, os.path.basename(candidate))
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise NotKept(f"{path}: not used: {exc.strerror or exc}") from None
        problem = _not_regular(st)
        if problem is not None:
            raise NotKept(f"{path}: not used: it is {problem}")
        if st.st_size > MAX_AGENT_FILE:
            raise NotKept(
                f"{path}: not used: {st.st_size:,} bytes, over the {MAX_AGENT_FILE >> 20} MiB "
                "tracetui reads from a file a trace names"
            )
        return path
    raise NotKept(
        refusal
        or f"the agent kept it in {named}, which is not there (the trace came from elsewhere?)"
    )


def _inside(folder: str, root: str) -> bool:
    return folder == root or folder.startswith(root.rstrip(os.sep) + os.sep)


def _not_regular(st: os.stat_result) -> str | None:
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link (a file named in a trace is never reached through a link)"
    if stat.S_ISFIFO(mode):
        return "a FIFO, not a regular file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device, not a regular file"
    if stat.S_ISDIR(mode):
        return "a directory, not a regular file"
    return "not a regular file"


def _open_named(path: str, size: int) -> IO[bytes]:
    """Open the located file again without following a link or blocking, and check it on its
    descriptor: it may have been swapped since it was located."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        raise NotKept(f"{path} is gone") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotKept(f"{path}: not used: it is a symbolic link") from None
        raise NotKept(f"{path}: not used: {exc.strerror or exc}") from None
    st = os.fstat(fd)
    problem = _not_regular(st)
    if problem is not None or st.st_size != size:
        os.close(fd)
        raise NotKept(f"{path}: not used: {problem or 'it changed while it was being read'}")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


class _Checks:
    """What can be checked of an agent's file without a hash, read through once."""

    def __init__(
        self, where: str, size: int, seen: _Seen, sha_prefix: str | None, stated: str | None
    ) -> None:
        self.where = where
        self.size = size
        self.seen = seen
        self.sha_prefix = sha_prefix
        self.stated = stated if stated is not None and _STATED.match(stated) else None

    def run(self, fh: IO[bytes]) -> None:
        sha = hashlib.sha256()
        head = bytearray()
        tail = b""
        want_tail = len(self.seen.tail)
        units = 0  # UTF-16 code units: what Claude Code's stated size counts
        decoder = codecs.getincrementaldecoder("utf-8")("strict")
        seen = 0
        try:
            while seen <= self.size:
                data = fh.read(min(_CHUNK, self.size + 1 - seen))
                if not data:
                    break
                seen += len(data)
                if self.sha_prefix is not None:
                    sha.update(data)
                if len(head) < len(self.seen.head):
                    head += data[: len(self.seen.head) - len(head)]
                if want_tail:
                    tail = (tail + data)[-want_tail:]
                if self.stated is not None:
                    units += _utf16_units(decoder.decode(data))
        except UnicodeDecodeError:
            raise KeptMismatch(
                f"{self.where} is not UTF-8 text, as the agent writes its output"
            ) from None
        except OSError as exc:
            raise KeptMismatch(
                f"{self.where} could not be read through ({exc.strerror or exc})"
            ) from None
        if seen != self.size:
            raise KeptMismatch(f"{self.where} changed size while it was read")
        if bytes(head) != self.seen.head or (want_tail and tail != self.seen.tail):
            raise KeptMismatch(
                f"{self.where} does not begin (and end) with the preview the agent saw: not "
                "that call's output (changed, or another file)"
            )
        if self.sha_prefix is not None and not sha.hexdigest().startswith(self.sha_prefix):
            raise KeptMismatch(
                f"{self.where}: its bytes do not hash to the sha256 prefix in its name "
                f"({self.sha_prefix})"
            )
        if self.stated is not None and not _fits_stated(units, self.stated):
            raise KeptMismatch(
                f"{self.where}: its length ({units:,} characters) is not the {self.stated} the "
                "agent stated"
            )
        fh.seek(0)


def _utf16_units(text: str) -> int:
    """UTF-16 code units of ``text`` (what Claude Code's stated size counts): its length, plus
    one per character past U+FFFF. ``isascii`` is free on an ASCII string; others are encoded
    in C (a Python loop over 100 MB takes seconds)."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def _fits_stated(units: int, stated: str) -> bool:
    """Claude Code states the size rounded to one decimal of its unit (1024-based); allow the
    rounding, and a 1000-based unit too."""
    m = _STATED.match(stated)
    if m is None:
        return True
    number, unit = float(m.group(1)), _UNITS[m.group(2).lower()]
    if unit == 1:
        return units == int(number)
    power = {1 << 10: 1, 1 << 20: 2, 1 << 30: 3}[unit]
    return any(abs(units / base - number) <= 0.051 for base in (unit, 1000**power))
