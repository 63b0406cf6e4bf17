"""The sixth pass's bulk helpers in C (``tracetui/store/_scan_bulk.h``) against the Python they
replace: the id registry's parents table (``first_rows``), the chains' walks
(``chain_groups``), a part's hidden-bytes total (``known_sum``) and the cuts of unknown size
(``count_picked``). Each on a table of edge cases and on random input, compared with the
reference written out here or kept in the module (the Python path without the compiled
scanner)."""

from __future__ import annotations

import random
from array import array
from itertools import compress, islice
from typing import Any, ClassVar

import pytest

from tracetui.analysis.chains import ChainIndex
from tracetui.model.flags import NO_VALUE
from tracetui.store import fastindex

_scan: Any = getattr(fastindex, "_scan", None)
needs_c = pytest.mark.skipif(
    _scan is None or not hasattr(_scan, "chain_groups"), reason="built without the C scanner"
)


def reference_first_rows(
    ids: list[Any], start: int, stop: int, want: set[Any], first: dict[Any, int]
) -> dict[Any, int]:
    """The parents table's pass as ``id_registry.parents_table`` wrote it before."""
    for row in compress(range(start, stop), map(want.__contains__, islice(ids, start, stop))):
        first.setdefault(ids[row], row)
    return first


def _both(ids: list[Any], start: int, stop: int, want: set[Any], seed: dict[Any, int]) -> None:
    c_first, py_first = dict(seed), dict(seed)
    _scan.first_rows(ids, start, stop, want, c_first)
    reference_first_rows(ids, start, stop, want, py_first)
    assert c_first == py_first
    assert list(c_first) == list(py_first)  # the same order too


UUIDS = [f"0199a300-{i:04x}-7000-8000-{i * 7919:012x}" for i in range(50)]
FIRST_ROWS_CASES = [
    ("none-wanted", ["a", "b"], 0, 2, set(), {}),
    ("all-wanted", ["a", "b", "c"], 0, 3, {"a", "b", "c"}, {}),
    ("duplicates-first-wins", ["a", "b", "a", "b"], 0, 4, {"a", "b"}, {}),
    ("nones-skipped", [None, "a", None, "a"], 0, 4, {"a"}, {}),
    ("none-in-want", [None, "a", None], 0, 3, {None, "a"}, {}),
    ("an-int-wanted", ["1", "a"], 0, 2, {1, "a"}, {}),
    ("start-and-stop", ["a", "b", "a", "b", "c"], 2, 4, {"a", "b", "c"}, {}),
    ("stop-past-the-end", ["a", "b"], 1, 99, {"a", "b"}, {}),
    ("empty-range", ["a", "b"], 2, 1, {"a", "b"}, {}),
    ("seeded-kept", ["a", "b"], 0, 2, {"a", "b"}, {"a": 0}),
    ("empty-strings", ["", "x", ""], 0, 3, {""}, {}),
    ("short-ids", ["a", "ab", "abc", "abcdefg", "abcdefgh"], 0, 5, {"abc", "abcdefgh"}, {}),
    (
        "same-ends-other-middle",
        ["head-1234-MIDDLE-5678-tail", "head-1234-middle-5678-tail"],
        0,
        2,
        {"head-1234-middle-5678-tail"},
        {},
    ),
    (
        "non-ascii",
        ["é", "ü", "日本", "日本語", "\U0001f600x"],
        0,
        5,
        {"ü", "日本語", "\U0001f600x"},
        {},
    ),
    ("latin1-vs-ascii", ["caf\xe9", "cafe", "caf\xe9"], 0, 3, {"caf\xe9"}, {}),
    ("uuids", UUIDS * 2, 0, 100, set(UUIDS[::3]), {}),
]


