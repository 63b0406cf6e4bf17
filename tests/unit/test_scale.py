"""No quadratic corners (issue 13): work counted in calls, not timed, at two sizes.

A directory of many runs is opened with one name parse per file; a retry chain of thousands
of spans is walked once however many of its rows ask for their root. Each test counts the calls
of the inner step with a wrapper and asserts the count stays under a small multiple of the
input at 1,000 and 4,000: a quadratic walk would make millions of calls and fail at both.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool

from tracetui.analysis import chains as chains_mod
from tracetui.analysis.chains import ChainIndex
from tracetui.export import otlp
from tracetui.store import runset
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex

SIZES = [pytest.param(1000, id="1k"), pytest.param(4000, id="4k")]


def counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Replace ``owner.name`` by a wrapper that counts its calls; returns the one-item counter."""
    calls = [0]
    real: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)
    return calls


# ------------------------------------------------------------------ a directory of many runs
def make_dir(root: Path, n: int) -> int:
    """``n`` one-span runs, every tenth rotated once and every twentieth with a sidecar."""
    root.mkdir()
    line = encode_line(tool("c"))
    files = 0
    for i in range(n):
        base = root / f"run{i:05d}.jsonl"
        base.write_bytes(line)
        files += 1
        if i % 10 == 0:
            (root / f"run{i:05d}.jsonl.1").write_bytes(line)
            files += 1
        if i % 20 == 0:
            (root / f"run{i:05d}.jsonl.reruns.jsonl").write_bytes(b"")
            files += 1
    return files


@pytest.mark.parametrize("n", SIZES)
def test_a_directory_is_opened_with_one_parse_per_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int
) -> None:
    files = make_dir(tmp_path / "runs", n)
    calls = counting(monkeypatch, runset, "split_member_name")
    runs = runset.open_path(str(tmp_path / "runs"))
    assert calls[0] <= files  # one parse per name (it was one per name per run: n² calls)
    assert len(runs) == n
    assert [len(r.members) for r in runs[:11]] == [2] + [1] * 9 + [2]
    assert [r.sidecar is not None for r in runs[:21]] == [True] + [False] * 19 + [True]
    assert runs[0].members[0].path.endswith("run00000.jsonl.1")


# ------------------------------------------------------------------ one long retry chain
def chain_records(n: int, shape: str) -> list[dict[str, Any]]:
    """``n`` spans where span i retries span i-1, written oldest first, newest first, or looped."""
    recs = [tool(f"s{i}", parent_command_id=f"s{i - 1}" if i else None) for i in range(n)]
    if shape == "loop":
        recs[0]["parent_command_id"] = f"s{n - 1}"
    return recs[::-1] if shape == "newest-first" else recs


def chain_index(make_run: Any, n: int, shape: str) -> RunIndex:
    root = make_run({"B.jsonl": chain_records(n, shape)})
    return build_index(runset.open_path(str(root / "B.jsonl"))[0])


def export(ix: RunIndex) -> None:
    out = io.BytesIO()
    assert otlp.write_json([ix], out) == len(ix)
    spans = json.loads(out.getvalue())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert len({s["traceId"] for s in spans}) == 1  # one chain, one trace
    assert sum("links" in s for s in spans) == len(ix.parent_ids)  # each retry links its parent


def tree_per_row(ix: RunIndex) -> None:
    chains = ChainIndex(ix)
    trees = {id(chains.chain(row)) for row in range(len(ix))}
    assert len(trees) == 1  # every row is handed the one tree, built once
    assert chains.chain(0).nodes()[-1].attempt == len(ix)


def root_per_row(ix: RunIndex) -> None:
    chains = ChainIndex(ix)
    assert len({chains.root_of(row) for row in range(len(ix))}) == 1


def groups(ix: RunIndex) -> None:
    assert [len(rows) for rows in ChainIndex(ix).groups().values()] == [len(ix)]


def multi_attempt(ix: RunIndex) -> None:
    assert [len(c.rows()) for c in ChainIndex(ix).multi_attempt_chains()] == [len(ix)]


