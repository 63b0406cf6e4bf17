"""Span-record building blocks for the sample runs, computed exactly as SPEC §2 describes.

``make_samples.py`` describes *what* happens in each sample run; this module turns a real command
result into a record in one of the three dialects (tracetui/1, truncation-span, feedback-record),
simulates size-based rotation, and computes the facts that ``tracetui summary --json`` must agree
with. Stdlib only, plus tracetui's own marker so that previews carry the very marker the recorder
writes, and its kept-output store (:func:`keep_streams`) so that kept streams are stored exactly as
``tracetui run`` stores them.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from tracetui.model.markers import marker_line

STREAMS = ("stdout", "stderr")


@dataclass(frozen=True, slots=True)
class Result:
    """What one real run of a command produced."""

    exit_code: int | None
    """The exit status; None when the command could not be started (then ``error`` says why)."""
    error: str | None
    """Why the runner failed, or None when the command ran."""
    stdout: bytes
    stderr: bytes


def run_commands(run_dir: Path, argvs: list[list[str]]) -> dict[tuple[str, ...], Result]:
    """Run each distinct argv once in ``run_dir`` (the tools are deterministic per argv).

    Runs in a small thread pool: each command is a fresh interpreter and the test suite
    regenerates every sample run, so wall time matters.
    """
    unique = list(dict.fromkeys(tuple(a) for a in argvs))
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda a: run_one(run_dir, list(a)), unique))
    return dict(zip(unique, results, strict=True))


def run_one(run_dir: Path, argv: list[str]) -> Result:
    """Run one argv with stdin closed and a fixed environment; never through a shell."""
    # ``python3`` is this interpreter, started without site-packages (-S): the tools are stdlib
    # only, and skipping site (an editable install's import hook above all) makes each run ~3x
    # faster, which keeps the regeneration test quick. Output is the same either way.
    real = [sys.executable, "-S", *argv[1:]] if argv[0] == "python3" else list(argv)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LC_ALL": "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    try:
        proc = subprocess.run(
            real,
            cwd=run_dir,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            env=env,
            timeout=60,
            check=False,
        )
    except FileNotFoundError:
        return Result(None, f"command not found: {argv[0]}", b"", b"")  # the recorder's wording
    except PermissionError:
        return Result(None, f"permission denied: {argv[0]}", b"", b"")
    except OSError as exc:
        return Result(None, f"cannot execute {argv[0]}: {exc.strerror or exc}", b"", b"")
    return Result(proc.returncode, None, proc.stdout, proc.stderr)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _prefix(data: bytes, n: int) -> bytes:
    """The longest prefix of at most n bytes that does not end inside a UTF-8 character."""
    cut = n
    while 0 < cut < len(data) and data[cut] & 0xC0 == 0x80:
        cut -= 1
    return data[:cut]


def _suffix(data: bytes, n: int) -> bytes:
    """The longest suffix of at most n bytes that does not start inside a UTF-8 character."""
    start = len(data) - n
    while start < len(data) and data[start] & 0xC0 == 0x80:
        start += 1
    return data[start:]


def clip(data: bytes, cap: int | None, mode: str) -> tuple[bytes, bytes] | None:
    """The kept (head, tail) windows, or None when nothing is withheld.

    head_tail keeps ``cap - cap // 2`` bytes at the head and ``cap // 2`` at the tail (the odd
    byte goes to the head), each cut back to a character boundary, as tracetui's recorder does.
    """
    if cap is None or len(data) <= cap:
        return None
    if mode == "head":
        return _prefix(data, cap), b""
    if mode == "tail":
        return b"", _suffix(data, cap)
    return _prefix(data, cap - cap // 2), _suffix(data, cap // 2)


def json_list(data: bytes) -> tuple[str | None, int] | None:
    """(list key, item count) when the stream is JSON holding a list; the key is None for a
    top-level list."""
    try:
        doc = json.loads(data)
    except ValueError:
        return None
    if isinstance(doc, list):
        return None, len(doc)
    if isinstance(doc, dict):
        keys = [k for k, v in doc.items() if isinstance(v, list)]
        if len(keys) == 1:
            return keys[0], len(doc[keys[0]])
    return None


def complete_items(text: str, key: str | None) -> int:
    """How many whole items of the list (top level or under ``key``) the text contains."""
    if key is None:
        start = text.find("[")
    else:
        m = re.search(rf'"{re.escape(key)}"\s*:\s*\[', text)
        start = m.end() - 1 if m else -1
    if start < 0:
        return 0
    decoder, pos, count = json.JSONDecoder(), start + 1, 0
    while True:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if pos >= len(text) or text[pos] == "]":
            return count
        try:
            _, pos = decoder.raw_decode(text, pos)
        except ValueError:
            return count
        count += 1
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if pos < len(text) and text[pos] == ",":
            pos += 1


def _stream(s: str, data: bytes, cap: int | None, mode: str) -> tuple[dict, str]:
    """The ``{s}_*`` fields of a tracetui/1 record and the exact preview for one stream."""
    cut = clip(data, cap, mode)
    if cut is None:
        # Like the recorder, the clip mode is written whenever a cap applies.
        fields = {
            f"{s}_bytes": len(data),
            f"{s}_cap": cap,
            f"{s}_truncated": False,
            f"{s}_clip": mode if cap is not None else None,
            f"{s}_sha256": sha(data),
            f"{s}_full_sha256": sha(data),
            f"{s}_head_sha256": None,
            f"{s}_head_bytes": None,
            f"{s}_tail_sha256": None,
            f"{s}_tail_bytes": None,
        }
        return fields, data.decode("utf-8", "replace")
    head, tail = cut
    withheld = len(data) - len(head) - len(tail)
    fields = {
        f"{s}_bytes": len(data),
        f"{s}_cap": cap,
        f"{s}_truncated": True,
        f"{s}_clip": mode,
        f"{s}_sha256": None,
        f"{s}_full_sha256": sha(data),
        f"{s}_head_sha256": None,
        f"{s}_head_bytes": None,
        f"{s}_tail_sha256": None,
        f"{s}_tail_bytes": None,
    }
    # Only the kept windows are described: a head cut has no tail window, and vice versa.
    if mode != "tail":
        fields[f"{s}_head_sha256"], fields[f"{s}_head_bytes"] = sha(head), len(head)
    if mode != "head":
        fields[f"{s}_tail_sha256"], fields[f"{s}_tail_bytes"] = sha(tail), len(tail)
    preview = ""
    if mode != "tail":
        preview += head.decode("utf-8", "replace")
    preview += marker_line(withheld)
    if mode != "head":
        preview += tail.decode("utf-8", "replace")
    return fields, preview


def keep_streams(
    base: Path, rec: dict, result: Result, cap: int = 8192, mode: str = "head"
) -> None:
    """Keep both streams of ``rec`` in the run's kept-output store (``B.kept/``) the way
    ``tracetui run`` does, through the recorder's own store, and add ``{s}_kept`` to ``rec``."""
    from tracetui.record.kept import KeptRef, KeptStore, unseen_range
    from tracetui.record.recorder import window_limits
    from tracetui.record.redact import Redactor

    with KeptStore.open(str(base)) as store:
        for s in STREAMS:
            writer = store.writer(Redactor(), *window_limits(cap, mode))
            writer.feed(getattr(result, s))
            pending = writer.finish()
            assert pending is not None and store.commit(pending) is None
            start, end = unseen_range(
                pending,
                rec[f"{s}_bytes"],
                mode if rec[f"{s}_truncated"] else None,
                rec[f"{s}_head_bytes"],
                rec[f"{s}_tail_bytes"],
            )
            rec[f"{s}_kept"] = KeptRef(pending.sha256, pending.size, start, end).as_record()


