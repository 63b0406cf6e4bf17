"""Discovery of runs and their rotated members (SPEC §3).

A run is a base file ``B`` plus its rotated members ``B.1 … B.N`` (any of them may be gzip'd as
``B.N.gz``). Set order is oldest first: ``B.N … B.2, B.1, B`` with natural number order, so
``.10`` sorts before ``.9``'s newer neighbours correctly. A directory holds one run per base file.
A ``B.reruns.jsonl`` sidecar (written by the re-run feature) belongs to its run: it is never a
run of its own nor a rotation member.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field

import orjson

from tracetui.store import sidecars
from tracetui.store.file_kinds import file_kind

SIDECAR_SUFFIX = sidecars.SUFFIX
_ROTATED = re.compile(r"^(?P<base>.+?)\.(?P<n>[0-9]+)(?P<gz>\.gz)?\Z")
"""A rotated member's name: ASCII digits only (``\\d`` takes any script's, which ``int`` reads),
to the very end (``$`` also takes a name ending in a newline)."""
MAX_MEMBER = 10_000
"""Highest rotation number read as a member: ``B.10000000`` is a name, not the 10-millionth
member (a writer keeps a few dozen; nothing is ever sized by a number from a file name)."""
_OVER = MAX_MEMBER + 1
"""The number a name over MAX_MEMBER is listed with, beside its run, to be noted and not read."""
_GAPS_SHOWN = 8
"""Runs of missing numbers spelt out in the gap note; the rest are counted."""
# What counts as a run file when a directory is opened (after the rotation suffix is stripped).
RUN_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")


class RunSetError(Exception):
    """A path that cannot be opened as a run (missing, unreadable, nothing inside)."""


@dataclass(slots=True)
class Member:
    """One physical file of a run."""

    path: str
    """Where the file is now (the follower updates it when the file is rotated)."""
    number: int
    """0 for the base file, N for ``B.N``."""
    gz: bool
    """Whether the member is gzip-compressed."""

    @property
    def name(self) -> str:
        return os.path.basename(self.path)


@dataclass(slots=True)
class Run:
    """A base file and its members in set order (oldest first)."""

    base: str
    """Path of the base file ``B`` (it may not exist if only rotated members remain)."""
    members: list[Member]
    sidecar: str | None = None
    """Path of ``B.reruns.jsonl`` when it exists."""
    notes: list[str] = field(default_factory=list)
    """Oddities found while discovering (gaps in the numbering, unreadable members)."""
    source_format: str | None = None
    """Another agent's trace format (``claude-code``…) when the run is imported; None for ours."""

    @property
    def name(self) -> str:
        folder = os.path.basename(os.path.dirname(os.path.abspath(self.base)))
        return f"{folder}/{os.path.basename(self.base)}"

    @property
    def folder(self) -> str:
        return os.path.dirname(os.path.abspath(self.base))

    def resolve_cwd(self, cwd: str | None) -> str:
        """A recorded cwd, with a relative one taken against the run's folder."""
        if not cwd:
            return self.folder
        return cwd if os.path.isabs(cwd) else os.path.normpath(os.path.join(self.folder, cwd))


def split_member_name(name: str) -> tuple[str, int, bool]:
    """``"B.3.gz"`` → ``("B", 3, True)``; ``"B"`` → ``("B", 0, False)``; ``"B.gz"`` → ``("B", 0, True)``.

    A number past :data:`MAX_MEMBER` is part of the name: ``"B.10000000"`` is
    ``("B.10000000", 0, False)``, a base of its own (see :func:`over_max`)."""
    m = _ROTATED.match(name)
    if m and 0 < _number(m) <= MAX_MEMBER:  # "B.0" is no member of B: B is its number 0
        return m.group("base"), int(m.group("n")), bool(m.group("gz"))
    if name.endswith(".gz"):
        return name[:-3], 0, True
    return name, 0, False


def _number(m: re.Match[str]) -> int:
    digits = m.group("n").lstrip("0") or "0"
    return int(digits) if len(digits) <= 6 else _OVER  # never int() of a 200-digit name


def over_max(name: str) -> str | None:
    """The base ``name`` would be a member of, were its number not past MAX_MEMBER; else None."""
    m = _ROTATED.match(name)
    return m.group("base") if m is not None and _number(m) > MAX_MEMBER else None


def regular_kind(path: str) -> str | None:
    """None when ``path`` is a regular file (links followed) or is missing, else what it is."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else file_kind(mode)


_OWN_STARTS = (b'{"schema":"tracetui/', b'{"schema": "tracetui/')
"""How tracetui's recorder (compact) and ``json.dumps`` write a record of ours: at once."""
_HEAD = 64 << 10
"""Bytes read for :func:`surely_ours` (what the importers' sniffers read at most)."""


