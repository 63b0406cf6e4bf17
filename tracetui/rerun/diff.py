"""Comparing a span's stored stream with a re-run's output: hash verdict, window diff, unseen part.

The stored span knows only what the agent was shown (the preview, a window of the stream) plus
counts and hashes. The new output is a spooled file of any size. Everything here reads just the
window(s) the agent saw and a bounded excerpt of what lies beyond, so the cost follows the window,
not the output: a 200 MB re-run costs a few seeks.

* :func:`verdict` — ``identical`` when the whole-stream hash matches, else ``head matches`` /
  ``tail matches`` / ``head and tail match`` when a kept window's hash matches the same window of
  the new output, else ``differs``; ``unknown`` when the record stores no hash at all.
* :func:`plan_windows` — which windows the agent saw and how many new bytes each compares with.
* :func:`load_texts` + :func:`diff_lines` — the stored window text (marker removed) against the
  same window of the new output, line by line, after :mod:`tracetui.rerun.normalize`.
* :func:`read_unseen` — bounded access to the part of the new output beyond the windows: what
  the agent never saw.

Sizes in a record are untrusted like the rest of it (``stdout_head_bytes: 1e12``): a window is
read for the diff only up to :data:`WINDOW_MAX` bytes, and window hashes are taken chunk by chunk,
so no value in a trace decides how much memory a comparison takes.
"""

from __future__ import annotations

import difflib
import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO, Protocol

from tracetui.model.markers import split_preview
from tracetui.model.spans import FEEDBACK, StreamFacts
from tracetui.rerun.normalize import RULE_NAMES, normalize_text

IDENTICAL = "identical"
HEAD_MATCHES = "head matches"
TAIL_MATCHES = "tail matches"
BOTH_MATCH = "head and tail match"
DIFFERS = "differs"
UNKNOWN = "unknown"
VERDICTS = (IDENTICAL, BOTH_MATCH, HEAD_MATCHES, TAIL_MATCHES, DIFFERS, UNKNOWN)

DIALECT_WINDOW = 256
"""The truncation-span dialect hashes the first / last min(len, 256) bytes."""
WHOLE_MIN = 64 << 10
"""An uncut stream is compared whole with up to this much new output (or its old size if larger)."""
EXCERPT = 8 << 10
"""Default size of the unseen excerpt."""
WINDOW_MAX = 4 << 20
"""Most bytes of new output read into memory for one window's diff, whatever the record claims
(the stored preview itself is a few KiB to a few MiB: a larger window would only show as added)."""
_HASH_CHUNK = 1 << 20


class Output(Protocol):
    """A finished stream of new output: its size, its hash, and random access to its bytes."""

    @property
    def total(self) -> int: ...

    @property
    def sha256(self) -> str: ...

    def read(self, start: int, size: int) -> bytes: ...


@dataclass(frozen=True, slots=True)
class BytesOutput:
    """New output held in memory (tests, tiny streams)."""

    data: bytes

    @property
    def total(self) -> int:
        return len(self.data)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def read(self, start: int, size: int) -> bytes:
        start = max(0, start)
        return self.data[start : start + max(0, size)]


@dataclass(frozen=True, slots=True)
class SpooledOutput:
    """New output spooled to a file while it streamed (its hash taken on the way).

    The file has no name (created unlinked): nothing is left on disk whatever ends the process,
    and its space is freed when it is closed. Reads use ``pread``, so threads may share it.
    """

    file: BinaryIO
    """The open spool file (the re-run closes it)."""
    total: int
    """Bytes in the stream."""
    sha256: str
    """Hex sha256 of the whole stream."""

    def read(self, start: int, size: int) -> bytes:
        start = max(0, start)
        size = max(0, min(size, self.total - start))
        if size == 0:
            return b""
        parts: list[bytes] = []
        fd = self.file.fileno()
        while size > 0:  # pread may return less than asked
            got = os.pread(fd, size, start)
            if not got:
                break
            parts.append(got)
            start, size = start + len(got), size - len(got)
        return b"".join(parts)

    @property
    def closed(self) -> bool:
        return self.file.closed

    def close(self) -> None:
        """Free the spool (idempotent)."""
        self.file.close()


@dataclass(frozen=True, slots=True)
class Windows:
    """What the agent saw of one stream, and where the same window lies in the new output."""

    clip: str
    """``head``, ``tail``, ``head_tail``, or ``whole`` (the stream was not cut)."""
    head_text: str | None
    """The stored text of the head window (marker removed); None when there is no head window."""
    tail_text: str | None
    """The stored text of the tail window; None when there is no tail window."""
    head_bytes: int
    """Bytes at the start of the new output compared with ``head_text``."""
    tail_bytes: int
    """Bytes at the end of the new output compared with ``tail_text``."""
    unseen_start: int
    """Offset in the new output where the part outside the windows begins."""
    unseen_bytes: int
    """Length of that part: new output the agent never saw (0 when the windows cover it)."""


@dataclass(frozen=True, slots=True)
class WindowText:
    """One window: the stored text and the same window of the new output, both decoded."""

    label: str
    """``head``, ``tail`` or ``whole``."""
    then: str
    now: str