def _encoding(result: Result) -> str:
    try:
        result.stdout.decode("utf-8")
        result.stderr.decode("utf-8")
    except UnicodeDecodeError:
        return "binary"
    return "utf-8"


def tracetui_record(
    *,
    command_id: str,
    parent: str | None,
    tool_name: str,
    argv: list[str],
    started_at: str,
    duration_ms: int,
    result: Result,
    note: str,
    cap: int | None = 8192,
    mode: str = "head",
) -> dict:
    """A ``tracetui/1`` record, field for field as SPEC §2 lists them; one cap for both streams."""
    rec: dict = {
        "schema": "tracetui/1",
        "span_type": "tool",
        "command_id": command_id,
        "parent_command_id": parent,
        "tool_name": tool_name,
        "argv": argv,
        "cwd": ".",
        "started_at": started_at,
        "duration_ms": duration_ms,
        "exit_code": result.exit_code,
        "error": result.error,
        "agent_note": note,
    }
    previews = {}
    for s in STREAMS:
        fields, previews[s] = _stream(s, getattr(result, s), cap, mode)
        rec.update(fields)
    rec["preview_stdout"], rec["preview_stderr"] = previews["stdout"], previews["stderr"]
    rec["encoding"] = _encoding(result)
    clipped = rec["stdout_truncated"] or rec["stderr_truncated"]
    rec["ok_preview"] = result.exit_code == 0 and not clipped
    rec["redacted"] = 0
    for s in STREAMS:
        listed = json_list(getattr(result, s))
        rec[f"{s}_items"] = None if listed is None else listed[1]
        shown = None if listed is None else complete_items(previews[s], listed[0])
        rec[f"preview_{s}_items"] = shown
    return rec


