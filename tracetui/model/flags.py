"""The row flags every part of tracetui agrees on (one byte per row in the index).

Defined here once. The C scanner (``tracetui/store/_scan.c``) sets the same bits; a test checks
that its values equal these.
"""

from __future__ import annotations

BAD = 1
"""The line is not a span (malformed JSON, not an object, over-long…)."""
FAILED = 2
"""Nonzero exit, or no exit and an ``error`` (the runner, or the agent's format, says it failed)."""
TRUNCATED = 4
"""Bytes were withheld from the consumer (by flag, by byte counts or by a marker)."""
TRUNC_UNKNOWN = 8
"""The dialect carries no byte counts: whether bytes were withheld cannot be told."""
NULL_EXIT = 16
"""``exit_code`` is null (with FAILED: an error was recorded; without it: EXIT_UNKNOWN)."""
PROBLEMS = 32
"""A field had the wrong type or the line invalid UTF-8 (the detail pane lists what)."""
SIDECAR = 64
"""The row comes from the re-run sidecar, not from the trace itself."""
EXIT_UNKNOWN = 128
"""No exit and no error: the format did not record how the call ended. Not a failure."""

NO_EXIT = -(2**31)
"""The exit column's value for "no exit code"."""
NO_VALUE = -1
"""The hidden-bytes column's value for "unknown"."""
