"""Results a command keeps with a run's exact files, beside its persistent index
(:mod:`tracetui.store.cache`): ``<run key>.json`` in the same folder.

A value is kept under the *state* of the files an index was built from (member paths as named,
their identities, the re-run sidecar's stat, the code's fingerprint) and with the notes that
build added; it is given back only for that same state and those same notes. The state holds
the re-runs sidecar's stat only (an index reads the sidecar afresh each time), so a kept value
also names a digest of the sidecar's bytes (:func:`marks_of`): a re-run record rewritten at
the same size with its mtime put back is then seen, as an index would see it; and for a run with a
``.gz`` member, the cap on what one member decompresses to (``TRACETUI_GUNZIP_MAX_MIB``: a build
under another cap reads other lines, and notes it). ``summary`` keeps
its per-run object, its trend and its exact ``--json`` output there, so a warm summary of one
unchanged run file indexes nothing (:func:`recall_run`). A results file is hostile input too:
read bounded, parsed as JSON only, every field checked before use.
"""

from __future__ import annotations

import hashlib
import os
import time
from typing import TYPE_CHECKING, Any

import orjson

from tracetui.store.cache import (
    VERSION,
    enabled,
    log,
    run_key,
    state_key,
    state_of,
    worth_caching,
)
from tracetui.store.cache_files import atomic_write, cache_folder, read_bounded, size_cap, touch
from tracetui.store.identity import identify, open_member
from tracetui.store.runset import Run

if TYPE_CHECKING:
    from tracetui.store.index import RunIndex


SIDECAR_CAP = 64 << 20
"""A bigger re-runs sidecar is not hashed: nothing is kept or recalled for its run."""
MARKS = ("sidecar", "gunzip_cap")
"""What :func:`marks_of` may name beside the state."""


def recall(index: RunIndex, name: str, *, wait: bool = True) -> Any:
    """The value kept under ``name`` for exactly the files ``index`` was built from, or None.
    ``wait``: False finds nothing while the index's cache entry is still being written
    (:func:`~tracetui.store.cache_state.state_of`) instead of waiting for it."""
    return recall_all(index, wait=wait).get(name)


def recall_all(index: RunIndex, *, wait: bool = True) -> dict[str, Any]:
    """Every value kept for exactly the files ``index`` was built from (empty when none)."""
    state = state_of(index, wait=wait)
    return {} if state is None else _recall(index.run, state)


def recall_run(run: Run) -> dict[str, Any]:
    """Every value kept for ``run`` as its files are now, without indexing it (empty when
    none); only when the build that kept them added no note to the ones ``run`` already has."""
    state = state_now(run)
    return {} if state is None else _recall(run, state)


def state_now(run: Run) -> str | None:
    """The state of ``run``'s files as they are now, read without indexing it; None when the
    cache would keep nothing for it (off, an imported trace, too small) or a file is racy."""
    if not enabled() or run.source_format is not None or not worth_caching(run):
        return None
    try:
        return state_key(run, [identify(m.path) for m in run.members], time.time_ns())
    except TypeError:  # a file name JSON cannot hold (not UTF-8): nothing is kept for it
        return None


def marks_of(run: Run) -> dict[str, Any] | None:
    """What a kept value names of ``run`` beside the state (see the module's docstring):
    ``sidecar``, a digest of the re-runs sidecar's bytes when it has one; ``gunzip_cap`` when a
    member is gzipped. None when the sidecar cannot be read whole (gone, not a regular file,
    over :data:`SIDECAR_CAP`): nothing is kept or recalled then. Taken when a value is kept,
    just after the build read the files: a sidecar rewritten in between with its stat put back
    would go unseen (a race of one command's length)."""
    marks: dict[str, Any] = {}
    if any(m.gz for m in run.members):
        from tracetui.store.gz import max_output  # only then: a warm lint does not import it

        marks["gunzip_cap"] = max_output()
    if not run.sidecar:
        return marks
    side = _digest(run.sidecar)
    if side is None:
        return None
    marks["sidecar"] = side
    return marks


def _digest(path: str) -> str | None:
    fd = open_member(path)  # links followed, as the build reads it
    if fd is None:
        return None
    try:
        if os.fstat(fd).st_size > SIDECAR_CAP:
            return None
        digest = hashlib.blake2b(digest_size=16)
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)


def _same_marks(got: dict[str, Any], run: Run, extra: dict[str, Any] | None = None) -> bool:
    """Whether ``got`` (a results file or a kept file's head) was kept for the marks ``run`` has
    now (:func:`marks_of`), and holds ``extra`` (the caller's own)."""
    marks = marks_of(run)
    if marks is None or any(got.get(k) != marks.get(k) for k in MARKS):
        return False
    return extra is None or all(got.get(k) == v for k, v in extra.items())


def _recall(run: Run, state: str) -> dict[str, Any]:
    folder = cache_folder() if enabled() else None
    if folder is None:
        return {}
    got = _read_results(os.path.join(folder, run_key(run) + ".json"), state)
    if got.get("notes") != run.notes or not _same_marks(got, run):
        return {}
    values: dict[str, Any] = got["values"]
    return values


