"""The two refusals of a kept-stream reader, in a module of their own.

:mod:`tracetui.record.kept_read` (tracetui's own store) and
:mod:`tracetui.record.kept_imported` (what another agent kept) both raise them, and the first
uses the second: defining them here keeps the two modules from importing each other.
"""

from __future__ import annotations


class NotKept(Exception):
    """No kept bytes for this stream; ``str()`` is one line saying why."""


class KeptMismatch(NotKept):
    """The kept bytes are there but do not match the record (changed, damaged, truncated)."""