@needs_c
@pytest.mark.parametrize(
    ("ids", "start", "stop", "want", "seed"),
    [c[1:] for c in FIRST_ROWS_CASES],
    ids=[c[0] for c in FIRST_ROWS_CASES],
)
def test_first_rows_is_the_python_pass(
    ids: list[Any], start: int, stop: int, want: set[Any], seed: dict[Any, int]
) -> None:
    _both(ids, start, stop, want, seed)


@needs_c
@pytest.mark.parametrize("seed", range(6))
def test_first_rows_on_random_ids(seed: int) -> None:
    rnd = random.Random(seed)
    alphabet = ["a", "b", "0", "-", "é", "日", "\U0001f600"]
    pool = ["".join(rnd.choices(alphabet, k=rnd.randrange(0, 30))) for _ in range(300)]
    ids: list[Any] = [rnd.choice(pool) if rnd.random() > 0.1 else None for _ in range(3000)]
    want = set(rnd.sample(pool, 40)) | {"never-there"}
    _both(ids, rnd.randrange(0, 100), rnd.randrange(2000, 3500), want, {})


@needs_c
def test_first_rows_refuses_what_is_not_a_list_set_and_dict() -> None:
    with pytest.raises(TypeError):
        _scan.first_rows(("a",), 0, 1, {"a"}, {})
    with pytest.raises(TypeError):
        _scan.first_rows(["a"], 0, 1, frozenset({"a"}), {})


def _walk(rows: list[int], parents: list[int]) -> dict[int, list[int]]:
    parent_of = {r: p for r, p in zip(rows, parents, strict=True) if p >= 0}
    return ChainIndex._walk_groups(rows, parent_of.get)


GROUP_CASES = [
    ("empty", [], []),
    ("one-link", [1], [0]),
    ("a-chain", [1, 2, 3], [0, 1, 2]),
    ("a-branch", [1, 2, 3], [0, 0, 1]),
    ("a-parent-after-its-retry", [0, 2], [3, 0]),
    ("a-cycle", [0, 1, 2], [2, 0, 1]),
    ("a-tail-into-a-cycle", [5, 0, 1], [0, 1, 0]),
    ("two-cycles", [0, 1, 4, 5, 6], [1, 0, 6, 4, 5]),
    ("no-parent-links", [3, 4], [-1, -1]),
    ("a-row-linked-twice", [1, 1, 2], [0, 0, 1]),
    ("linked-twice-first-wins-when-the-second-has-none", [1, 1], [0, -1]),
    ("walked-from-the-middle", [2, 1, 3], [1, 0, 2]),
    ("far-rows", [100_000, 7], [7, 3]),
]


@needs_c
@pytest.mark.parametrize(
    ("rows", "parents"), [c[1:] for c in GROUP_CASES], ids=[c[0] for c in GROUP_CASES]
)
def test_chain_groups_is_the_python_walk(rows: list[int], parents: list[int]) -> None:
    # A row's last parent of its entries wins, as in the dict the Python walk reads.
    got = _scan.chain_groups(rows, parents)
    assert got == _walk(rows, parents)
    assert list(got) == sorted(got)


@needs_c
@pytest.mark.parametrize("seed", range(12))
def test_chain_groups_on_random_forests_with_loops(seed: int) -> None:
    rnd = random.Random(seed)
    n = rnd.randrange(2, 400)
    parent = {}
    for row in range(n):
        if rnd.random() < 0.6:
            other = rnd.randrange(n)
            if other != row:  # groups() never links a row to itself
                parent[row] = other
    rows = list(parent)
    rnd.shuffle(rows)
    parents = [parent[r] for r in rows]
    assert _scan.chain_groups(rows, parents) == _walk(rows, parents)


@needs_c
@pytest.mark.parametrize(
    ("rows", "parents"),
    [([1], [2**31]), ([-1], [0]), ([0], [-2]), ([1, 2], [0])],
    ids=["past-31-bits", "negative-row", "below-none", "lengths-differ"],
)
def test_chain_groups_refuses_what_it_cannot_walk(rows: list[int], parents: list[int]) -> None:
    with pytest.raises((ValueError, OverflowError)):
        _scan.chain_groups(rows, parents)
    if len(rows) == len(parents):  # the caller then walks in Python
        assert fastindex.chain_groups(rows, parents) is None


