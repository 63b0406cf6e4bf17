"""Converting another agent's trace while it grows: records appended to a temporary JSONL that a
:class:`~tracetui.store.index.RunIndex` indexes, plus the calls still waiting for their result.

:func:`tracetui.store.build.build_index` converts a foreign trace once. Here a follower
(:mod:`tracetui.live.foreign`) hands over what the file holds as it grows, and this module
keeps the index up to date through the index's own methods, exactly as a whole conversion would
have left it:

- a line-oriented format with a feeder (:class:`~tracetui.importers.protocol.Feeder`) gets each
  complete line as it is written (:class:`LineImport`); the records it lets out, in call order,
  become rows; the calls it still holds are published as a :class:`Pending` snapshot;
- any other format is converted again whole when the file has changed (:class:`DocumentImport`):
  when the new records start with the rows already indexed, the rest is appended; otherwise the
  caller starts a new index (:meth:`DocumentImport.read` says which).

Both write each record once, to a temporary file the index owns (removed when it closes).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tracetui import importers
from tracetui.importers import protocol
from tracetui.importers._common import ImportProblem, Problems, parse_time, record_line
from tracetui.importers.protocol import Feeder, FolderFeeder, shape_of
from tracetui.importers.registry import by_name
from tracetui.model.spans import NotASpan, Span, normalize
from tracetui.store.index import RunIndex
from tracetui.store.reader import RawLine, loads, open_regular
from tracetui.store.runset import Member, Run
from tracetui.store.temp_files import make_temp

Note = Callable[[str], None]
LINES = protocol.LINES
"""A trace followed line by line (:func:`follow_shape`)."""
FOLDER = protocol.FOLDER
"""A folder of event files, followed file by file."""
DOCUMENT = protocol.DOCUMENT
"""A trace read again whole when it changes."""


@dataclass(frozen=True, slots=True)
class RunningCall:
    """A call seen in the trace and not yet a row: its result has not arrived (``running``), or
    it has, and it waits behind a call that is still running (calls become rows in order)."""

    span: Span
    running: bool
    started: float | None
    """Epoch seconds of the call's recorded start; None when it has none (or none readable)."""
    seen: float
    """Epoch seconds when tracetui first saw the call (the start when none was recorded)."""

    def since(self) -> float:
        """When the call started, as well as tracetui can tell (epoch seconds)."""
        return self.started if self.started is not None else self.seen

    def elapsed(self, now: float | None = None) -> float:
        """Seconds it has been running (never negative)."""
        return max(0.0, (time.time() if now is None else now) - self.since())


@dataclass(frozen=True, slots=True)
class Pending:
    """The calls not yet rows, in call order: the first becomes row ``first_row`` when it ends.

    A snapshot, replaced whole (never changed) so other threads can read it without a lock.
    Rows committed after it was taken are the calls at its head: :meth:`after` drops them.
    """

    first_row: int
    calls: tuple[RunningCall, ...] = ()

    def after(self, rows: int) -> tuple[RunningCall, ...]:
        """The calls still pending once the index holds ``rows`` rows (never one twice)."""
        return self.calls[max(0, rows - self.first_row) :]


class ImportSink:
    """A foreign trace's records written to a temporary JSONL and indexed as they come."""

    def __init__(self, run: Run) -> None:
        self.index = RunIndex(run)
        fd, self.temp = make_temp("import", ".jsonl")
        self.index.adopt_temp(self.temp)
        self._fd = fd
        # Rows are read back from the converted copy; locations still name the original file.
        self.mno = self.index.add_member(Member(run.base, 0, False), self.temp)
        self._size = 0
        self._lines = 0
        self.digests: list[bytes] = []
        """One digest per row written, in order: a re-read document is compared with them."""

    def add(self, records: Iterable[dict[str, Any]]) -> list[int]:
        """Write and index ``records`` in order; the rows added. (Their spans are parsed when
        looked at: the viewer only counts them, and a catch-up parsed twice was most of its cost.)"""
        out: list[int] = []
        for record in records:
            data = encode(record)
            self._write_line(data + b"\n")  # unbuffered: the index may read the row at once
            self._lines += 1
            raw = RawLine(self._lines, self._size, len(data), data)
            self._size += len(data) + 1
            self.digests.append(digest(data))
            row = self.index.add_line(self.mno, raw)
            if row is not None:
                out.append(row)
        return out

    def _write_line(self, line: bytes) -> None:
        """Write all of ``line`` at the end of the copy, or nothing: a disk that fills takes part
        of a write (the rest is written again, which raises), and a part left behind would move
        every later row away from the offset its row says. The copy is cut back, then the
        error goes to the caller (the follower notes it)."""
        view = memoryview(line)
        try:
            while view:
                view = view[os.write(self._fd, view) :]
        except OSError:
            os.ftruncate(self._fd, self._size)
            os.lseek(self._fd, self._size, os.SEEK_SET)
            raise

    def close(self) -> None:
        """Stop writing (the index, and its rows, stay readable until it is closed)."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def encode(record: dict[str, Any]) -> bytes:
    """One record as a JSON line, written as a whole import writes it (``record_line``)."""
    return record_line(record)[1]


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


FIRST_LINE = 1 << 16
"""Bytes looked at for a new file's first line before its format is named anyway."""


