"""What a file that is not a regular file is, for a note (``"a FIFO"``, ``"a character device"``).

Its own module: the run set (:mod:`tracetui.store.runset`) names such files while it lists a
folder, and a warm ``summary --json`` that only prints its kept output should not pay for
importing the line reader and the span model to do so.
"""

from __future__ import annotations

import stat


def file_kind(mode: int) -> str:
    """What a non-regular file is, for a note: ``"a FIFO"``, ``"a character device"``…"""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"
