"""The index's command-id registry, filled lazily (tracetui/store/id_registry.py), and the
locations of an imported trace's rows kept at conversion (RunIndex.source_lines): both give
exactly what registering every row at once, and parsing every row, gave."""

from __future__ import annotations

import random
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cache_runs import cold, private_cache, spy_reads, state, warm, write
from records import encode_line, tool

from tracetui import importers
from tracetui.importers._common import record_line
from tracetui.store import build, cache, cache_parts, fastindex
from tracetui.store.build import build_index
from tracetui.store.id_registry import IdRegistry
from tracetui.store.index import RunIndex
from tracetui.store.reader import RawLine
from tracetui.store.runset import open_path

AGENTS = Path(__file__).resolve().parent.parent / "data" / "agents"


def reference(ids: list[str | None]) -> tuple[dict[str, int], dict[str, list[int]]]:
    """First row of each id and every row of a repeated one, one row at a time."""
    first: dict[str, int] = {}
    dups: dict[str, list[int]] = {}
    for row, cid in enumerate(ids):
        if cid is None:
            continue
        if cid in first:
            dups.setdefault(cid, [first[cid]]).append(row)
        else:
            first[cid] = row
    return first, dups


def id_column(shape: str, n: int, seed: int) -> list[str | None]:
    rnd = random.Random(seed)
    if shape == "unique":
        return [f"c{i:06d}" for i in range(n)]
    if shape == "with-none":
        return [None if rnd.random() < 0.2 else f"c{i:06d}" for i in range(n)]
    if shape == "repeats":
        return [f"c{rnd.randrange(n // 3):06d}" for _ in range(n)]
    return [rnd.choice([None, "", "a", "b", f"c{i}"]) for i in range(n)]  # "hostile"


SHAPES = ["unique", "with-none", "repeats", "hostile"]


# ------------------------------------------------------------------ the registry by itself
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_owing_then_settling_in_any_steps_equals_one_pass(shape: str, seed: int) -> None:
    ids = id_column(shape, 600, seed)
    rnd = random.Random(seed)
    reg = IdRegistry()
    at = 0
    while at < len(ids):
        stop = min(len(ids), at + rnd.choice([1, 5, 70, 200]))
        if rnd.random() < 0.5 and reg.owe(at, stop):
            pass  # owed: taken in when the registry is next settled
        else:
            reg.settle(ids)
            reg.add(ids[at:stop], at)
        at = stop
        if rnd.random() < 0.2:
            reg.settle(ids)
    reg.settle(ids)
    assert (reg.rows, reg.duplicates) == reference(ids)
    assert reg.upto == reg.wanted == len(ids)


@pytest.mark.parametrize(
    ("start", "stop", "owed"),
    [(0, 10, True), (3, 10, False), (0, -1, False)],
    ids=["follows-on", "gap", "backwards"],
)
def test_only_rows_that_follow_on_are_owed(start: int, stop: int, owed: bool) -> None:
    reg = IdRegistry()
    assert reg.owe(start, stop) is owed
    assert reg.wanted == (stop if owed else 0)


# ------------------------------------------------------------------ through a built index
def _write_run(root: Path, shape: str, seed: int) -> Path:
    """Two members of 300 spans each, ids of ``shape``, one bad line in the older member."""
    ids = id_column(shape, 600, seed)
    root.mkdir(parents=True, exist_ok=True)
    old = b"".join(encode_line(tool(cid)) for cid in ids[:300]) + b"{not json\n"
    (root / "r.jsonl.1").write_bytes(old)
    (root / "r.jsonl").write_bytes(b"".join(encode_line(tool(cid)) for cid in ids[300:]))
    return root / "r.jsonl"


@pytest.fixture
def no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "_off", True)


@pytest.mark.parametrize("shape", SHAPES)
def test_a_built_index_registers_what_one_pass_over_its_rows_gives(
    tmp_path: Path, no_cache: None, shape: str
) -> None:
    ix = build_index(open_path(str(_write_run(tmp_path, shape, 7)))[0])
    assert len(ix) == 601
    assert (ix.id_rows, ix.duplicates) == reference(ix.ids)