def empty_run(run: Run) -> bool:
    """A run that is one base file with nothing in it yet (so nothing tells its format)."""
    try:
        return len(run.members) == 1 and not run.sidecar and os.path.getsize(run.base) == 0
    except OSError:
        return False


def first_line_format(path: str) -> tuple[bool, str | None]:
    """``(ready, format)`` for a file that was empty when opened: not ready while its first
    line is unfinished (nothing to recognise yet); then the foreign format its content names,
    or None for one of tracetui's own runs."""
    try:
        with open_regular(path) as fh:
            head = fh.read(FIRST_LINE)
    except OSError:
        return False, None
    if b"\n" not in head and len(head) < FIRST_LINE:
        return False, None
    return True, importers.sniff(path)


def has_feeder(fmt: str) -> bool:
    """Whether format ``fmt`` is converted line by line (its importer has a feeder)."""
    importer = by_name(fmt)
    return importer is not None and importer.feeder is not None


def follow_shape(run: Run) -> str | None:
    """How a foreign trace is followed (:func:`~tracetui.importers.protocol.shape_of`): line
    by line, file by file (a folder of events) or re-read whole. A gzip'd file is always read
    whole; None while the file's start does not tell yet."""
    importer = by_name(run.source_format or "")
    if importer is None:
        return DOCUMENT
    if not os.path.isdir(run.base):
        try:
            with open_regular(run.base) as fh:
                if fh.read(2) == b"\x1f\x8b":
                    return DOCUMENT
        except OSError:
            return DOCUMENT  # nothing readable: read it whole (and say why) when it is
    shape = shape_of(importer, run.base)
    if shape == LINES and importer.feeder is None:
        return DOCUMENT
    if shape == FOLDER and importer.folder_feeder is None:
        return DOCUMENT
    return shape


class LineImport:
    """A growing trace fed through its format's feeder: one complete line at a time, or (a
    folder of event files, ``folder=True``) one event file at a time."""

    def __init__(self, sink: ImportSink, fmt: str, note: Note, *, folder: bool = False) -> None:
        importer = by_name(fmt)
        self.sink = sink
        self.fmt = fmt
        self.note = note
        self.problems = Problems()
        self._told = 0
        self.folder_feeder: FolderFeeder | None = None
        base = sink.index.run.base
        if folder:
            folder_factory = importer.folder_feeder if importer is not None else None
            if folder_factory is None:
                raise ValueError(f"{fmt} is not read file by file")
            self.folder_feeder = folder_factory(base, self.problems)
            self.feeder: Feeder = self.folder_feeder
        else:
            factory = importer.feeder if importer is not None else None
            if factory is None:
                raise ValueError(f"{fmt} is not read line by line")
            self.feeder = factory(base, self.problems)
        self._seen: dict[str, float] = {}
        """Command id → when a pending call was first seen (its elapsed time without a start)."""
        self.pending = Pending(0)

    def feed_file(self, index: int, path: str, value: Any) -> list[int]:
        """One event file of a folder trace (parsed); the rows it lets out."""
        assert self.folder_feeder is not None
        try:
            records = self.folder_feeder.feed_file(index, path, value)
        except Exception as exc:  # a shape no converter foresaw: one problem, never a traceback
            name = os.path.basename(path)
            self.problems.add(f"{name}: skipped ({type(exc).__name__}: {exc})")
            return []
        return self.sink.add(records)

    def feed(self, raw: RawLine) -> list[int]:
        """One line of the trace (complete, or the last one of a file that stopped growing)."""
        if raw.data is None:
            self.problems.add(f"line {raw.line_no}: over the line size limit, skipped")
            return []
        if not raw.data.strip():
            return []
        try:
            value, _note = loads(raw.data)
        except ValueError:
            what = "cut short (no newline at end)" if not raw.complete else "malformed JSON"
            self.problems.add(f"line {raw.line_no}: {what}, skipped")
            return []
        try:
            records = self.feeder.feed(raw.line_no, value)
        except Exception as exc:  # a shape no converter foresaw: one problem, never a traceback
            self.problems.add(f"line {raw.line_no}: skipped ({type(exc).__name__}: {exc})")
            return []
        return self.sink.add(records)

    def settle(self) -> None:
        """After a batch of lines: publish the pending calls, tell the problems not yet told."""
        now = time.time()
        calls = []
        seen: dict[str, float] = {}
        for rec in self.feeder.pending():
            key = str(rec.get("command_id"))
            seen[key] = self._seen.get(key, now)
            call = running_call(rec, seen[key])
            if call is not None:
                calls.append(call)
        self._seen = seen
        self.pending = Pending(len(self.sink.index), tuple(calls))
        self.tell_problems()

    def finish(self) -> list[int]:
        """The file will not grow (a one-off read): end the held calls as a conversion does."""
        rows = self.sink.add(self.feeder.finish())
        self.pending = Pending(len(self.sink.index))
        self.tell_problems()
        return rows

    def tell_problems(self) -> None:
        items = self.problems.items
        while self._told < len(items):
            self.note(f"{self.fmt} import: {items[self._told]}")
            self._told += 1


