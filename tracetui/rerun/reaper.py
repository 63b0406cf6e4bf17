"""Finding and killing what a re-run left running, including processes that left its session.

The re-run's child runs in its own session, and a timeout or cancel kills that process group.
A grandchild that calls ``setsid`` (a daemon, ``setsid cmd &``, a double fork) leaves the group,
so the group kill misses it and it would outlive the re-run, holding its pipes open.

The choice here, on Linux, with no cgroups: while a re-run runs, tracetui is a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``). Any process below the child whose parent dies is then
re-parented to tracetui instead of to init, so nothing the re-run started can get out of
tracetui's process tree, whatever sessions or groups it makes. When the re-run ends (exit,
timeout, cancel, output limit, a signal to tracetui), :meth:`Leftovers.kill` reads ``/proc``,
takes every child of tracetui that it did not have before the re-run and that is not in
tracetui's own session (tracetui starts nothing else in another session), adds all their
descendants, sends them TERM, then KILL after the grace period, and reaps the ones that became
tracetui's children. A process tree scan alone (without the subreaper) would lose a grandchild
whose parent already exited: it belongs to init then and nothing ties it to the re-run.

Elsewhere (no ``prctl``, no ``/proc``) this does nothing and only the process group is killed.

All of that needs tracetui alive. A ``kill -9`` of tracetui runs none of it, so the re-run's child
is also given a parent-death signal (:func:`die_with_parent`, ``prctl(PR_SET_PDEATHSIG)`` set
between fork and exec): the kernel sends it SIGKILL when tracetui dies, however it dies. The
signal reaches the child only, not what it started in turn; those lose the pipes' reader with
tracetui (their next write fails).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
# prctl's unused arguments are unsigned longs: passed as such, not as C ints of unknown high bits.
_ZEROS = (ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))


@dataclass(frozen=True, slots=True)
class ProcInfo:
    """The fields of ``/proc/PID/stat`` this module needs."""

    pid: int
    ppid: int
    session: int


def _prctl() -> ctypes._FuncPointer | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        func: ctypes._FuncPointer = libc.prctl
    except (OSError, AttributeError):
        return None
    func.restype = ctypes.c_int
    return func


def get_subreaper() -> bool | None:
    """Whether this process is a child subreaper; None when that cannot be asked."""
    prctl = _prctl()
    if prctl is None:
        return None
    value = ctypes.c_int(0)
    if prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(value), *_ZEROS) != 0:
        return None
    return bool(value.value)


def set_subreaper(on: bool) -> bool:
    """Make this process a child subreaper (or stop being one); False when not possible."""
    prctl = _prctl()
    if prctl is None:
        return False
    return bool(prctl(_PR_SET_CHILD_SUBREAPER, ctypes.c_ulong(int(on)), *_ZEROS) == 0)


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child get SIGKILL when this process dies; None off Linux.

    Made before the fork (the libc function and its arguments), so the child, between fork and
    exec, only makes one call and one check. The signal follows the thread that forked: the
    caller's thread waits for the child, so it outlives it. If this process died before the
    ``prctl`` took effect the child has a new parent already and exits at once.
    """
    prctl = _prctl()
    if prctl is None:
        return None
    parent = os.getpid()
    kill = ctypes.c_ulong(signal.SIGKILL)

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, kill, *_ZEROS)  # refused (a sandbox): runs as it did before
        if os.getppid() != parent:
            os._exit(127)

    return preexec


def processes() -> dict[int, ProcInfo]:
    """Every process ``/proc`` shows, by pid (empty without ``/proc``)."""
    out: dict[int, ProcInfo] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue  # gone meanwhile
        # The command name is in parentheses and may hold anything: split after the last one.
        fields = stat[stat.rfind(b")") + 2 :].split()
        try:
            out[int(name)] = ProcInfo(int(name), int(fields[1]), int(fields[3]))
        except (IndexError, ValueError):
            continue
    return out


def children_of(pid: int, table: dict[int, ProcInfo]) -> set[int]:
    return {p.pid for p in table.values() if p.ppid == pid}


def descendants(roots: set[int], table: dict[int, ProcInfo]) -> set[int]:
    """``roots`` and every process below them."""
    kids: dict[int, list[int]] = {}
    for p in table.values():
        kids.setdefault(p.ppid, []).append(p.pid)
    found, todo = set(roots), list(roots)
    while todo:
        for child in kids.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


class Leftovers:
    """Around one re-run: adopt what it leaves behind, and kill it all at the end.

    ``with Leftovers() as left: run…; left.kill(grace)``; leaving the block kills what is left
    and restores the subreaper setting this process had.
    """

    def __init__(self) -> None:
        self._me = os.getpid()
        self._session = os.getsid(0)
        self._before: set[int] = set()
        self._was: bool | None = None
        self.active = False
        """True when this process is a subreaper for the re-run (Linux)."""
        self.killed: set[int] = set()
        """Pids this object killed (for the caller's report and for tests)."""

    def __enter__(self) -> Leftovers:
        self._was = get_subreaper()
        self.active = self._was is not None and set_subreaper(True)
        self._before = children_of(self._me, processes()) if self.active else set()
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.kill(0.5)
        finally:
            if self.active and not self._was:
                set_subreaper(False)
            self.active = False

    def find(self) -> set[int]:
        """Pids of what the re-run left running (adopted children of ours and all below them)."""
        if not self.active:
            return set()
        table = processes()
        roots = {
            pid
            for pid in children_of(self._me, table)
            if pid not in self._before and table[pid].session != self._session
        }
        return descendants(roots, table)

    def kill(self, grace: float) -> set[int]:
        """TERM what the re-run left, KILL it after ``grace`` s, reap it; the pids found."""
        found = self.find()
        if not found:
            return found
        self._signal(found, signal.SIGTERM)
        deadline = time.monotonic() + max(0.0, grace)
        while True:
            self._reap(found)
            alive = self.find()
            if not alive or time.monotonic() >= deadline:
                break
            time.sleep(0.02)
        # KILL until nothing is left: a killed parent hands its children to us, found next pass.
        for _ in range(100):
            alive = self.find()
            if not alive:
                break
            found |= alive
            self._signal(alive, signal.SIGKILL)
            time.sleep(0.01)
            self._reap(alive)
        self.killed |= found
        return found

    def _signal(self, pids: set[int], signo: int) -> None:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signo)

    def _reap(self, pids: set[int]) -> None:
        # Only our adopted children can be waited for; the rest are reaped by their parents.
        for pid in pids:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
