"""The viewer's use of the cyclic collector: what lives as long as the view is frozen out of its
full passes (docs/live.md).

Textual's modules and widgets and the open index are tens of thousands of objects (a million
rows' worth of the index) that every full pass of the collector walks; following a busy run
allocates fast enough for a full pass every second or so, and one took up to 90 ms, a frame's
worth of rows waiting for it. Frozen, they are left out of the passes (and still freed by
reference counting).
"""

from __future__ import annotations

import gc


def settle() -> None:
    """Let go what an earlier run left frozen (a cycle among it is collected), then freeze what
    lives now. Made when a run is opened, before its index exists."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def freeze_young() -> None:
    """:func:`settle` for what was made since the last freeze only (the index was frozen as it
    was swapped in): the pass walks none of the index's million rows."""
    gc.collect()
    gc.freeze()


def freeze() -> None:
    """Freeze what lives now (an index just swapped in, chains just linked): no full pass while
    the list is drawn walks them."""
    gc.freeze()
