"""Naming a trace's format from its content: cheap, bounded, and never raising.

Only the first :data:`~tracetui.importers._common.SNIFF_BYTES` of a file are read (for an
``.eval`` zip, its directory of entry names), once, into a :class:`~tracetui.importers.protocol.Head`
that every importer of the registry judges; the surest names the format. A JSONL file whose first
record is one of tracetui's own dialects is ours (None), whatever its name; so is anything not
recognised, which is then read as JSONL and its odd lines reported as bad lines.
"""

from __future__ import annotations

import os
import zipfile
from typing import Any

import orjson

from tracetui.importers import openhands_v1
from tracetui.importers._common import read_head
from tracetui.importers.protocol import HEAD_LINES, NO, Head
from tracetui.importers.registry import IMPORTERS


def sniff(path: str) -> str | None:
    """The foreign format of ``path`` (e.g. ``claude-code``), or None when it is ours or unknown."""
    head = read_sniff_head(path)
    if head is None:
        return None
    best, best_score = None, NO
    for imp in IMPORTERS:
        try:
            score = imp.sniff(head)
        except Exception:  # a sniffer that trips on odd input only loses its own vote
            continue
        if score > best_score:  # strictly: on a tie the importer listed first keeps it
            best, best_score = imp.name, score
    return best


def sniff_folder(folder: str, names: list[str]) -> tuple[str, list[str]] | None:
    """A folder that is one trace as a whole, by its content: the SDK's ``events/`` folder of
    OpenHands V1, one ``event-NNNNN-<id>.json`` per event. Its format and the file names it
    claims (read as that one run), or None. Only the heads of its first three files are read."""
    files = openhands_v1.event_files(names)
    if not any(sniff(os.path.join(folder, f)) == openhands_v1.FORMAT for f in files[:3]):
        return None
    return openhands_v1.FORMAT, files


def read_sniff_head(path: str) -> Head | None:
    """The head of ``path`` for the sniffers; None when it cannot be read or is surely ours."""
    try:
        data = read_head(path)
    except (OSError, EOFError, ValueError):
        return None
    try:
        if data.startswith(b"PK\x03\x04"):
            with zipfile.ZipFile(path) as zf:
                return Head(text="", lines=[], zip_names=tuple(zf.namelist()))
        text = data.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
        if not text or text[0] not in "{[":
            return None
        lines = _first_lines(text)
    except Exception:
        return None
    if lines and _ours(lines[0]):
        return None
    return Head(text=text, lines=lines)


def _first_lines(text: str, n: int = HEAD_LINES) -> list[Any]:
    """Up to ``n`` complete JSON lines from the head (the last, maybe partial, line is dropped)."""
    out: list[Any] = []
    lines = text.split("\n")
    if len(lines) > 1:
        lines = lines[:-1]
    for line in lines[:n]:
        if not line.strip():
            continue
        try:
            out.append(orjson.loads(line))
        except orjson.JSONDecodeError:
            out.append(None)
    return out


def _ours(obj: Any) -> bool:
    """Whether a record is one of tracetui's own dialects (or an imported copy)."""
    if not isinstance(obj, dict):
        return False
    schema = obj.get("schema")
    if isinstance(schema, str) and (schema.startswith("tracetui/") or schema.startswith("import/")):
        return True
    return any(
        k in obj for k in ("span_type", "stdout_tail", "stderr_tail", "argv", "preview_stdout")
    )
