"""ui/heap.py, the viewer's use of the cyclic collector, on objects of our own: an earlier run's
cycle, frozen with it, is let go by ``settle`` and what lives then is frozen; ``freeze_young``
lets go only what was made since. And the suite's stand-ins (tests/conftest.py) free a cycle an
app left without thawing the session's frozen heap."""

from __future__ import annotations

import gc
import weakref

from tracetui.ui import heap


class Node:
    """A cycle: reference counting alone never frees it."""

    def __init__(self) -> None:
        self.me = self


def frozen(obj: object) -> bool:
    """Out of the collector's passes (gc.get_objects lists the tracked objects not frozen)."""
    assert gc.is_tracked(obj)
    return not any(o is obj for o in gc.get_objects())


def test_settle_lets_go_a_frozen_cycle_and_freezes_what_lives(real_heap: None) -> None:
    earlier = Node()
    gone = weakref.ref(earlier)
    heap.freeze()  # as an earlier run's index was
    del earlier
    gc.collect()
    assert gone() is not None  # frozen: no pass frees it
    kept = Node()
    heap.settle()
    assert gone() is None
    assert frozen(kept)


def test_freeze_young_lets_go_what_was_made_since_the_last_freeze(real_heap: None) -> None:
    heap.settle()
    young = Node()
    gone = weakref.ref(young)
    del young
    kept = Node()
    heap.freeze_young()
    assert gone() is None
    assert frozen(kept)


def test_the_suites_stand_ins_free_a_cycle_and_keep_the_session_frozen() -> None:
    assert gc.get_freeze_count() > 0  # what collecting made (tests/conftest.py)
    left = Node()
    gone = weakref.ref(left)
    heap.freeze()  # the stand-in: nothing frozen
    del left
    heap.settle()
    assert gone() is None
    assert gc.get_freeze_count() > 0
