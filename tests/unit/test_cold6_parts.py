"""A cache part's links counted stretch by stretch by bisects when they are in row order
(``cache_parts._stretch_counts``): the same counts, rows and order as sorting each link into
its stretch (``_by_stretch``, the reference), and None when they are not in order."""

from __future__ import annotations

import random
from array import array

import pytest

from tracetui.store.cache_parts import _by_stretch, _stretch_counts


def reference(stops: list[int], rows: list[int]) -> list[int]:
    return [len(s) for s in _by_stretch(stops, [(r, f"p{r}") for r in rows])]


CASES = [
    ("no-bad-lines", [], [1, 2, 3]),
    ("no-links", [4], []),
    ("links-before-and-after", [5], [1, 2, 6, 9]),
    ("all-before", [50], [1, 2, 3]),
    ("all-after", [0], [1, 2, 3]),
    ("bad-first-and-last", [0, 10], [1, 5, 9]),
    ("adjacent-bad-lines", [3, 4, 5], [1, 2, 6]),
    ("empty-stretches", [2, 4, 6, 8], [9]),
    ("a-row-linked-twice", [3], [1, 1, 5, 5]),
    ("a-link-on-a-stop", [3], [3, 4]),
]


@pytest.mark.parametrize(("stops", "rows"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_counts_by_bisect_are_the_sorted_counts(stops: list[int], rows: list[int]) -> None:
    assert _stretch_counts(stops, array("i", rows)) == reference(stops, rows)


@pytest.mark.parametrize("seed", range(20))
def test_random_links_in_row_order(seed: int) -> None:
    rnd = random.Random(seed)
    n = rnd.randrange(1, 500)
    stops = sorted(rnd.sample(range(n), rnd.randrange(0, min(n, 30))))
    rows = sorted(rnd.choices([r for r in range(n) if r not in stops] or [0], k=rnd.randrange(60)))
    assert _stretch_counts(stops, array("i", rows)) == reference(stops, rows)


def test_links_out_of_order_are_left_to_the_reference() -> None:
    assert _stretch_counts([3], array("i", [5, 1])) is None
    assert _stretch_counts([], array("i", [5, 1])) == [2]  # one stretch: the order is kept
