"""``ChainIndex.groups()`` and ``prepare()`` resolve every parent id in one pass
(tracetui/analysis/chains.py): they must give what a plain walk up the parents gives, on
hand-made edge cases, random forests with cycles, and the bundled sample runs."""

from __future__ import annotations

import itertools
import random
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool

from tracetui.analysis.chains import ChainIndex
from tracetui.store.build import build_index
from tracetui.store.id_registry import OwedIdRows, rows_of
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def reference_parents(index: RunIndex) -> list[int | None]:
    """Each row's parent row: its parent id's first row, when known, another row and committed."""
    first = index.settle_ids()
    out: list[int | None] = []
    for row in range(len(index)):
        pid = index.parent_ids.get(row)
        prow = None if pid is None else first.get(pid)
        out.append(None if prow is None or prow == row or prow >= len(index) else prow)
    return out


def reference_groups(index: RunIndex) -> dict[int, list[int]]:
    """Walk up from every row; a loop's rows (and rows leading into it) share its earliest row."""
    parent = reference_parents(index)
    trees: dict[int, list[int]] = {}
    for row in range(len(index)):
        path, on_path = [row], {row}
        current = parent[row]
        while current is not None and current not in on_path:
            path.append(current)
            on_path.add(current)
            current = parent[current]
        root = path[-1] if current is None else min(path[path.index(current) :])
        trees.setdefault(root, []).append(row)
    return {root: rows for root, rows in sorted(trees.items()) if len(rows) > 1}


def reference_children(index: RunIndex) -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for row, prow in enumerate(reference_parents(index)):
        if prow is not None:
            children.setdefault(prow, []).append(row)
    return children


def p(cid: str | None, parent: str | None = None) -> dict[str, Any]:
    return tool(cid, parent_command_id=parent)


def index_of(make_run: Any, records: list[dict[str, Any]], reruns: list[dict[str, Any]]) -> Any:
    files = {"B.jsonl": records}
    if reruns:
        files["B.jsonl.reruns.jsonl"] = reruns
    root = make_run(files)
    return build_index(open_path(str(root / "B.jsonl"))[0])


def chain_of(n: int) -> list[dict[str, Any]]:
    return [p("s0")] + [p(f"s{i}", f"s{i - 1}") for i in range(1, n)]


# (case id, records in row order, re-run records)
CASES: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]] = [
    ("empty", [], []),
    ("no-links", [p("a"), p("b")], []),
    ("one-retry", [p("a"), p("b", "a")], []),
    ("branching", [p("a"), p("b", "a"), p("c", "a"), p("d", "b")], []),
    ("retry-before-parent", [p("b", "a"), p("a"), p("c", "b")], []),
    ("self-link", [p("a", "a"), p("b")], []),
    ("self-link-with-retry", [p("a", "a"), p("b", "a")], []),
    ("unknown-parent", [p("b", "gone"), p("c", "b")], []),
    ("unknown-parent-alone", [p("b", "gone")], []),
    ("two-cycle", [p("a", "b"), p("b", "a")], []),
    ("three-cycle-later-row-first", [p("x"), p("c", "b"), p("a", "c"), p("b", "a")], []),
    ("tail-into-cycle", [p("t1", "t2"), p("t2", "a"), p("a", "b"), p("b", "a")], []),
    ("retries-of-cycle", [p("a", "b"), p("b", "a"), p("r", "a"), p("q", "r")], []),
    ("duplicate-parent-id", [p("a"), p("a"), p("b", "a")], []),
    ("duplicate-retry-id", [p("a"), p("b", "a"), p("b", "a"), p("c", "b")], []),
    ("duplicate-in-cycle", [p("a", "b"), p("b", "a"), p("a", "b")], []),
    ("no-ids", [p(None), p(None, "a"), p("a")], []),
    ("rerun-of-a-root", [p("a"), p("x")], [p("r1", "a")]),
    ("rerun-of-a-retry", [p("a"), p("b", "a")], [p("r1", "b"), p("r2", "r1")]),
    ("rerun-of-unknown", [p("a")], [p("r1", "gone")]),
    ("long-chain", chain_of(400), []),
]