@dataclass(frozen=True, slots=True)
class Comparison:
    """The outcome for one stream."""

    name: str
    """``stdout`` or ``stderr``."""
    verdict: str
    """One of :data:`VERDICTS`."""
    bytes_then: int | None
    """The stream's size as recorded; None when the dialect records none."""
    bytes_now: int
    hidden_then: int | None
    """Bytes the agent was not shown at the time (from the record)."""
    windows: Windows
    texts: tuple[WindowText, ...]
    changed_raw: bool
    """True when some window differs before normalisation."""
    changed: bool
    """True when some window still differs after the enabled normalisation rules."""
    reason: str | None = None
    """Why the verdict is ``unknown`` although a hash was recorded (the output limit cut the
    re-run short), or None."""


def _sha_range(new: Output, start: int, size: int) -> str:
    """Hex sha256 of ``size`` bytes of ``new`` from ``start``, read a chunk at a time."""
    h = hashlib.sha256()
    end = start + size
    while start < end:
        chunk = new.read(start, min(_HASH_CHUNK, end - start))
        if not chunk:
            break
        h.update(chunk)
        start += len(chunk)
    return h.hexdigest()


def verdict(facts: StreamFacts, new: Output) -> str:
    """How the new output relates to what the record proves about the old one (hashes only)."""
    full = facts.full_sha256 or (facts.sha256 if facts.truncated is False else None)
    if full and full.lower() == new.sha256:
        return IDENTICAL
    head_ok = tail_ok = None
    if facts.head_sha256:
        n = _window_len(facts.head_bytes, facts.bytes)
        head_ok = n <= new.total and _sha_range(new, 0, n) == facts.head_sha256.lower()
    if facts.tail_sha256:
        n = _window_len(facts.tail_bytes, facts.bytes)
        tail_ok = n <= new.total and _sha_range(new, new.total - n, n) == facts.tail_sha256.lower()
    if head_ok and tail_ok:
        return BOTH_MATCH
    if head_ok:
        return HEAD_MATCHES
    if tail_ok:
        return TAIL_MATCHES
    if full or head_ok is not None or tail_ok is not None:
        return DIFFERS
    return UNKNOWN


def _window_len(recorded: int | None, stream_bytes: int | None) -> int:
    # tracetui/1 records the window length; the truncation-span dialect fixes it at min(len, 256).
    if recorded is not None:
        return max(0, recorded)
    if stream_bytes is not None:
        return min(max(0, stream_bytes), DIALECT_WINDOW)
    return DIALECT_WINDOW