def keep(index: RunIndex, values: dict[str, Any]) -> None:
    """Keep ``values`` (JSON, by name) for the files ``index`` was built from, beside the
    values already kept for them."""
    state = state_of(index)
    folder = cache_folder() if state is not None and enabled() else None
    marks = marks_of(index.run) if folder is not None else None
    if folder is None or state is None or marks is None:
        return
    path = os.path.join(folder, run_key(index.run) + ".json")
    got = _read_results(path, state)
    same = got.get("notes") == index.run.notes and all(got.get(k) == marks.get(k) for k in MARKS)
    kept = got.get("values", {}) if same else {}
    kept.update(values)
    record = {"version": VERSION, "state": state, "notes": index.run.notes, "values": kept}
    record.update(marks)
    try:
        blob = orjson.dumps(record)
    except TypeError as exc:  # a lone surrogate in trace text: not kept
        log.debug("results not kept: %s", exc)
        return
    atomic_write(path, [blob])


def _read_results(path: str, state: str) -> dict[str, Any]:
    """The results file at ``path`` when it was written for ``state``; else empty."""
    data = read_bounded(path, size_cap())
    if data is None:
        return {}
    try:
        got = orjson.loads(data)
    except ValueError:
        log.debug("results file %s ignored: not JSON", path)
        return {}
    if not isinstance(got, dict) or got.get("version") != VERSION or got.get("state") != state:
        return {}
    if not isinstance(got.get("values"), dict) or not isinstance(got.get("notes"), list):
        return {}
    return got


# ------------------------------------------------------------------ bulky values, own file
def keep_blob(
    index: RunIndex,
    suffix: str,
    payload: bytes,
    *,
    any_state: bool = False,
    extra: dict[str, Any] | None = None,
) -> bool:
    """Keep ``payload`` as ``<run key>.<suffix>`` for the files ``index`` was built from: for a
    value too big for the results file every warm ``summary`` reads (the viewer's id table).
    False when not kept (no state, cache off, over the cap, not writable). ``any_state``: kept
    even when ``index`` has no state (a payload that says itself what it holds: read back with
    :func:`recall_blob_of_run`). ``extra``: more of the head, which a recall must be given the
    same (what else the payload depends on: the caller's own)."""
    state = state_of(index)
    folder = cache_folder() if (state is not None or any_state) and enabled() else None
    marks = marks_of(index.run) if folder is not None else None
    if folder is None or marks is None:
        return False
    fields = {"version": VERSION, "state": state, "notes": index.run.notes, **marks}
    head = orjson.dumps({**(extra or {}), **fields})
    return atomic_write(
        os.path.join(folder, f"{run_key(index.run)}.{suffix}"), [head, b"\n", payload]
    )


def recall_blob(index: RunIndex, suffix: str) -> bytes | None:
    """What :func:`keep_blob` kept under ``suffix`` for exactly the files ``index`` was built
    from (and the same notes), or None; its first line is checked, the rest is the caller's."""
    got = recall_blob_of_run(index, suffix) if state_of(index) is not None else None
    return got[1] if got is not None and got[0] else None


def recall_blob_of_run(index: RunIndex, suffix: str) -> tuple[bool, bytes] | None:
    """What :func:`keep_blob` kept under ``suffix`` for the run of ``index``, whatever files it
    was kept for: ``(kept for exactly those of index and the same notes, the payload)``, or
    None (none, or of another version); the caller checks what the payload holds."""
    state = state_of(index)
    folder = cache_folder() if enabled() else None
    if folder is None:
        return None
    path = os.path.join(folder, f"{run_key(index.run)}.{suffix}")
    got = read_kept(path)
    if got is None:
        return None
    head, payload = got
    exact = state is not None and head.get("state") == state and _same_marks(head, index.run)
    touch(path)  # used: the sweep removes the least recently used first
    return exact and head.get("notes") == index.run.notes, payload


def recall_blob_of_files(
    run: Run, suffix: str, *, cap: int | None = None, extra: dict[str, Any] | None = None
) -> bytes | None:
    """What :func:`keep_blob` kept under ``suffix`` for ``run`` as its files are now, without
    indexing it; None when none, or when the build that kept it added a note ``run`` does not
    have yet. ``cap``: as :func:`read_kept`'s; ``extra``: as :func:`keep_blob`'s. The caller
    checks what the payload holds."""
    state = state_now(run)
    folder = cache_folder() if state is not None else None
    if folder is None:
        return None
    path = os.path.join(folder, f"{run_key(run)}.{suffix}")
    got = read_kept(path, cap)
    if got is None:
        return None
    head, payload = got
    if head.get("state") != state or head.get("notes") != run.notes:
        return None
    if not _same_marks(head, run, extra):
        return None
    touch(path)  # used: the sweep removes the least recently used first
    return payload


def read_kept(path: str, cap: int | None = None) -> tuple[dict[str, Any], bytes] | None:
    """A kept file's head (its first line, a JSON object of this version) and the bytes after
    it; None when absent, too big (past ``cap`` if given, which the cache's own size cap
    bounds), of another version or spoilt in its first line."""
    data = read_bounded(path, size_cap() if cap is None else min(cap, size_cap()))
    if data is None:
        return None
    cut = data.find(b"\n")
    try:
        head = orjson.loads(data[:cut]) if cut > 0 else None
    except ValueError:
        return None
    if not isinstance(head, dict) or head.get("version") != VERSION:
        return None
    return head, data[cut + 1 :]