class _Clearing:
    """Not an int, but convertible to one: its conversion empties the lists it sits in (what
    a borrowed item must never meet: the walk takes exact ints only)."""

    lists: ClassVar[list[list[object]]] = []

    def __index__(self) -> int:
        for items in self.lists:
            items.clear()
        return 1


@needs_c
@pytest.mark.parametrize(
    ("rows", "parents"),
    [([True], [None]), ([1.0], [None]), ([0], ["1"]), ([0, 1], [None, 0.0])],
    ids=["bool-row", "float-row", "text-parent", "float-parent"],
)
def test_chain_groups_takes_exact_ints_only(rows: list[object], parents: list[object]) -> None:
    with pytest.raises(TypeError):
        _scan.chain_groups(rows, parents)
    assert fastindex.chain_groups(rows, parents) is None  # type: ignore[arg-type]


@needs_c
def test_chain_groups_never_converts_another_object() -> None:
    rows: list[object] = [_Clearing(), 2, 3]
    parents: list[object] = [None, _Clearing(), 2]
    _Clearing.lists = [rows, parents]
    try:
        with pytest.raises(TypeError):
            _scan.chain_groups(rows, parents)
        assert len(rows) == 3 and len(parents) == 3  # nothing ran that could empty them
    finally:
        _Clearing.lists = []


def reference_known_sum(column: array[int], skip: int) -> int:
    return sum(column) - skip * column.count(skip)


SUMS = [
    ("empty", [], NO_VALUE),
    ("plain", [1, 2, 3], NO_VALUE),
    ("skipped", [NO_VALUE, 5, NO_VALUE, 7], NO_VALUE),
    ("only-skipped", [NO_VALUE] * 4, NO_VALUE),
    ("zeros", [0, 0, 5], 0),
    ("negative-values", [-5, 10, -1], NO_VALUE),
    ("near-the-top", [2**62, 2**62 - 1], NO_VALUE),
    ("overflowing", [2**62, 2**62, 2**62], NO_VALUE),
    ("overflowing-down", [-(2**62), -(2**62), -(2**62)], NO_VALUE),
]


@pytest.mark.parametrize(("values", "skip"), [c[1:] for c in SUMS], ids=[c[0] for c in SUMS])
def test_known_sum_is_the_python_sum(values: list[int], skip: int) -> None:
    column = array("q", values)
    assert fastindex.known_sum(column, skip) == reference_known_sum(column, skip)


def reference_count_picked(picked: bytes, column: array[int], a: int, b: int) -> int:
    return sum(1 for on, v in zip(picked, column, strict=False) if on and v in (a, b))


PICKS = [
    ("empty", b"", [], 0, NO_VALUE),
    ("none-picked", b"\0\0", [0, NO_VALUE], 0, NO_VALUE),
    ("all-picked", b"\1\1\1", [0, NO_VALUE, 5], 0, NO_VALUE),
    ("picked-longer", b"\1\1\1\1", [0, 0], 0, NO_VALUE),
    ("column-longer", b"\1", [0, 0, 0], 0, NO_VALUE),
    ("same-twice", b"\1\1\1", [3, 3, 4], 3, 3),
    ("any-nonzero-picks", b"\2\xff\0", [0, 0, 0], 0, NO_VALUE),
]


@pytest.mark.parametrize(
    ("picked", "values", "a", "b"), [c[1:] for c in PICKS], ids=[c[0] for c in PICKS]
)
def test_count_picked_is_the_python_count(picked: bytes, values: list[int], a: int, b: int) -> None:
    column = array("q", values)
    want = reference_count_picked(picked, column, a, b)
    assert fastindex.count_picked(picked, column, a, b) == want