def surely_ours(path: str) -> bool:
    """Whether ``path`` starts with a whole record of tracetui's own (its first line parses to an
    object whose ``schema`` is ``tracetui/…``), so that no importer claims it and it is no other
    JSON either: the sniffers pass over a head whose first record is ours, and the one-line
    refusal never judges a file holding one. Then the importers need not be imported at all
    (they are a tenth of a short command's start). False when unsure, never raises."""
    if path.endswith(".gz"):
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return False
        head = os.read(fd, _HEAD)
    except OSError:
        return False
    finally:
        os.close(fd)
    end = head.find(b"\n")
    if end < 0 or not head.startswith(_OWN_STARTS):
        return False
    try:
        obj = orjson.loads(head[:end])
    except orjson.JSONDecodeError:
        return False
    schema = obj.get("schema") if isinstance(obj, dict) else None
    return isinstance(schema, str) and schema.startswith("tracetui/")


def _join(folder: str, name: str) -> str:
    # Keep paths in the form the user gave them: `tracetui summary run.jsonl` reports `run.jsonl`.
    return name if folder == os.curdir else os.path.join(folder, name)


def _is_run_base(base_name: str) -> bool:
    return base_name.endswith(RUN_SUFFIXES) and not base_name.endswith(SIDECAR_SUFFIX)


def _members_by_base(names: list[str]) -> dict[str, list[tuple[str, int, bool]]]:
    """Each name parsed once, grouped by the base it belongs to: base → ``(name, number, gz)``.

    A directory of thousands of runs is opened with one parse per name: matching every name
    against every base was quadratic (issue 13: 20 s for 4,000 runs).
    """
    groups: dict[str, list[tuple[str, int, bool]]] = {}
    for name in names:
        base, number, gz = split_member_name(name)
        real = over_max(name) if number == 0 else None
        if real is not None:  # listed with its run, which notes it and does not read it
            base, number = real, _OVER
        groups.setdefault(base, []).append((name, number, gz))
    return groups


def _run_for(
    folder: str, base_name: str, entries: list[tuple[str, int, bool]], has_sidecar: bool
) -> Run:
    """The run of ``base_name`` from its members' parsed names (see :func:`_members_by_base`).

    Only regular files are members: a FIFO would block every reader and a device never end.
    """
    members: list[Member] = []
    odd: list[str] = []
    for name, n, gz in entries:
        kind = regular_kind(_join(folder, name))
        if n > MAX_MEMBER:
            odd.append(f"{name}: rotation number over {MAX_MEMBER:,}: not read as a member")
        elif kind is not None:
            odd.append(f"{name}: not a regular file ({kind}): skipped")
        else:
            members.append(Member(_join(folder, name), n, gz))
    # When both B.2 and B.2.gz exist (a compressor mid-way, the plain file not yet removed), the
    # plain one is complete and the .gz may not be: read the plain one, whatever the listing order.
    # (Two plain names for one number, B.2 and B.02, keep the first in name order.)
    by_number: dict[int, Member] = {}
    notes = odd
    for m in sorted(members, key=lambda m: (m.gz, m.name)):
        kept = by_number.get(m.number)
        if kept is None:
            by_number[m.number] = m
        else:
            notes.append(
                f"both {kept.name} and {m.name} exist; reading {kept.name}, ignoring {m.name}"
            )
    ordered = sorted(by_number.values(), key=lambda m: -m.number)
    gaps = _gaps(sorted(n for n in by_number if n > 0))
    if gaps:
        notes.append("rotation members missing: " + gaps)
    base = _join(folder, base_name)
    sidecar = base + SIDECAR_SUFFIX if has_sidecar else sidecars.found_elsewhere(base)
    return Run(base=base, members=ordered, sidecar=sidecar, notes=notes)


def _gaps(numbers: list[int]) -> str:
    """The numbers missing from 1 to the last of ``numbers`` (sorted): ``.2, .5-.9``; past a
    few runs of them the rest are counted, so the note stays one short line."""
    runs: list[tuple[int, int]] = []
    expected = 1
    for n in numbers:
        if n > expected:
            runs.append((expected, n - 1))
        expected = n + 1
    shown = [
        f".{a}" if a == b else (f".{a}, .{b}" if b == a + 1 else f".{a}-.{b}") for a, b in runs
    ]
    if len(shown) > _GAPS_SHOWN:
        rest = sum(b - a + 1 for a, b in runs[_GAPS_SHOWN:])
        shown = [*shown[:_GAPS_SHOWN], f"and {rest:,} more"]
    return ", ".join(shown)


def sidecar_path(base: str) -> str:
    """Where the re-runs of a run are appended: ``B`` → ``B.reruns.jsonl``, or a file in the
    user's state folder for the bundled sample runs and unwritable folders (store/sidecars.py)."""
    return sidecars.place(base)


def _foreign_runs(folder: str, files: list[str]) -> tuple[list[Run], set[str]]:
    """Other agents' traces in a directory (chosen by content), and the names they claim.

    ``files`` holds no rotation members (the caller parsed the names once): those are never
    foreign traces.
    """
    runs: list[Run] = []
    claimed: set[str] = set()
    for name in files:
        if name.endswith((SIDECAR_SUFFIX, ".lock")):
            continue  # our own side files are never foreign traces
        full = _join(folder, name)
        if surely_ours(full):
            continue
        from tracetui import importers  # only for a file that may be another agent's

        fmt = importers.sniff(full)
        if fmt is not None:
            runs.append(
                Run(base=full, members=[Member(full, 0, name.endswith(".gz"))], source_format=fmt)
            )
            claimed.add(name)
    return runs, claimed


