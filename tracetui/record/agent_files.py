"""The files another agent wrote its whole output to: where one may be, and how it is read.

A path named inside a trace is hostile input (whoever wrote the trace chose it), so a file is
only used when its folder resolves inside the trace's own folder (for OpenHands' ``events/`` or
Claude Code's ``subagents/``, the session folder above it) or the agent's home
(``$CLAUDE_CONFIG_DIR`` or ``~/.claude``, ``$OPENHANDS_PERSISTENCE_DIR`` or ``~/.openhands``),
it is named as the agent names such files, the last step is no link (``O_NOFOLLOW``), the open
never blocks (``O_NONBLOCK``), anything but a regular file is refused on its descriptor, and a
file over :data:`MAX_AGENT_FILE` is not read. A path that is not there is looked for once where
the agent keeps such files beside the trace (a session copied from another machine).

No hash was recorded for such a file: :class:`Checks` reads it through once and checks what
can be checked (the preview is its start and end, Claude Code's stated size, OpenHands' sha256
name prefix). :mod:`tracetui.record.kept_imported` puts these together.
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any

from tracetui.record.kept_errors import KeptMismatch, NotKept

MAX_AGENT_FILE = 256 << 20
"""Bytes of a file named in a trace that tracetui will read; a bigger one is refused."""
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_CHUNK = 1 << 20
_STATED = re.compile(r"\A\s*(\d+(?:\.\d+)?)\s*(bytes|B|KB|MB|GB)\s*\Z", re.I)
_UNITS = {"bytes": 1, "b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30}
CALL_ID = re.compile(r"\A[A-Za-z0-9_\-]{1,128}\Z")
"""An id or a session id that may be part of a file name (no separators, no dots)."""
_OPENHANDS_NAME = re.compile(r"\A[A-Za-z0-9_\-]{1,64}_output_([0-9a-f]{8})\.txt\Z")


@dataclass(frozen=True, slots=True)
class Seen:
    """The part of the kept text the agent saw: its head and its tail (either may be empty)."""

    head: bytes
    tail: bytes


def expected_name(raw: Mapping[str, Any], fmt: str, name: str) -> str | None:
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
        isinstance(call, str) and CALL_ID.match(call) and name in (f"{call}.txt", f"{call}.json")
    ):
        raise NotKept(
            f"{name!r} is not named after this call ({call}.txt), as Claude Code names its "
            "saved outputs, so it is not used"
        )
    return None


def allowed_roots(trace_dir: str | None, fmt: str, env: Mapping[str, str]) -> list[str]:
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


def beside_trace(raw: Mapping[str, Any], trace_dir: str | None, fmt: str, name: str) -> str | None:
    """Where the agent would have kept ``name`` had the session been written here."""
    if trace_dir is None:
        return None
    if fmt == "claude-code":
        session = raw.get("session_id")
        if not (isinstance(session, str) and CALL_ID.match(session)):
            return None
        folder = os.path.dirname(trace_dir) if os.path.basename(trace_dir) == "subagents" else None
        session_dir = folder or os.path.join(trace_dir, session)
        return os.path.join(session_dir, "tool-results", name)
    if fmt == "openhands-v1":
        conv = os.path.dirname(trace_dir) if os.path.basename(trace_dir) == "events" else trace_dir
        return os.path.join(conv, "observations", name)
    return None


def locate(named: str, beside: str | None, roots: list[str]) -> str:
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


def open_named(path: str, size: int) -> IO[bytes]:
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


class Checks:
    """What can be checked of an agent's file without a hash, read through once."""

    def __init__(
        self, where: str, size: int, seen: Seen, sha_prefix: str | None, stated: str | None
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
