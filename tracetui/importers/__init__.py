"""Importers for other agents' traces (Claude Code, SWE-agent, mini-swe-agent, OpenHands, Codex,
Inspect AI). Each is chosen by content, never by file name alone.

The contract with the rest of the core: :func:`sniff` names the format of a file (or None for
tracetui's own JSONL dialects), and :func:`convert` yields one record dict per tool call in the
``import/<format>`` dialect, which :func:`tracetui.model.spans.normalize` reads like tracetui/1.
Both go through the importers listed in :data:`~tracetui.importers.registry.IMPORTERS` (each an
:class:`~tracetui.importers.protocol.Importer`, one per format module).
The index writes those records to a temporary JSONL file and indexes it like any run, so view,
summary, lint, report, export and rerun all work on imported traces.

A file that sniffs as a format but is broken inside still yields what could be read; the
conversion then ends by raising :class:`ImportProblem` (a ValueError) whose message lists what
was skipped, which the index turns into a note on the run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tracetui.importers._common import ImportProblem, Problems, record_line
from tracetui.importers.registry import IMPORTERS, by_name
from tracetui.importers.sniffing import sniff, sniff_folder
from tracetui.importers.unknown import not_a_trace

__all__ = [
    "IMPORTERS",
    "ImportProblem",
    "convert",
    "convert_lines",
    "not_a_trace",
    "sniff",
    "sniff_folder",
]


def convert(path: str, fmt: str) -> Iterator[dict[str, Any]]:
    """Yield one record per tool call found in ``path`` (format ``fmt``).

    Raises ValueError for an unknown format, OSError when the file cannot be read, and
    :class:`ImportProblem` (after yielding all it could) when parts of the file were skipped.
    """
    for record, _line in convert_lines(path, fmt):
        yield record


def convert_lines(path: str, fmt: str) -> Iterator[tuple[dict[str, Any], bytes]]:
    """:func:`convert`, each record with its JSON line (``record_line``): for the index, which
    writes the lines, so a record is serialised once."""
    importer = by_name(fmt)
    if importer is None:
        raise ValueError(f"no importer for {fmt!r}")
    problems = Problems()
    count = 0
    try:
        for record in importer.convert(path, problems):
            count += 1
            yield record_line(record)
    except (OSError, ImportProblem):
        raise
    except Exception as exc:
        problems.add(f"stopped reading: {type(exc).__name__}: {exc}")
    if count == 0 and not problems.count:
        raise ImportProblem(f"no tool calls found in this {fmt} trace")
    problems.raise_if_any(count)
