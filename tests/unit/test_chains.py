"""Retry chains: branching, attempt numbers, missing parents, cycles, duplicate ids."""

from __future__ import annotations

from typing import Any

import pytest
from records import tool

from tracetui.analysis.chains import ChainIndex
from tracetui.store.build import build_index
from tracetui.store.runset import open_path


def index_of(make_run: Any, records: list[dict[str, Any]], members: int = 1) -> Any:
    # Spread records over rotated members so chains cross them.
    per = max(1, len(records) // members)
    files: dict[str, list[Any]] = {}
    for i in range(members):
        name = "B.jsonl" if i == members - 1 else f"B.jsonl.{members - 1 - i}"
        chunk = records[i * per :] if i == members - 1 else records[i * per : (i + 1) * per]
        files[name] = chunk
    root = make_run(files)
    return build_index(open_path(str(root / "B.jsonl"))[0])


def shape(ix: Any, chain: Any) -> list[tuple[str, int]]:
    return [(ix.ids[n.row], n.attempt) for n in chain.nodes()]


def test_branching_tree_across_members(make_run: Any) -> None:
    ix = index_of(
        make_run,
        [
            tool("a", exit_code=1),
            tool("x"),
            tool("b", parent_command_id="a", exit_code=1),
            tool("c", parent_command_id="a", exit_code=1),
            tool("d", parent_command_id="b"),
        ],
        members=3,
    )
    chains = ChainIndex(ix)
    chain = chains.chain(ix.id_rows["d"])
    assert shape(ix, chain) == [("a", 1), ("b", 2), ("d", 3), ("c", 2)]
    assert chain.missing_parent is None and not chain.cycle
    assert shape(ix, chains.chain(ix.id_rows["x"])) == [("x", 1)]
    assert [ix.ids[c.root.row] for c in chains.multi_attempt_chains()] == ["a"]


def test_missing_parent_is_a_marked_root(make_run: Any) -> None:
    ix = index_of(make_run, [tool("b", parent_command_id="gone"), tool("c", parent_command_id="b")])
    chain = ChainIndex(ix).chain(ix.id_rows["c"])
    assert shape(ix, chain) == [("b", 1), ("c", 2)]
    assert chain.missing_parent == "gone"


def test_cycle_terminates_and_is_reported(make_run: Any) -> None:
    ix = index_of(
        make_run,
        [
            tool("a", parent_command_id="c"),
            tool("b", parent_command_id="a"),
            tool("c", parent_command_id="b"),
        ],
    )
    chains = ChainIndex(ix)
    chain = chains.chain(ix.id_rows["b"])
    assert chain.cycle
    assert sorted(ix.ids[r] for r in chain.rows()) == ["a", "b", "c"]
    assert chains.cycles() == [[0, 1, 2]]


def test_self_parent_is_not_a_loop(make_run: Any) -> None:
    ix = index_of(make_run, [tool("a", parent_command_id="a")])
    assert shape(ix, ChainIndex(ix).chain(0)) == [("a", 1)]


def test_duplicate_ids_are_recorded_first_wins(make_run: Any) -> None:
    ix = index_of(make_run, [tool("a"), tool("a", exit_code=3), tool("b", parent_command_id="a")])
    assert ix.duplicates == {"a": [0, 1]}
    assert shape(ix, ChainIndex(ix).chain(2)) == [("a", 1), ("b", 2)]


def test_long_chain_has_attempt_numbers(make_run: Any) -> None:
    recs = [tool("s0")] + [tool(f"s{i}", parent_command_id=f"s{i - 1}") for i in range(1, 2000)]
    ix = index_of(make_run, recs, members=4)
    chain = ChainIndex(ix).chain(ix.id_rows["s1000"])
    nodes = chain.nodes()
    assert len(nodes) == 2000 and nodes[-1].attempt == 2000


def test_chains_follow_a_growing_index(make_run: Any) -> None:
    from records import encode_line

    root = make_run({"B.jsonl": [tool("b", parent_command_id="a")]})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    chains = ChainIndex(ix)
    assert shape(ix, chains.chain(0)) == [("b", 1)]
    with open(root / "B.jsonl", "ab") as fh:  # the parent arrives late, then a retry of b
        fh.write(encode_line(tool("a")) + encode_line(tool("c", parent_command_id="b")))
    ix.index_member(0)
    # b's parent arrived after b: the tree links it once it is there, whichever row is asked.
    assert shape(ix, chains.chain(0)) == [("a", 1), ("b", 2), ("c", 3)]
    assert shape(ix, chains.chain(2)) == [("a", 1), ("b", 2), ("c", 3)]


def test_groups_agree_with_the_trees_on_random_graphs(make_run: Any) -> None:
    import random

    rng = random.Random(11)
    recs = []
    for i in range(600):
        parent = None
        if rng.random() < 0.6:
            parent = f"n{rng.randint(0, 650)}"  # earlier, later, itself, or not in the set at all
        recs.append(
            tool(f"n{i if rng.random() > 0.02 else rng.randint(0, i)}", parent_command_id=parent)
        )
    ix = index_of(make_run, recs, members=3)
    chains = ChainIndex(ix)
    trees = {c.root.row: c.rows() for c in chains.multi_attempt_chains()}
    assert chains.groups() == trees


def p(cid: str, parent: str | None = None) -> dict[str, Any]:
    return tool(cid, parent_command_id=parent)


# (case id, records in row order, each cycle's ids exactly once in set order)
CYCLES: list[tuple[str, list[dict[str, Any]], list[list[str]]]] = [
    ("two-cycle", [p("a", "b"), p("b", "a")], [["a", "b"]]),
    ("three-cycle", [p("a", "c"), p("b", "a"), p("c", "b")], [["a", "b", "c"]]),
    # t's parent is in the cycle, but t is not: walking up from t first must not list it.
    ("tail-first-into-two-cycle", [p("t", "a"), p("a", "b"), p("b", "a")], [["a", "b"]]),
    ("tail-last-into-two-cycle", [p("a", "b"), p("b", "a"), p("t", "a")], [["a", "b"]]),
    (
        "long-tail-into-cycle",
        [p("t1", "t2"), p("t2", "t3"), p("t3", "a"), p("a", "b"), p("b", "c"), p("c", "a")],
        [["a", "b", "c"]],
    ),
    (
        "two-tails-into-one-cycle",
        [p("s", "b"), p("a", "b"), p("b", "a"), p("t", "a")],
        [["a", "b"]],
    ),
    (
        "retries-of-cycle-members",
        [p("a", "b"), p("b", "a"), p("r", "a"), p("q", "r")],
        [["a", "b"]],
    ),
    (
        "two-separate-cycles",
        [p("a", "b"), p("x", "y"), p("b", "a"), p("y", "x"), p("t", "x")],
        [["a", "b"], ["x", "y"]],
    ),
    ("no-cycle", [p("a"), p("b", "a"), p("c", "b")], []),
    ("self-parent-is-no-cycle", [p("a", "a"), p("b", "a")], []),
    ("missing-parent-is-no-cycle", [p("a", "gone"), p("b", "a")], []),
]


@pytest.mark.parametrize(("records", "want"), [c[1:] for c in CYCLES], ids=[c[0] for c in CYCLES])
def test_cycles_are_reported_once_with_exactly_their_members(
    make_run: Any, records: list[dict[str, Any]], want: list[list[str]]
) -> None:
    ix = index_of(make_run, records)
    got = ChainIndex(ix).cycles()
    assert [[ix.ids[r] for r in cycle] for cycle in got] == want


# (case id, records, the root every row of the tree must agree on)
ROOTS: list[tuple[str, list[dict[str, Any]], str]] = [
    ("two-cycle", [p("a", "b"), p("b", "a")], "a"),
    ("two-cycle-later-row-first", [p("x"), p("b", "a"), p("a", "b")], "b"),
    ("three-cycle", [p("a", "c"), p("b", "a"), p("c", "b")], "a"),
    ("tail-into-cycle", [p("t", "a"), p("a", "b"), p("b", "a")], "a"),
]


@pytest.mark.parametrize(("records", "root"), [c[1:] for c in ROOTS], ids=[c[0] for c in ROOTS])
def test_cycle_members_agree_on_one_root_and_one_tree(
    make_run: Any, records: list[dict[str, Any]], root: str
) -> None:
    ix = index_of(make_run, records)
    chains = ChainIndex(ix)
    rows = [ix.id_rows[r["command_id"]] for r in records if r["parent_command_id"]]
    assert {chains.root_of(r) for r in rows} == {(ix.id_rows[root], True)}
    trees = {tuple(shape(ix, chains.chain(r))) for r in rows}
    assert len(trees) == 1
    chain = chains.chain(rows[0])
    assert chain.cycle and ix.ids[chain.root.row] == root
    assert sorted(chain.rows()) == sorted(rows)