@pytest.mark.parametrize("seed", range(4))
def test_sums_and_counts_on_random_columns(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(seed)
    column = array("q", [rnd.choice([0, NO_VALUE, rnd.randrange(10**9)]) for _ in range(5000)])
    picked = bytes(rnd.choice([0, 1]) for _ in range(5000))
    fast = (fastindex.known_sum(column, NO_VALUE), fastindex.count_picked(picked, column, 0, -1))
    monkeypatch.setattr(fastindex, "_scan", None)  # the Python fallbacks
    slow = (fastindex.known_sum(column, NO_VALUE), fastindex.count_picked(picked, column, 0, -1))
    assert (
        fast
        == slow
        == (
            reference_known_sum(column, NO_VALUE),
            reference_count_picked(picked, column, 0, -1),
        )
    )


@pytest.mark.parametrize("seed", range(3))
def test_first_rows_fallback_is_the_python_pass(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rnd = random.Random(seed)
    ids: list[Any] = [rnd.choice(["a", "b", "c", None, "é"]) for _ in range(200)]
    want = {"a", "é"}
    fast: dict[Any, int] = {}
    fastindex.first_rows(ids, 3, 150, want, fast)
    monkeypatch.setenv("TRACETUI_NO_C", "1")
    slow: dict[Any, int] = {}
    fastindex.first_rows(ids, 3, 150, want, slow)
    assert fast == slow == reference_first_rows(ids, 3, 150, want, {})


def reference_ones(column: bytes, start: int = 0) -> list[int]:
    """``raw_lines.ones`` as it searched before, one ``find`` a one."""
    out = []
    at = column.find(1, start)
    while at >= 0:
        out.append(at)
        at = column.find(1, at + 1)
    return out


ONES = [
    ("empty", b"", 0),
    ("none", b"\0\0\0", 0),
    ("all", b"\1\1\1", 0),
    ("other-values-are-not-ones", b"\2\1\xff\1\0", 0),
    ("from-a-start", b"\1\0\1\1", 2),
    ("start-at-the-end", b"\1\1", 2),
    ("start-past-the-end", b"\1\1", 9),
    ("negative-start", b"\1\0\1\1", -2),
    ("very-negative-start", b"\1\0\1", -99),
    ("last-byte", b"\0" * 100 + b"\1", 0),
]


@needs_c
@pytest.mark.parametrize(("column", "start"), [c[1:] for c in ONES], ids=[c[0] for c in ONES])
def test_ones_is_the_find_loop(column: bytes, start: int) -> None:
    assert fastindex.ones(column, start) == reference_ones(column, start)


@pytest.mark.parametrize("seed", range(4))
def test_ones_on_random_columns(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from tracetui.analysis import raw_lines

    rnd = random.Random(seed)
    column = bytes(rnd.choice([0, 0, 0, 1, 2]) for _ in range(20_000))
    start = rnd.randrange(0, 100)
    fast = raw_lines.ones(column, start)
    monkeypatch.setattr(fastindex, "_scan", None)  # the Python search
    assert raw_lines.ones(column, start) == fast == reference_ones(column, start)


@needs_c
@pytest.mark.parametrize("seed", range(12))
def test_chain_groups_judges_parents_as_parent_rows_does(seed: int) -> None:
    """Given ``committed``, parents as they come (None, the row itself, not committed) give
    the walk of the dict ``ChainIndex._parent_rows`` makes of them."""
    rnd = random.Random(seed)
    n = rnd.randrange(2, 300)
    rows = [rnd.randrange(n) for _ in range(rnd.randrange(1, 2 * n))]
    prows: list[int | None] = [
        rnd.choice([None, row, n, n + 5, *([rnd.randrange(n)] * 6)]) for row in rows
    ]
    parent_of = {
        row: p for row, p in zip(rows, prows, strict=True) if p is not None and p != row and p < n
    }
    assert _scan.chain_groups(rows, prows, n) == ChainIndex._walk_groups(rows, parent_of.get)