@pytest.mark.parametrize("read_first", [True, False], ids=["read-between", "never-read"])
@pytest.mark.parametrize("shape", SHAPES)
def test_rows_added_after_a_build_are_registered_after_its_rows(
    tmp_path: Path, no_cache: None, shape: str, read_first: bool
) -> None:
    ix = build_index(open_path(str(_write_run(tmp_path, shape, 9)))[0])
    if read_first:
        assert ix.id_rows is not None  # settles the build's owed rows now
    # A follower's few rows, one of them repeating an id of the build's first row when it has one.
    again = ix.ids[0] if ix.ids[0] is not None else "late"
    offset = 10**6
    for k, cid in enumerate([again, "late", None, again]):
        raw = encode_line(tool(cid))
        ix.add_line(1, RawLine(10**4 + k, offset, len(raw), raw))
        offset += len(raw)
    assert (ix.id_rows, ix.duplicates) == reference(ix.ids)


def test_rows_appended_unregistered_stay_out_until_registered(
    tmp_path: Path, no_cache: None
) -> None:
    base = _write_run(tmp_path, "unique", 3)
    ix = RunIndex(open_path(str(base))[0])
    mno = ix.add_member(ix.run.members[0])
    if not fastindex.available():
        pytest.skip("the C scanner makes the batches appended unregistered")
    ix.append(mno, fastindex.scan_member(ix.members[mno].readable, 0, 0), register=False)
    assert ix.id_rows == {} and ix.duplicates == {}
    ix.register_all(0)
    assert (ix.id_rows, ix.duplicates) == reference(ix.ids)


# ------------------------------------------------------------------ an import's locations
IMPORTS = sorted(
    p.name for p in AGENTS.iterdir() if p.name not in ("not_a_trace.txt",) and p.suffix != ".py"
)


def _both_ways(ix: RunIndex) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    kept = [ix.location(row) for row in range(len(ix))]
    ix.source_lines = None  # the reference: each row parsed for its record's line
    parsed = [ix.location(row) for row in range(len(ix))]
    return kept, parsed


@pytest.mark.parametrize("name", IMPORTS)
def test_an_imports_kept_locations_are_those_its_rows_give(name: str, no_cache: None) -> None:
    runs = open_path(str(AGENTS / name))
    for run in runs:
        ix = build_index(run)
        if run.source_format is None:
            assert ix.source_lines is None
            continue
        assert ix.source_lines is not None
        kept, parsed = _both_ways(ix)
        assert kept == parsed


ODD_WHERE: list[dict[str, Any]] = [
    {"source_line": 7},
    {"source_line": 0, "source_index": 3},
    {"source_line": None, "source_index": 4},
    {"source_line": True, "source_index": 5},
    {"source_line": "8"},
    {"source_line": 2.0},
    {"source_line": -3},
    {"source_index": False},
    {"source_line": 2**40},
    {},
]


def test_odd_source_lines_are_read_as_the_parsed_rows_read_them(
    tmp_path: Path, no_cache: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = open_path(str(AGENTS / "claude_session.jsonl"))[0]
    assert run.source_format is not None
    records = [
        {**tool(f"x{k}"), "schema": "import/claude-code", **w} for k, w in enumerate(ODD_WHERE)
    ]

    def convert_lines(path: str, fmt: str) -> Iterator[tuple[dict[str, Any], bytes]]:
        for record in records:
            yield record_line(record)

    monkeypatch.setattr(importers, "convert_lines", convert_lines)
    ix = build._build(run, None, None, [])
    assert len(ix) == len(records)
    kept, parsed = _both_ways(ix)
    assert kept == parsed
    assert [line for _path, line in kept][:3] == [7, 3, 4]


# ------------------------------------------------------------------ parent links in a cache part
def _by_stretch_one_by_one(
    stops: list[int], rows: list[int], parents: list[str]
) -> list[list[tuple[int, str]]]:
    """The reference: each link put in its stretch one at a time (as before the row arrays)."""
    out: list[list[tuple[int, str]]] = [[] for _ in range(len(stops) + 1)]
    for row, pid in zip(rows, parents, strict=True):
        seg = bisect_left(stops, row)
        out[seg].append((row - (stops[seg - 1] + 1 if seg else 0), pid))
    return out


@pytest.mark.parametrize("order", ["sorted", "shuffled"])
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_links_stored_by_stretch_come_back_as_one_by_one(order: str, seed: int) -> None:
    rnd = random.Random(seed)
    total = 300
    stops = sorted(rnd.sample(range(total), rnd.choice([0, 1, 5, 40])))
    rows = [r for r in range(total) if r not in stops and rnd.random() < 0.4]
    if order == "shuffled":
        rnd.shuffle(rows)
    parents = [f"p{r}" for r in rows]
    stretches = cache_parts._by_stretch(stops, list(zip(rows, parents, strict=True)))
    flat = [row for links in stretches for row, _pid in links]
    got = cache_parts._stretch_links(
        [len(links) for links in stretches],
        [0, *(k + 1 for k in stops)],
        array("i", flat),
        [pid for links in stretches for _row, pid in links],
    )
    assert got == _by_stretch_one_by_one(stops, rows, parents)


@pytest.mark.parametrize("escaped", [False, True], ids=["plain-ids", "escaped-ids"])
def test_a_member_with_bad_lines_between_retries_comes_back_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, escaped: bool
) -> None:
    # Escaped ids make the scanner hand their rows back as slow rows, linked after the rest of
    # their batch: the links are then not in row order.
    private_cache(tmp_path, monkeypatch)
    root = tmp_path / "run"
    root.mkdir()
    body = b""
    last = ""
    mark = "\u00e9" if escaped else ""
    for i in range(30):
        name = f"c{i:04d}{mark if i % 4 == 1 else ''}"
        fields: dict[str, Any] = {"parent_command_id": last} if i % 3 else {}
        body += encode_line(tool(name, **fields))
        last = name
        if i % 7 == 3:
            body += b"{not json\n"
    write(root / "B.jsonl", body)
    base = root / "B.jsonl"
    warm(base)
    reads = spy_reads(monkeypatch)
    got = warm(base)
    assert reads == []  # every row restored from the entry
    assert len(got.bad) == 4 and len(got.links()) == 20
    assert state(got) == state(cold(base))


