"""The process's own output streams when their reader has gone or their disk is full."""

from __future__ import annotations

import os
from typing import TextIO


def to_null(stream: TextIO) -> None:
    """Point ``stream``'s descriptor at the null device: what it still holds cannot be written
    (its reader gone, its disk full), and the exit's own flush must not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(devnull, stream.fileno())
    except (OSError, AttributeError, ValueError):  # no stream, or one that is not a file
        pass
    finally:
        os.close(devnull)
