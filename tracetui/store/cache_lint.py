"""``lint``'s findings kept with a run's files: ``<run key>.lint`` beside its index
(:mod:`tracetui.store.cache`).

The findings of a run depend only on its files and the code (lint uses the default redaction
rules, and the code's fingerprint is part of the state), so a lint of an unchanged run can
give back what an earlier one found without indexing the run, and print it in whichever format
is asked. The file is a JSON line naming the version, the exact files, the notes and what else
the findings were made under (:func:`~tracetui.store.cache_results.keep_blob`: the re-runs
sidecar's digest, a ``.gz`` member's decompression cap, :func:`code_mark`), then the findings as
a JSON list of the objects ``lint --format json`` prints (``Issue.as_dict``: file, line, code,
severity, message, in that order), so the JSON output is those objects as they were.

A kept file is hostile input: read bounded (:data:`MAX_BYTES`, through
:func:`~tracetui.store.cache_results.read_kept`, which never follows a link), parsed as JSON
only, and every finding checked — exactly those fields in that order, the file one of the
run's members (or its re-runs sidecar), the line an int the index can hold, the code a rule
code's shape, the severity one of the two, the message plain one-line text (nothing
``neutralize_line`` would change: :func:`~tracetui.model.text.is_plain_line`). Anything else
and nothing is used: the run is linted afresh. The text form still neutralises every line as a
fresh lint does. Findings that would not pass that check are not kept (a message quoting a
control character: such a run is always linted afresh). What the check cannot tell is a file
edited to hold other findings of the right shape (none, fewer, reordered, another severity):
the cache folder is this user's own (:mod:`tracetui.store.cache_files`), trusted as far as
that goes, like the index's rows.

The findings also depend on code the index's fingerprint does not cover: the redaction rules of
:mod:`tracetui.record` (lint's secret checks). The head names that package's own fingerprint
(:func:`code_mark`), and a kept file of other code is not used.

The check is of shape, not of the rule registry: importing the rules costs a warm lint ~40 ms,
more than all the rest of it. The state ties a kept file to the code that wrote it; SARIF,
which needs the registry anyway, also checks every code and severity against it
(``severities``).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import orjson

from tracetui.model.text import is_plain_line
from tracetui.store import cache_results
from tracetui.store.runset import Run

if TYPE_CHECKING:
    from tracetui.store.index import RunIndex

SUFFIX = "lint"
FIELDS = ("file", "line", "code", "severity", "message")
"""The keys of one finding, in ``Issue.as_dict``'s order (a test holds the two together)."""
ERROR, WARNING = "error", "warning"
"""The severities (those of :mod:`tracetui.analysis.lint_registry`; a test holds them equal):
spelt here so that a warm lint does not import the rules."""
MAX_LINE = 2**31 - 1
"""The largest line number the index's line column holds."""
MAX_BYTES = 64 << 20
"""A bigger findings file is neither written nor read (~300,000 findings)."""
_CODE = re.compile(r"TT[0-9]{3}")
_RECORD = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "record")
_code_mark: str | None = None

Finding = dict[str, Any]


def keep(index: RunIndex, findings: list[Finding]) -> bool:
    """Keep ``findings`` (``Issue.as_dict`` objects, in order) for the files ``index`` was
    built from; False when not kept (no state, cache off, findings that would not be used)."""
    if not usable(findings, index.run):
        return False
    try:
        payload = orjson.dumps(findings)
        if len(payload) > MAX_BYTES:
            return False
        return cache_results.keep_blob(index, SUFFIX, payload, extra=_extra())
    except TypeError:  # a lone surrogate (a file name, a note) JSON cannot hold: not kept
        return False


def recall_run(run: Run, severities: Mapping[str, str] | None = None) -> list[Finding] | None:
    """The findings kept for ``run`` as its files are now, without indexing it; None when none
    (or the build that kept them added a note ``run`` does not have yet) or when the kept file
    does not hold findings a lint could have made. ``severities``: the rule registry's code →
    severity, which every finding must then agree with."""
    body = cache_results.recall_blob_of_files(run, SUFFIX, cap=MAX_BYTES, extra=_extra())
    if body is None:
        return None
    try:
        findings = orjson.loads(body)
    except ValueError:
        return None
    if not isinstance(findings, list) or not usable(findings, run, severities):
        return None
    return findings


def usable(findings: list[Any], run: Run, severities: Mapping[str, str] | None = None) -> bool:
    """Whether every item of ``findings`` is a finding a lint of ``run`` could print as it is
    (see the module's docstring). Checked field by field over all findings at once (C loops:
    at 35,000 findings a Python loop over each one's fields cost 60 ms)."""
    if not findings:
        return True
    if set(map(type, findings)) != {dict} or set(map(tuple, findings)) != {FIELDS}:
        return False
    files, lines, codes, kinds, messages = (list(map(itemgetter(k), findings)) for k in FIELDS)
    if any(set(map(type, column)) != {str} for column in (files, codes, kinds, messages)):
        return False
    if set(map(type, lines)) != {int} or min(lines) < 0 or max(lines) > MAX_LINE:
        return False
    # The re-runs sidecar is linted with its run (its bad lines are findings); the kept file's
    # head names a digest of its bytes (cache_results.marks_of).
    if not set(files) <= {m.path for m in run.members} | {run.sidecar}:
        return False
    for code, kind in set(zip(codes, kinds, strict=True)):  # a few distinct pairs
        if _CODE.fullmatch(code) is None or kind not in (ERROR, WARNING):
            return False
        if severities is not None and severities.get(code) != kind:
            return False
    return is_plain_line(" ".join(messages))  # one pass over all of them: a space is plain


def code_mark() -> str:
    """The size and mtime of every module of :mod:`tracetui.record` (the redaction rules lint's
    secret checks use), as the index's fingerprint covers store, model and analysis."""
    global _code_mark
    if _code_mark is None:
        digest = hashlib.blake2b(digest_size=16)
        try:
            with os.scandir(_RECORD) as it:
                for e in sorted(it, key=lambda e: e.name):
                    if e.name.endswith((".py", ".so", ".pyd")):
                        st = e.stat()
                        digest.update(f"{e.name}:{st.st_size}:{st.st_mtime_ns};".encode())
        except OSError:
            digest.update(b"unreadable")
        _code_mark = digest.hexdigest()
    return _code_mark


def _extra() -> dict[str, str]:
    return {"record_code": code_mark()}
