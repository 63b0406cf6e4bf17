"""``summary --json``'s exact output kept with a run's files: ``<run key>.out`` beside its index
(:mod:`tracetui.store.cache`).

It used to be a value of the results file (:mod:`tracetui.store.cache_results`), a JSON string
of 2 MB at 200,000 spans: a cold summary made the output's UTF-8 again and escaped every quote
of it into that string (15–30 ms), and every warm one parsed all of it back out (~20 ms). Kept
as a file of its own — a JSON line naming the version, the exact files and the notes
(:func:`~tracetui.store.cache_results.keep_blob`), then the bytes as printed — it is written
and read as it is. Given back only for the same files and notes, like any kept result; a file
that is absent, of another version or state, or spoilt in its first line is not used, nor one
whose bytes hold anything a cold summary never prints raw (a control character, bytes that are
not UTF-8): they go to the terminal as they are, and a cache file is hostile input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tracetui.model.text import neutralize
from tracetui.store import cache_results
from tracetui.store.runset import Run

if TYPE_CHECKING:
    from tracetui.store.index import RunIndex

SUFFIX = "out"


def keep(index: RunIndex, output: bytes) -> bool:
    """Keep ``output`` for the files ``index`` was built from; False when not kept."""
    try:
        return cache_results.keep_blob(index, SUFFIX, output)
    except TypeError:  # a note JSON cannot hold (a lone surrogate in a file name): not kept
        return False


def recall(index: RunIndex) -> bytes | None:
    """The output kept for exactly the files ``index`` was built from, or None."""
    return cache_results.recall_blob(index, SUFFIX)


def recall_run(run: Run) -> bytes | None:
    """The output kept for ``run`` as its files are now, without indexing it; None when none,
    or when the build that kept it added a note ``run`` does not have yet."""
    body = cache_results.recall_blob_of_files(run, SUFFIX)
    return body if body is not None and _inert(body) else None


_PLAIN = bytes(range(0x20, 0x7F)) + b"\n"
"""The bytes of printable ASCII (and the newlines of the indented output)."""
_HIGH = bytes(range(0x80, 0x100))


def _inert(body: bytes) -> bool:
    """Whether ``body`` is text :func:`~tracetui.model.text.dump_json` could have written: no
    control character raw (C0 but the newline, DEL, C1, the rest of ``UNSAFE``), UTF-8. The
    usual all-ASCII body is checked at memory speed."""
    rest = body.translate(None, _PLAIN)
    if not rest:
        return True
    if rest.translate(None, _HIGH):  # a C0 control or DEL
        return False
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    # Deleting ASCII leaves whole characters (their bytes are all 0x80 and up).
    text = rest.decode("utf-8")
    return neutralize(text) == text
