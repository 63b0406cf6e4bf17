"""``resolve`` (``g`` and every ``--id``) through the joined id column gives exactly what the
one-id-at-a-time resolver gave: the same row, the same message, candidates in the same order.

The reference below is the resolver as it was before ``store/id_search.py``."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest
from records import tool

from tracetui.store import id_search
from tracetui.store.build import build_index
from tracetui.store.ids import CANDIDATES, IdError, IdNotFound, IdTable, plain, resolve, table_for
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

STAMP = "20261129T231150.848677Z-"


def reference(indexes: Sequence[RunIndex], ident: str) -> tuple[RunIndex, int]:
    """The resolver before the joined column (one Python step per id)."""

    def candidate(table: IdTable, cid: str) -> str:
        shown, whole = table.shown(cid), plain(cid)
        return whole if shown == whole else f"{shown} ({whole})"

    ident = ident.strip()
    if not ident:
        raise IdError("empty id")
    quoted = repr(plain(ident))
    exact = [(ix, ix.id_rows[ident]) for ix in indexes if ident in ix.id_rows]
    if len(exact) > 1:
        names = ", ".join(plain(ix.run.name) for ix, _ in exact)
        raise IdError(f"id {quoted} is in several runs: {names}")
    if exact:
        return exact[0]
    query = ident.strip("…") or ident
    found: list[tuple[RunIndex, str, int]] = []
    for ix in indexes:
        seen: set[str] = set()
        for row, cid in enumerate(ix.ids[: len(ix)]):
            if cid and cid not in seen and query in plain(cid):
                seen.add(cid)
                found.append((ix, cid, row))
    tables = {id(ix): table_for(ix) for ix in indexes}
    stages = (
        [f for f in found if plain(f[1]) == query],
        [f for f in found if tables[id(f[0])].shown(f[1]).strip("…") == query],
        [f for f in found if plain(f[1]).startswith(query)],
        found,
    )
    for hits in stages:
        if len(hits) == 1:
            return hits[0][0], hits[0][2]
        if hits:
            listed = sorted(candidate(tables[id(ix)], cid) for ix, cid, _ in hits)
            more = f" (and {len(listed) - CANDIDATES} more)" if len(listed) > CANDIDATES else ""
            raise IdError(f"id {quoted} is ambiguous: {', '.join(listed[:CANDIDATES])}{more}")
    raise IdNotFound(f"no span with id {quoted}")


def outcome(
    how: object, indexes: Sequence[RunIndex], ident: str
) -> tuple[str, int | str, int | None]:
    """What a resolver answered: the index's place and row, or the error's kind and text."""
    try:
        ix, row = how(indexes, ident)  # type: ignore[operator]
    except IdError as exc:
        return type(exc).__name__, str(exc), None
    return "found", [id(i) for i in indexes].index(id(ix)), row


def index_of(tmp_path: Path, ids: Sequence[str | None], name: str) -> RunIndex:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "trace.jsonl").write_text("".join(json.dumps(tool(c)) + "\n" for c in ids))
    return build_index(open_path(str(folder / "trace.jsonl"))[0])


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def columns() -> dict[str, list[str | None]]:
    rng = random.Random(18)
    recorder = [STAMP + _hex(rng, 8) for _ in range(400)]
    generated = [f"c{i:07d}" for i in range(3000)]
    hostile = [
        "a\x1bb",
        "a␛b",
        "x\ny",
        "tab\there",
        "…dots…",
        "…",
        "two words",
        "two",
        "\u202eevil",
        "café-0001",
        "c0000001…",
        "",
        None,
        "dup",
        "dup",
        "a\x1bb",
        "\udcff",
    ]
    mixed = recorder[:50] + generated[:50] + hostile + [None, ""] * 5
    rng.shuffle(mixed)
    repeated = [f"r{rng.randrange(60):03d}" for _ in range(500)] + [None] * 20
    rng.shuffle(repeated)
    spaced = [f"id {i:05d} x" for i in range(2500)]
    same_key = [STAMP + "1b5a45f2", "20261201T084400.000001Z-1b5a45f2", *recorder[:100]]
    return {
        "recorder": recorder,
        "generated": generated,
        "hostile": hostile,
        "mixed": mixed,
        "repeated": repeated,
        "spaced": spaced,
        "same-key": same_key,
    }


def queries(ids: Sequence[str | None], rng: random.Random) -> list[str]:
    """Whole ids, shown and clipped forms, parts of ids, hostile strings and nothing at all."""
    real = [c for c in ids if c]
    picked = rng.sample(real, min(12, len(real)))
    asked = ["", "  ", "zzzz", "…", "……", "\n", "a\nb", "\x1b", "␛", " ", "0", "c", "c0", "-"]
    asked += ["00", "0000", "1b5a", "dup", "two", "x", "…dots", "e0", "\udcff", "\\udcff"]
    for cid in picked:
        text = plain(cid)
        asked += [cid, text, text[1:], text[:-1], text[2:6], text[-4:], text[: len(text) // 2]]
    return asked


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunIndex]:
    base = tmp_path_factory.mktemp("stall_resolve")
    return {name: index_of(base, ids, name) for name, ids in columns().items()}


PATHS = [
    ("find", id_search.SPARSE, id_search.STEP),
    ("per-id", 0, id_search.STEP),
    ("per-id-in-steps-of-7", 0, 7),
]


@pytest.mark.parametrize("name", list(columns()))
@pytest.mark.parametrize(("sparse", "step"), [p[1:] for p in PATHS], ids=[p[0] for p in PATHS])
def test_same_answers_as_the_reference(
    runs: dict[str, RunIndex], name: str, sparse: int, step: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(id_search, "SPARSE", sparse)
    monkeypatch.setattr(id_search, "STEP", step)
    ix = runs[name]
    table = table_for(ix)
    asked = queries(ix.ids, random.Random(name))
    asked += [table.shown(c) for c in ix.ids[:40]] + [table.cell(c) for c in ix.ids[:40]]
    for ident in asked:
        assert outcome(resolve, [ix], ident) == outcome(reference, [ix], ident), ident


@pytest.mark.parametrize("names", [("recorder", "generated"), ("mixed", "hostile", "mixed")])
def test_same_answers_across_runs(runs: dict[str, RunIndex], names: tuple[str, ...]) -> None:
    indexes = [runs[n] for n in names]
    rng = random.Random(" ".join(names))
    for ident in queries([c for ix in indexes for c in ix.ids], rng):
        assert outcome(resolve, indexes, ident) == outcome(reference, indexes, ident), ident


def test_many_hits_list_the_smallest(runs: dict[str, RunIndex]) -> None:
    """A part of every id lists the first five of its thousands of candidates."""
    ix = runs["generated"]
    with pytest.raises(IdError) as err:
        resolve([ix], "c")
    assert str(err.value) == (
        "id 'c' is ambiguous: 0000 (c0000000), 0001 (c0000001), 0002 (c0000002), "
        "0003 (c0000003), 0004 (c0000004) (and 2995 more)"
    )


ROW_CASES = [
    ("no-empty-rows", ["a1", "b2", "a3"], "3", 2),
    ("empty-first", [None, "", "a1", "b2"], "b2x"[:2], 3),
    ("empty-between", ["a1", None, "b2", "", None, "c3"], "c", 5),
    ("repeat-first-row", ["q1", None, "z9", "q1"], "q", 0),
]


@pytest.mark.parametrize(
    ("ids", "query", "row"), [c[1:] for c in ROW_CASES], ids=[c[0] for c in ROW_CASES]
)
@pytest.mark.parametrize(("sparse", "step"), [p[1:] for p in PATHS], ids=[p[0] for p in PATHS])
def test_rows_past_rows_without_an_id(
    ids: list[str | None],
    query: str,
    row: int,
    sparse: int,
    step: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(id_search, "SPARSE", sparse)
    monkeypatch.setattr(id_search, "STEP", step)
    column = id_search.column(ids)
    found = column.found(query, None)
    assert found[0][2] == row and ids[row] == found[0][1]