def span_dialect_record(
    *,
    tool_name: str,
    argv: list[str],
    result: Result,
    cap: int,
    shown: bytes | None = None,
    lie: bool = False,
) -> dict:
    """A truncation-span dialect record (the minimal contract other collectors write).

    ``shown`` overrides the capped view (a framework that repaired the JSON it cut); ``lie``
    writes the flags the way a broken collector does: never truncated, ok_preview from exit alone.
    """
    rec: dict = {
        "span_type": "tool",
        "tool_name": tool_name,
        "argv": argv,
        "cwd": ".",
        "returncode": result.exit_code,
    }
    views = {
        s: shown if (shown is not None and s == "stdout") else _prefix(getattr(result, s), cap)
        for s in STREAMS
    }
    for s in STREAMS:
        rec[f"preview_{s}"] = views[s].decode("utf-8", "replace")[:512]
    flags = {}
    for s in STREAMS:
        data = getattr(result, s)
        flags[s] = len(data) > cap and not lie
        rec.update({f"{s}_bytes": len(data), f"{s}_cap": cap, f"{s}_truncated": flags[s]})
    for s in STREAMS:
        rec[f"{s}_sha256"] = None if flags[s] else sha(getattr(result, s))
    rec["stdout_head_sha256"] = sha(result.stdout[:256])
    rec["stdout_tail_sha256"] = sha(result.stdout[-256:])
    rec["encoding"] = _encoding(result)
    rec["ok_preview"] = result.exit_code == 0 and not any(flags.values())
    rec["collector"] = "toolspan-py 0.4.1"  # an unknown key: readers keep it for the raw view
    return rec


def tail_lines(data: bytes, keep: int) -> str:
    """The feedback runner's view: the last ``keep`` lines, behind a marker line when cut."""
    lines = data.decode("utf-8", "replace").splitlines(keepends=True)
    if len(lines) <= keep:
        return "".join(lines)
    return f"...truncated {len(lines) - keep} lines...\n" + "".join(lines[-keep:])


def feedback_record(
    *,
    command_id: str,
    parent: str | None,
    argv: list[str],
    started_at: str,
    duration_ms: int,
    result: Result,
    note: str,
    keep: int = 30,
) -> dict:
    """A feedback-record dialect record: line tails, no byte counts."""
    rec: dict = {
        "command": argv,
        "cwd": ".",
        "command_id": command_id,
        "parent_command_id": parent,
        "started_at": started_at,
        "duration_ms": duration_ms,
        "exit_code": result.exit_code,
    }
    if result.exit_code is None:
        rec["error"] = result.error
    rec["stdout_tail"] = tail_lines(result.stdout, keep)
    rec["stderr_tail"] = tail_lines(result.stderr, keep)
    rec["agent_note"] = note
    return rec


def line(rec: dict) -> bytes:
    return (json.dumps(rec, ensure_ascii=False) + "\n").encode("utf-8")


class Clock:
    """Fixed, advancing wall-clock times: every run of the generator writes the same bytes."""

    def __init__(self, start: str) -> None:
        self.now = datetime.fromisoformat(start).replace(tzinfo=timezone.utc)

    def stamp(self) -> str:
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"

    def advance(self, ms: int) -> None:
        self.now += timedelta(milliseconds=ms)


def rotate(lines: list[bytes], max_bytes: int, keep: int) -> tuple[list[list[bytes]], int]:
    """Split appended lines into members the way the writer rotates (SPEC §3).

    Returns the surviving members, oldest first (``B.keep … B.1, B``), and how many lines the
    rotation dropped with the oldest members.
    """
    members: list[list[bytes]] = [[]]
    size = 0
    for item in lines:
        if size and size + len(item) > max_bytes:
            members.append([])
            size = 0
        members[-1].append(item)
        size += len(item)
    kept = members[-(keep + 1) :]
    return kept, sum(len(m) for m in members[: -(keep + 1)])


def write_members(run_dir: Path, base: str, members: list[list[bytes]], gz: set[int]) -> None:
    """Write members oldest first as ``B.N … B.1, B``; numbers in ``gz`` are stored gzip'd."""
    for pos, chunk in enumerate(members):
        number = len(members) - 1 - pos
        data = b"".join(chunk)
        name = base if number == 0 else f"{base}.{number}"
        if number in gz:
            # mtime=0 and no file name in the header keep the archive byte-identical across runs.
            (run_dir / f"{name}.gz").write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
        else:
            (run_dir / name).write_bytes(data)