WALKS: list[tuple[str, str, Callable[[RunIndex], None]]] = [
    ("export", "oldest-first", export),
    ("export-newest-first", "newest-first", export),
    ("export-loop", "loop", export),
    ("tree-per-row", "oldest-first", tree_per_row),
    ("tree-per-row-loop", "loop", tree_per_row),
    ("root-per-row-newest-first", "newest-first", root_per_row),
    ("root-per-row-loop", "loop", root_per_row),
    ("summary-groups-newest-first", "newest-first", groups),
    ("multi-attempt-chains", "oldest-first", multi_attempt),
]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize(("shape", "walk"), [w[1:] for w in WALKS], ids=[w[0] for w in WALKS])
def test_a_long_chain_is_walked_once(
    make_run: Any,
    monkeypatch: pytest.MonkeyPatch,
    n: int,
    shape: str,
    walk: Callable[[RunIndex], None],
) -> None:
    ix = chain_index(make_run, n, shape)
    steps = counting(monkeypatch, ChainIndex, "parent_row")
    nodes = counting(monkeypatch, chains_mod, "ChainNode")
    walk(ix)
    assert steps[0] <= 4 * n  # was n²/2 for the export and a tree per row: a root walk per row
    assert nodes[0] <= 2 * n  # was n² for a tree per row: the whole tree rebuilt per call


# ------------------------------------------------------------------ the caches follow a live run
def p(cid: str, parent: str | None = None) -> dict[str, Any]:
    return tool(cid, parent_command_id=parent)


# (case id, records at first, records appended, id asked, its root before and after, cycle after)
GROWTH: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]], str, str, str, bool]] = [
    ("parent-arrives-late", [p("b", "a"), p("c", "b")], [p("a")], "c", "b", "a", False),
    ("retry-arrives", [p("a"), p("b", "a")], [p("c", "b")], "b", "a", "a", False),
    ("cycle-closes-late", [p("a", "c"), p("b", "a")], [p("c", "b")], "b", "a", "a", True),
    ("unrelated-row", [p("a"), p("b", "a")], [p("x")], "b", "a", "a", False),
]


@pytest.mark.parametrize(
    ("first", "later", "asked", "before", "after", "cycle"),
    [g[1:] for g in GROWTH],
    ids=[g[0] for g in GROWTH],
)
def test_remembered_roots_and_trees_follow_a_growing_index(
    make_run: Any,
    first: list[dict[str, Any]],
    later: list[dict[str, Any]],
    asked: str,
    before: str,
    after: str,
    cycle: bool,
) -> None:
    root = make_run({"B.jsonl": first})
    ix = build_index(runset.open_path(str(root / "B.jsonl"))[0])
    chains = ChainIndex(ix)
    row = ix.id_rows[asked]
    assert chains.root_of(row) == (ix.id_rows[before], False)
    assert ix.ids[chains.chain(row).root.row] == before
    with open(root / "B.jsonl", "ab") as fh:
        fh.write(b"".join(encode_line(r) for r in later))
    ix.index_member(0)
    assert chains.root_of(row) == (ix.id_rows[after], cycle)
    tree = chains.chain(row)
    assert ix.ids[tree.root.row] == after and tree.cycle == cycle
    everyone = {r["command_id"] for r in first + later}
    linked = {c for c in everyone if chains.root_of(ix.id_rows[c])[0] == ix.id_rows[after]}
    assert sorted(ix.ids[r] for r in tree.rows()) == sorted(linked)


@pytest.mark.parametrize("n", SIZES)
def test_an_id_repeated_thousands_of_times_exports_without_scanning_its_rows(
    make_run: Any, n: int
) -> None:
    root = make_run({"B.jsonl": [tool("same") for _ in range(n)]})
    ix = build_index(runset.open_path(str(root / "B.jsonl"))[0])
    scans = [0]

    class Rows(list[int]):
        def index(self, *args: Any) -> int:
            scans[0] += 1  # one scan of the list per row was n²/2 comparisons
            return super().index(*args)

    ix.duplicates["same"] = Rows(ix.duplicates["same"])
    out = io.BytesIO()
    otlp.write_json([ix], out)
    spans = json.loads(out.getvalue())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    keys = ["same"] + [f"same\0{k}" for k in range(1, n)]  # the k-th occurrence of the id
    assert [s["spanId"] for s in spans] == [otlp.span_id(ix.run.name, key) for key in keys]
    assert scans[0] == 0