def _blen(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _cap_split(cap: int, clip: str) -> tuple[int, int]:
    # The recorder's split: head_tail keeps half each, the odd byte at the head.
    if clip == "head":
        return cap, 0
    if clip == "tail":
        return 0, cap
    return cap - cap // 2, cap // 2


def _split(facts: StreamFacts) -> tuple[str, str, bool]:
    """``(before, after, marked)``: the stored preview split at its truncation marker."""
    preview = facts.preview
    before, withheld, after = split_preview(preview)
    if withheld is not None:
        return before, after, True
    m = facts.marker
    if m is None:
        return preview, "", False
    after = preview[m.end :]
    # Foreign markers usually sit on a line of their own: its newline is not output.
    return preview[: m.start], after[1:] if after.startswith("\n") else after, True


def plan_windows(facts: StreamFacts, dialect: str, new_total: int) -> Windows:
    """The windows the agent saw of ``facts`` and their place in a new output of ``new_total`` bytes."""
    before, after, marked = _split(facts)
    if facts.truncated is False or (not marked and facts.truncated is None and dialect != FEEDBACK):
        # Not cut (or nothing says it was): the whole stream was the window.
        old = facts.bytes if facts.bytes is not None else _blen(facts.preview)
        seen = min(new_total, max(old, WHOLE_MIN))
        return Windows(
            "whole", facts.preview, None, min(seen, WINDOW_MAX), 0, seen, new_total - seen
        )
    clip = facts.clip or (facts.marker.clip if facts.marker else None) or "head"
    if dialect == FEEDBACK or (not marked and clip == "tail"):
        clip = "tail"
        if not marked:
            before, after = "", facts.preview
    elif not marked:
        clip = "head"  # a preview with no marker is the start of what was shown
    head_text = before if clip in ("head", "head_tail") else None
    tail_text = after if clip in ("tail", "head_tail") else None
    # Bytes compared: the recorded window length, else the stored text's own length.
    head_cmp = (
        0
        if head_text is None
        else (facts.head_bytes if facts.head_bytes is not None else _blen(head_text))
    )
    tail_cmp = (
        0
        if tail_text is None
        else (facts.tail_bytes if facts.tail_bytes is not None else _blen(tail_text))
    )
    # Bytes seen: the window lengths, else what the cap let through (the dialect's preview may be
    # shorter than what the consumer saw), else the stored text.
    seen_head, seen_tail = head_cmp, tail_cmp
    if facts.head_bytes is None and facts.tail_bytes is None and facts.cap is not None:
        seen_head, seen_tail = _cap_split(facts.cap, clip)
        seen_head, seen_tail = max(seen_head, head_cmp), max(seen_tail, tail_cmp)
    # What is read for the diff: never more than the new output, nor than WINDOW_MAX.
    head_cmp = max(0, min(head_cmp, new_total, WINDOW_MAX))
    tail_cmp = max(0, min(tail_cmp, new_total, WINDOW_MAX))
    unseen_start = max(0, min(seen_head, new_total))
    unseen_end = max(unseen_start, new_total - max(0, seen_tail))
    return Windows(
        clip, head_text, tail_text, head_cmp, tail_cmp, unseen_start, unseen_end - unseen_start
    )


def decode(data: bytes, binary: bool = False) -> str:
    """New output as text the way the recorder renders it (``\\xNN`` for a binary stream)."""
    return data.decode("utf-8", "backslashreplace" if binary else "replace")


def load_texts(windows: Windows, new: Output, binary: bool = False) -> tuple[WindowText, ...]:
    """Read the new output's windows (and nothing else) and pair them with the stored texts."""
    out: list[WindowText] = []
    if windows.head_text is not None:
        label = "whole" if windows.clip == "whole" else "head"
        out.append(
            WindowText(label, windows.head_text, decode(new.read(0, windows.head_bytes), binary))
        )
    if windows.tail_text is not None:
        now = new.read(new.total - windows.tail_bytes, windows.tail_bytes)
        out.append(WindowText("tail", windows.tail_text, decode(now, binary)))
    return tuple(out)


def _lines(text: str, rules: Iterable[str]) -> list[str]:
    # split("\n"), not splitlines(): form feeds and \x1c inside a line are content, not breaks.
    return normalize_text(text, rules).split("\n")


def diff_lines(
    texts: Iterable[WindowText],
    rules: Iterable[str] = RULE_NAMES,
    *,
    name: str = "",
    context: int = 3,
) -> list[str]:
    """A unified diff (lines without newlines) of each window, then vs now, after ``rules``."""
    rules = tuple(rules)
    out: list[str] = []
    prefix = f"{name} " if name else ""
    for wt in texts:
        out.extend(
            difflib.unified_diff(
                _lines(wt.then, rules),
                _lines(wt.now, rules),
                fromfile=f"then: {prefix}{wt.label} (stored preview)",
                tofile=f"now: {prefix}{wt.label} (same window of the re-run)",
                lineterm="",
                n=context,
            )
        )
    return out


def compare(
    facts: StreamFacts,
    dialect: str,
    new: Output,
    rules: Iterable[str] = RULE_NAMES,
    *,
    binary: bool = False,
) -> Comparison:
    """Verdict, windows and window texts for one stream."""
    rules = tuple(rules)
    windows = plan_windows(facts, dialect, new.total)
    texts = load_texts(windows, new, binary)
    changed_raw = any(t.then != t.now for t in texts)
    changed = changed_raw and any(
        normalize_text(t.then, rules) != normalize_text(t.now, rules) for t in texts
    )
    return Comparison(
        facts.name,
        verdict(facts, new),
        facts.bytes,
        new.total,
        facts.hidden_bytes,
        windows,
        texts,
        changed_raw,
        changed,
    )


def read_unseen(new: Output, windows: Windows, offset: int = 0, limit: int = EXCERPT) -> bytes:
    """Up to ``limit`` bytes of the never-seen part, from ``offset`` into it (bounded access)."""
    offset = max(0, offset)
    if offset >= windows.unseen_bytes:
        return b""
    size = min(limit, windows.unseen_bytes - offset)
    return new.read(windows.unseen_start + offset, size)


@dataclass(frozen=True, slots=True)
class Excerpt:
    """A bounded look at the never-seen part: its start, what was skipped, its end."""

    start: str
    """The first bytes of the part (all of it when it is small), cut back to a line end."""
    skipped: int
    """Bytes between ``start`` and ``end`` that are not shown (0 when nothing was left out)."""
    end: str
    """The last bytes of the part, from a line start; empty when ``start`` holds everything."""


def unseen_excerpt(
    new: Output, windows: Windows, limit: int = EXCERPT, binary: bool = False
) -> Excerpt:
    """At most ``2 * limit`` bytes of the never-seen part: its start and its end (where summaries
    and final errors usually are), each cut at a line boundary when one is near."""
    total = windows.unseen_bytes
    if limit <= 0 or total == 0:
        return Excerpt("", total, "")
    if total <= 2 * limit:
        return Excerpt(decode(read_unseen(new, windows, 0, total), binary), 0, "")
    head = read_unseen(new, windows, 0, limit)
    cut = head.rfind(b"\n")
    if cut >= limit // 2:
        head = head[: cut + 1]
    tail_from = total - limit
    tail = read_unseen(new, windows, tail_from, limit)
    cut = tail.find(b"\n")
    if 0 <= cut < limit // 2:
        tail, tail_from = tail[cut + 1 :], tail_from + cut + 1
    return Excerpt(decode(head, binary), tail_from - len(head), decode(tail, binary))