class _Links:
    """Just what cache._links_by_member reads of an index."""

    def __init__(self, member_no: list[int], links: list[tuple[int, str]]) -> None:
        self.member_no = array("H", member_no)
        self._links = links

    def links(self) -> list[tuple[int, str]]:
        return list(self._links)


@pytest.mark.parametrize("order", ["member-after-member", "mixed", "none"])
def test_links_are_split_by_member_as_one_by_one(order: str) -> None:
    rnd = random.Random(5)
    member_no = sorted(rnd.randrange(4) for _ in range(200))
    rows = [] if order == "none" else sorted(rnd.sample(range(200), 60))
    if order == "mixed":
        rnd.shuffle(rows)
    links = [(row, f"p{row}") for row in rows]
    expected: dict[int, tuple[list[int], list[str]]] = {}
    for row, pid in links:
        got = expected.setdefault(member_no[row], ([], []))
        got[0].append(row)
        got[1].append(pid)
    assert cache._links_by_member(_Links(member_no, links)) == expected  # type: ignore[arg-type]


# ------------------------------------------------------------------ parent ids while rows are owed
def _linked_run(root: Path, shape: str, seed: int) -> Path:
    """Two members whose spans name parents: earlier ids, ids in no row, repeats, nothing."""
    rnd = random.Random(seed)
    ids = id_column(shape, 400, seed)
    named = [c for c in ids if c] or ["only"]
    lines = []
    for cid in ids:
        parent = rnd.choice([None, rnd.choice(named), "gone", f"gone{rnd.randrange(9)}"])
        lines.append(encode_line(tool(cid, parent_command_id=parent)))
    root.mkdir(parents=True, exist_ok=True)
    (root / "r.jsonl.1").write_bytes(b"".join(lines[:200]))
    (root / "r.jsonl").write_bytes(b"".join(lines[200:]))
    return root / "r.jsonl"


@pytest.mark.parametrize("shape", SHAPES)
def test_parent_ids_are_answered_as_the_settled_registry_answers_them(
    tmp_path: Path, no_cache: None, shape: str
) -> None:
    if not fastindex.available():
        pytest.skip("a line-by-line build registers every row at once")
    ix = build_index(open_path(str(_linked_run(tmp_path, shape, 11)))[0])
    first, _dups = reference(ix.ids)
    asked = sorted(set(ix.parent_ids.values()))
    view = ix.id_rows
    got = [(view.get(p), p in view) for p in asked]
    assert ix._ids.upto < ix._ids.wanted  # parent ids alone did not settle the registry
    assert got == [(first.get(p), p in first) for p in asked]
    with pytest.raises(KeyError):
        view["gone"] if "gone" in asked else view["no such id"]
    # Any other id settles it, and every answer is still the one-pass reference.
    others = ["no such id", *(c for c in ix.ids[:50] if c)]
    assert [(view.get(c), c in view) for c in others] == [
        (first.get(c), c in first) for c in others
    ]
    assert ix._ids.upto == ix._ids.wanted
    assert ix.id_rows == first and ix.duplicates == _dups
    assert isinstance(ix.id_rows, dict)