def _whole_folder_run(path: str, files: list[str]) -> tuple[list[Run], set[str]]:
    """The folder as one foreign trace (OpenHands V1's ``events/``, one file per event), and
    the names it claims; nothing when it is no such folder."""
    # Its files are all named ``event-NNNNN-<id>.json``: without one, the importers (~10 ms
    # of imports, a third of a warm summary's start) are not needed to say so.
    if not any(n.startswith("event-") and n.endswith(".json") for n in files):
        return [], set()
    from tracetui import importers

    found = importers.sniff_folder(path, files)
    if found is None:
        return [], set()
    fmt, names = found
    return [Run(base=path, members=[Member(path, 0, False)], source_format=fmt)], set(names)


def _runs_in_folder(path: str, names: list[str]) -> list[Run]:
    """The runs whose files sit directly in the folder ``path`` (``names``: its listing)."""
    # Not only regular files: a FIFO or device named like a member gets a note (_run_for).
    files = [n for n in names if not os.path.isdir(os.path.join(path, n))]
    runs_whole, whole = _whole_folder_run(path, files)
    groups = _members_by_base(files)
    unrotated = [
        name
        for entries in groups.values()
        for name, n, _gz in entries
        if n == 0 and os.path.isfile(os.path.join(path, name))  # sniffing opens the file
    ]
    runs, claimed = _foreign_runs(path, sorted(n for n in unrotated if n not in whole))
    claimed |= whole
    present = set(files) - claimed
    runs.extend(runs_whole)
    for base in sorted(groups):
        entries = [e for e in groups[base] if e[0] not in claimed]
        if entries and _is_run_base(base):
            runs.append(_run_for(path, base, entries, base + SIDECAR_SUFFIX in present))
    return runs


def open_path(path: str) -> list[Run]:
    """The runs at ``path``: one for a file (any member names its run), all bases in a directory."""
    if not os.path.exists(path):
        raise RunSetError(f"{path}: no such file or directory")
    if os.path.isdir(path):
        try:
            names = sorted(os.listdir(path))
        except OSError as exc:
            raise RunSetError(f"{path}: cannot list directory: {exc.strerror}") from None
        runs = _runs_in_folder(path, names)
        if not runs:
            runs = _runs_in_subfolders(path, names)
        if not runs:
            raise RunSetError(
                f"{path}: no run files (*.jsonl, or another agent's trace) in this directory"
                " or its sub-folders"
            )
        return sorted(runs, key=lambda r: r.base)
    folder, name = os.path.split(path)
    folder = folder or os.curdir
    kind = regular_kind(path)
    if kind is not None:  # checked before anything opens it: opening a FIFO blocks
        raise RunSetError(f"{path}: not a regular file ({kind}); only regular files are read")
    if not os.access(path, os.R_OK):
        raise RunSetError(f"{path}: permission denied")
    if not surely_ours(path):
        from tracetui import importers

        fmt = importers.sniff(path)
        if fmt is not None:
            member = Member(path, 0, path.endswith(".gz"))
            return [Run(base=path, members=[member], source_format=fmt)]
        what = importers.not_a_trace(path)  # JSON, but no trace: one line, not bad lines
        if what is not None:
            raise RunSetError(f"{path}: {what}")
    if over_max(name) is not None:  # named on purpose, yet no member: read it alone
        note = f"{name}: rotation number over {MAX_MEMBER:,}: read as a run of its own"
        return [Run(base=path, members=[Member(path, 0, name.endswith(".gz"))], notes=[note])]
    base_name = split_member_name(name)[0]
    if name.endswith(SIDECAR_SUFFIX):
        base_name = name  # opened on purpose: read the sidecar as a run of its own
    try:
        names = sorted(n for n in os.listdir(folder) if not os.path.isdir(os.path.join(folder, n)))
    except OSError as exc:
        raise RunSetError(f"{folder}: cannot list directory: {exc.strerror}") from None
    entries = _members_by_base(names).get(base_name, [])
    return [_run_for(folder, base_name, entries, base_name + SIDECAR_SUFFIX in set(names))]


def _runs_in_subfolders(path: str, names: list[str]) -> list[Run]:
    """The runs one level down, for a folder of run folders (``sample_runs/``); a sub-folder
    that holds no run, or cannot be listed, is passed over. Only one level: never a crawl."""
    runs: list[Run] = []
    for name in names:
        sub = os.path.join(path, name)
        if not os.path.isdir(sub) or os.path.islink(sub):
            continue
        try:
            runs.extend(_runs_in_folder(sub, sorted(os.listdir(sub))))
        except OSError:
            continue
    return runs


def open_paths(paths: list[str]) -> list[Run]:
    """All runs named by several paths, each run once, in the order given."""
    runs: list[Run] = []
    seen: set[str] = set()
    for p in paths:
        for run in open_path(p):
            key = os.path.abspath(run.base)
            if key not in seen:
                seen.add(key)
                runs.append(run)
    return runs
