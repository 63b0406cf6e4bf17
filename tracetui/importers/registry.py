"""Every importer tracetui has, in one list: adding a format is one module plus one entry here.

The order matters only for ties: when two importers are equally sure of a file (two
line-oriented formats recognising the same line), the one listed first names it.
"""

from __future__ import annotations

from tracetui.importers import (
    claude_code,
    codex,
    inspect_ai,
    mini_swe_agent,
    openhands,
    openhands_v1,
    swe_agent,
)
from tracetui.importers.protocol import Importer

IMPORTERS: tuple[Importer, ...] = (
    claude_code.IMPORTER,
    codex.IMPORTER,
    openhands_v1.IMPORTER,
    openhands.IMPORTER,
    swe_agent.IMPORTER,
    mini_swe_agent.IMPORTER,
    inspect_ai.IMPORTER,
)

_BY_NAME = {imp.name: imp for imp in IMPORTERS}


def by_name(name: str) -> Importer | None:
    """The importer of format ``name`` (``claude-code``…), or None when there is none."""
    return _BY_NAME.get(name)
