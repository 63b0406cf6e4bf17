"""A run's notes on stderr, as every command that opens runs reports them.

Apart from :mod:`tracetui.commands.common` (which imports the index builder): a command that
answers from what the cache kept (a warm ``summary --json`` or ``lint``) reports them too
without importing it.
"""

from __future__ import annotations

import sys

from tracetui.model.text import neutralize_line
from tracetui.store.runset import Run


def report_notes(run: Run) -> None:
    """Each of ``run``'s notes on stderr. A note names files and may quote trace text (an
    importer's problems): neutralised, one line."""
    for note in run.notes:
        print(f"tracetui: {neutralize_line(f'{run.name}: {note}')}", file=sys.stderr)
