"""Lint findings as a SARIF 2.1.0 log (``tracetui lint --format sarif``), for CI systems that
show static-analysis results inline (code scanning, merge-request widgets).

One run; the tool's driver lists every registered rule (id, a name, its one-line description,
its severity as the default level); each finding is a result pointing at its file and line. A
file under the working directory is named relative to it (``uriBaseId: "%SRCROOT%"``, which
``originalUriBaseIds`` resolves); any other as an absolute ``file://`` URI. Line 0 (a finding
about the whole run) has no region. The document is plain data: the command writes it with
``dump_json``, so no control or bidi character from a trace or a file name goes out raw.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tracetui.analysis.lint import ERROR, Issue, Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"
SRCROOT = "%SRCROOT%"
LEVELS = {ERROR: "error"}
"""Severity → SARIF level (a warning is ``warning``)."""


def sarif_log(
    issues: Iterable[Issue], rules: Iterable[Rule], *, version: str, cwd: str | None = None
) -> dict[str, Any]:
    """The SARIF log of ``issues``; ``rules`` become the driver's rule list, in code order."""
    base = Path(os.path.abspath(cwd or os.getcwd()))
    listed = sorted(rules, key=lambda r: r.code)
    index = {r.code: i for i, r in enumerate(listed)}
    # One artifact location a file, shared by its findings: made per finding, the paths were
    # most of a 35,000-finding log's time.
    places: dict[str, dict[str, str]] = {}
    results = [_result(i, index, base, places) for i in issues]
    return {
        "$schema": SCHEMA_URI,
        "version": VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "tracetui",
                        "version": version,
                        "rules": [_descriptor(r) for r in listed],
                    }
                },
                "originalUriBaseIds": {SRCROOT: {"uri": base.as_uri().rstrip("/") + "/"}},
                "results": results,
            }
        ],
    }


def _level(severity: str) -> str:
    return LEVELS.get(severity, "warning")


def _descriptor(r: Rule) -> dict[str, Any]:
    return {
        "id": r.code,
        "name": "".join(part.title() for part in r.check.__name__.split("_")),
        "shortDescription": {"text": r.description},
        "defaultConfiguration": {"level": _level(r.severity)},
    }


def _result(
    issue: Issue, index: dict[str, int], base: Path, places: dict[str, dict[str, str]]
) -> dict[str, Any]:
    place = places.get(issue.file)
    if place is None:
        place = places[issue.file] = artifact(issue.file, base)
    location: dict[str, Any] = {"artifactLocation": place}
    if issue.line > 0:
        location["region"] = {"startLine": issue.line}
    return {
        "ruleId": issue.code,
        "ruleIndex": index[issue.code],
        "level": _level(issue.severity),
        "message": {"text": issue.message},
        "locations": [{"physicalLocation": location}],
    }


def artifact(path: str, base: Path) -> dict[str, str]:
    """A file as a SARIF artifact location: relative to ``base`` when under it, else absolute.

    Each path segment is percent-encoded from its bytes (a name that is no valid UTF-8, spaces,
    ``#`` and ``%`` included), so the URI is plain ASCII.
    """
    full = Path(os.path.abspath(path))
    try:
        rel = full.relative_to(base)
    except ValueError:
        return {"uri": "file://" + _encode(full.as_posix())}
    return {"uri": _encode(rel.as_posix()), "uriBaseId": SRCROOT}


def _encode(path: str) -> str:
    return quote(os.fsencode(path), safe="/")