@pytest.mark.parametrize(("records", "reruns"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_groups_and_links_match_the_reference_walk(
    make_run: Any, records: list[dict[str, Any]], reruns: list[dict[str, Any]]
) -> None:
    ix = index_of(make_run, records, reruns)
    assert len(ix) == len(records) + len(reruns)
    chains = ChainIndex(ix)
    assert chains.groups() == reference_groups(ix)
    assert chains.prepare()._children == reference_children(ix)


def random_records(rng: random.Random, n: int) -> list[dict[str, Any]]:
    """A random forest: parents earlier, later, the row itself, unknown, repeated ids, loops."""
    recs = []
    for i in range(n):
        parent = None
        roll = rng.random()
        if roll < 0.5:
            parent = f"n{rng.randint(max(0, i - 20), i)}"  # short chains of earlier rows
        elif roll < 0.65:
            parent = f"n{rng.randint(0, n + n // 10)}"  # anywhere: later rows, loops, unknown
        cid = f"n{i}" if rng.random() > 0.03 else f"n{rng.randint(0, i)}"
        recs.append(p(cid if rng.random() > 0.01 else None, parent))
    return recs


@pytest.mark.parametrize("seed", range(8), ids=[f"seed-{s}" for s in range(8)])
def test_random_forests_match_the_reference_walk(make_run: Any, seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([70, 300, 900])  # past 64 rows a build owes its ids (the bulk look-up path)
    ix = index_of(make_run, random_records(rng, n), random_records(rng, rng.randint(0, 5)))
    cold = ChainIndex(ix).groups()  # before the registry is settled
    want = reference_groups(ix)  # settles it
    assert cold == want
    assert ChainIndex(ix).groups() == want
    assert ChainIndex(ix).prepare()._children == reference_children(ix)


@pytest.mark.parametrize("seed", range(4), ids=[f"seed-{s}" for s in range(4)])
def test_links_made_as_the_run_grows_match_the_reference(make_run: Any, seed: int) -> None:
    """A live run: records appended in steps, the children map refreshed after each (parents
    arriving after their retries, retries of parents linked in an earlier step)."""
    rng = random.Random(100 + seed)
    recs = random_records(rng, 240)
    cuts = sorted(rng.sample(range(1, len(recs)), 3))
    root = make_run({"B.jsonl": recs[: cuts[0]]})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    chains = ChainIndex(ix).prepare()
    for start, stop in itertools.pairwise([*cuts, len(recs)]):
        with open(root / "B.jsonl", "ab") as fh:
            fh.write(b"".join(encode_line(r) for r in recs[start:stop]))
        ix.index_member(0)
        assert chains.prepare()._children == reference_children(ix)
        assert chains.groups() == reference_groups(ix)


def test_long_chain_of_a_hundred_thousand_attempts(make_run: Any) -> None:
    ix = index_of(make_run, chain_of(100_000), [])
    groups = ChainIndex(ix).groups()
    assert list(groups) == [0] and groups[0] == list(range(100_000))


@pytest.mark.parametrize(
    "sample",
    sorted(d.name for d in SAMPLES.iterdir() if (d / "feedback_record.jsonl").is_file()),
)
def test_sample_runs_match_the_reference_walk(sample: str) -> None:
    ix = build_index(open_path(str(SAMPLES / sample / "feedback_record.jsonl"))[0])
    assert ChainIndex(ix).groups() == reference_groups(ix)
    assert ChainIndex(ix).prepare()._children == reference_children(ix)


# (case id, ids looked for, keys asked, whether the registry must settle)
GET_MANY: list[tuple[str, set[str], list[str], bool]] = [
    ("all-looked-for", {"a", "b", "gone"}, ["a", "gone", "b"], False),
    ("one-not-looked-for", {"a"}, ["a", "z"], True),
    ("row-zero-is-found", {"a"}, ["a", "a"], False),
    ("none-asked", set(), [], False),
]


@pytest.mark.parametrize(
    ("looked_for", "keys", "settles"), [c[1:] for c in GET_MANY], ids=[c[0] for c in GET_MANY]
)
def test_owed_rows_answer_many_ids_as_get_does(
    looked_for: set[str], keys: list[str], settles: bool
) -> None:
    settled = {"a": 0, "b": 3, "z": 9}
    calls: list[int] = []

    def settle() -> dict[str, int]:
        calls.append(1)
        return settled

    first = {k: v for k, v in settled.items() if k in looked_for}
    owed = OwedIdRows(first, looked_for, settle)
    assert rows_of(owed, keys) == [owed.get(k) for k in keys] == [settled.get(k) for k in keys]
    calls.clear()
    rows_of(owed, keys)
    assert bool(calls) == settles
    assert rows_of(settled, keys) == [settled.get(k) for k in keys]