def running_call(rec: dict[str, Any], seen: float) -> RunningCall | None:
    """A held record as a :class:`RunningCall`; None if it does not read as a span."""
    try:
        span = normalize(rec)
    except NotASpan:
        return None
    started = parse_time(rec.get("started_at"))
    when = started.timestamp() if started is not None and started.tzinfo is not None else None
    return RunningCall(span, rec.get("running") is True, when, seen)


@dataclass(frozen=True, slots=True)
class Reread:
    """What a re-read of a whole-document trace found."""

    records: list[dict[str, Any]]
    """The calls that are rows: every call up to the last one with a result."""
    digests: list[bytes]
    held: list[dict[str, Any]]
    """The calls after the last one with a result, none of which has one yet: shown as running
    (a later read may give them their result; a call with a result after them ends them)."""
    problem: str | None
    """The conversion's complaint about the file (parts skipped), if any."""


class DocumentImport:
    """A trace written as one document (a JSON value, a zip): converted again when it changes."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.pending = Pending(0)
        self.unreadable: str | None = None
        """Why the last read found no document (None when it found one)."""
        self._held: list[dict[str, Any]] = []
        self._seen: dict[str, float] = {}

    def hold(self, held: list[dict[str, Any]], rows: int) -> None:
        """Publish the calls still without a result, after the first ``rows`` rows."""
        now = time.time()
        seen: dict[str, float] = {}
        calls = []
        for rec in held:
            key = str(rec.get("command_id"))
            seen[key] = self._seen.get(key, now)
            call = running_call(dict(rec, running=True), seen[key])
            if call is not None:
                calls.append(call)
        self._seen = seen
        self._held = held
        self.pending = Pending(rows, tuple(calls))

    def take_held(self) -> list[dict[str, Any]]:
        """The calls still held, handed over for good (the trace is read as it is: ``finish``)."""
        held, self._held = self._held, []
        self.pending = Pending(self.pending.first_row)
        return held

    def read(self, path: str) -> Reread | None:
        """Convert the file as it is now; None when it is no complete document yet (a writer is
        still writing it: nothing could be read from it)."""
        records: list[dict[str, Any]] = []
        problem = None
        self.unreadable = None
        try:
            for record in importers.convert(path, self.fmt):
                records.append(record)
        except ImportProblem as exc:
            if not records and "no tool calls found" not in str(exc):
                self.unreadable = str(exc)
                return None
            problem = str(exc) if records else None
        except (OSError, ValueError) as exc:
            self.unreadable = str(exc)
            return None
        cut = len(records)
        while cut and records[cut - 1].get("result_missing") is True:
            cut -= 1
        rows = records[:cut]
        return Reread(rows, [digest(encode(r)) for r in rows], records[cut:], problem)

    @staticmethod
    def extends(old: list[bytes], new: list[bytes]) -> bool:
        """Whether the new records start with every row already indexed (so only append)."""
        return len(new) >= len(old) and new[: len(old)] == old
