"""Summary's chain objects made in C (``fastindex.chain_list``, ``_scan_bulk.h``) are the ones
the plain comprehension makes: the same dicts, keys in the same order, the same id objects, for
tables of edge cases and random groups; odd input gets the plain build's answer or error."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tracetui.store import fastindex


def plain(groups: dict[int, list[int]], ids: list[Any], finals: list[Any]) -> list[Any]:
    return [
        {"root": ids[root], "attempts": [ids[r] for r in rows], "final_exit_code": final}
        for (root, rows), final in zip(groups.items(), finals, strict=True)
    ]


CASES: list[tuple[str, dict[int, list[int]], list[Any], list[Any]]] = [
    ("none", {}, ["a"], []),
    ("one", {0: [0, 1]}, ["a", "b"], [0]),
    ("none-ids", {1: [1, 2, 3]}, [None, None, "c", None], [None]),
    ("exit-kinds", {0: [0, 1], 2: [2, 3]}, ["a", "b", "c", "d"], [-9, 2**40]),
    ("non-ascii", {0: [0, 1]}, ["é", "😀"], [1]),
    ("root-later", {3: [3, 0]}, ["a", "b", "c", "d"], [0]),
]


@pytest.mark.parametrize(
    ("groups", "ids", "finals"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_same_as_the_plain_build(groups: Any, ids: Any, finals: Any) -> None:
    got = fastindex.chain_list(groups, ids, finals)
    want = plain(groups, ids, finals)
    assert got == want
    assert [list(c) for c in got] == [list(c) for c in want]  # key order: the JSON's
    assert json.dumps(got) == json.dumps(want)
    for g, w in zip(got, want, strict=True):
        assert g["root"] is w["root"]
        assert all(a is b for a, b in zip(g["attempts"], w["attempts"], strict=True))


def test_random_groups() -> None:
    rng = random.Random(18)
    for _ in range(200):
        n = rng.randint(1, 300)
        ids = [rng.choice([None, f"c{i}", f"é{i}"]) for i in range(n)]
        groups = {
            r: sorted(rng.sample(range(n), rng.randint(1, min(n, 6))))
            for r in rng.sample(range(n), rng.randint(0, min(n, 20)))
        }
        finals = [rng.choice([None, 0, 1, -15]) for _ in groups]
        assert fastindex.chain_list(groups, ids, finals) == plain(groups, ids, finals)


ODD: list[tuple[str, dict[Any, Any], list[Any], list[Any], type[Exception] | None]] = [
    ("row-past-ids", {0: [0, 5]}, ["a"], [0], IndexError),
    ("root-past-ids", {7: [0]}, ["a"], [0], IndexError),
    ("finals-short", {0: [0]}, ["a"], [], ValueError),
    ("negative-row", {0: [-1]}, ["a", "b"], [0], None),  # the plain build counts from the end
]


@pytest.mark.parametrize(
    ("groups", "ids", "finals", "error"), [c[1:] for c in ODD], ids=[c[0] for c in ODD]
)
def test_odd_input_gets_the_plain_answer(groups: Any, ids: Any, finals: Any, error: Any) -> None:
    """What the C build refuses, the plain build makes or refuses as it always did."""
    if error is not None:
        with pytest.raises(error):
            plain(groups, ids, finals)
        with pytest.raises(error):
            fastindex.chain_list(groups, ids, finals)
    else:
        assert fastindex.chain_list(groups, ids, finals) == plain(groups, ids, finals)
