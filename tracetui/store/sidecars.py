"""Where a run's re-runs file lives: beside the run, or in the user's state folder.

A re-run appends its record to ``B.reruns.jsonl`` next to the run ``B``. Two kinds of folder
should not grow one: the sample runs shipped with tracetui (re-running them would change the
bundled samples for good, and every later look at them) and a folder this user cannot write.
Their re-runs go to ``$XDG_STATE_HOME/tracetui/reruns/`` (``~/.local/state/…`` by default) instead,
under a name made from the run's own path: a hash of its real path and its file name reduced to
plain characters. Nothing read from a trace takes part in choosing it. A re-runs file that already
exists beside a run stays the one used.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import stat

from tracetui.crash import state_dir

SUFFIX = ".reruns.jsonl"
"""A re-runs file's name is its run's base name with this appended (runset.SIDECAR_SUFFIX)."""
SAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "sample_runs")
"""The sample runs that come with tracetui (the source tree's ``sample_runs/``)."""
_PLAIN = re.compile(r"[^A-Za-z0-9._-]+")
_STEM = 48
"""Characters of the run's file name kept in the state folder's file name."""


def folder() -> str:
    """The state folder's re-runs folder (it may not exist yet)."""
    return os.path.join(state_dir(), "reruns")


def kept_elsewhere(base: str) -> bool:
    """Whether the re-runs of the run ``base`` go to the state folder (see the module doc)."""
    where = os.path.realpath(os.path.dirname(os.path.abspath(base)))
    samples = os.path.realpath(SAMPLES)
    if where == samples or where.startswith(samples + os.sep):
        return True
    return not os.access(where, os.W_OK)


def in_state_folder(base: str) -> str:
    """The state folder's re-runs file for ``base``: ``<hash>-<name>.reruns.jsonl``."""
    real = os.path.realpath(os.path.abspath(base))
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:20]
    stem = _PLAIN.sub("_", os.path.basename(real))[:_STEM].strip("._") or "run"
    return os.path.join(folder(), f"{digest}-{stem}{SUFFIX}")


def place(base: str) -> str:
    """Where the re-runs of ``base`` are appended (and read from)."""
    beside = base + SUFFIX
    if os.path.lexists(beside) or not kept_elsewhere(base):
        return beside
    return in_state_folder(base)


def found_elsewhere(base: str) -> str | None:
    """The state folder's re-runs file of ``base`` when it exists and is the one in use."""
    if os.path.lexists(base + SUFFIX) or not kept_elsewhere(base):
        return None
    path = in_state_folder(base)
    return path if os.path.isfile(path) else None


def make_folder(path: str) -> None:
    """Create the folder of a re-runs file in the state folder, private to this user; refuse
    (PermissionError) one that exists but is someone else's or writable by others."""
    if os.path.dirname(path) != folder():
        return  # beside its run: the run's folder is there already
    parent = state_dir()
    os.makedirs(parent, mode=0o700, exist_ok=True)
    for step in (parent, folder()):
        with contextlib.suppress(FileExistsError):
            os.mkdir(step, 0o700)
        _refuse_unsafe(step, os.lstat(step))


def check_folder(path: str) -> None:
    """Refuse (PermissionError), without creating anything, a state folder that
    :func:`make_folder` would refuse: checked before a re-run runs, so that its record is not
    lost after the command has run. Steps not made yet are fine (they will be made private)."""
    if os.path.dirname(path) != folder():
        return
    for step in (state_dir(), folder()):
        try:
            st = os.lstat(step)
        except FileNotFoundError:
            return
        _refuse_unsafe(step, st)


def _refuse_unsafe(step: str, st: os.stat_result) -> None:
    if not stat.S_ISDIR(st.st_mode):
        raise PermissionError(errno.EPERM, "not a folder", step)
    if st.st_uid != os.geteuid() or st.st_mode & 0o022:
        raise PermissionError(errno.EPERM, "not a private folder of this user", step)
