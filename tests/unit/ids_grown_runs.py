"""Runs and checks for the tests of a grown run's kept id table (test_ids_grown_*.py)."""

from __future__ import annotations

import os
import random
from pathlib import Path

from cache_runs import OLD
from records import encode_line, tool

from tracetui.store.build import build_index
from tracetui.store.ids import IdTable, keep_owed, table_for
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

ROWS = 120
"""Rows per member of the test runs (three members)."""


def ids_of(shape: str, n: int, rnd: random.Random, start: int = 0) -> list[str | None]:
    hexes = [f"{rnd.getrandbits(32):08x}" for _ in range(n)]
    if shape == "recorder":
        return [f"20261129T2311{i % 60:02d}.{start + i:06d}Z-{h}" for i, h in enumerate(hexes)]
    if shape == "sequential":
        return [f"c{start + i:07d}" for i in range(n)]
    # "mixed": recorder and generated ids, gaps and repeats
    pool: list[str | None] = [None, "", *ids_of("recorder", 8, rnd, start)]
    pool += [f"toolu_{h}{i}" for i, h in enumerate(hexes)]
    return [rnd.choice(pool) for _ in range(n)]


SHAPES = ["recorder", "sequential", "mixed"]


def lines_of(ids: list[str | None]) -> bytes:
    return b"".join(encode_line(tool(cid)) for cid in ids)


def write(path: Path, data: bytes, mtime: int = OLD) -> None:
    path.write_bytes(data)
    os.utime(path, ns=(mtime, mtime))


def make_run(root: Path, shape: str) -> Path:
    """``B.jsonl.2``, ``B.jsonl.1``, ``B.jsonl`` (oldest first), not modified for an hour."""
    root.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(shape)
    base = root / "B.jsonl"
    for number, name in enumerate(["B.jsonl.2", "B.jsonl.1", "B.jsonl"]):
        write(root / name, lines_of(ids_of(shape, ROWS, rnd, start=number * ROWS)))
    return base


def more(base: Path, shape: str, n: int = 7, tag: int = 9) -> bytes:
    return lines_of(ids_of(shape, n, random.Random(tag), start=50 * ROWS + tag * n))


def opened(base: Path, *, follow: bool, settle: bool) -> tuple[RunIndex, IdTable]:
    """The index and its id table as the viewer makes them (``settle=False``: before the
    registry, which is then settled and attached) or as a follower asks (settled first)."""
    index = build_index(open_path(str(base))[0], for_follower=follow)
    table = table_for(index, settle=settle)
    keep_owed(index)  # the viewer keeps a table made afresh once its list is shown
    return index, table


def answers(table: IdTable, asked: list[str | None]) -> list[tuple[str, ...]]:
    return [(table.shown(c), table.cell(c), table.shown_new(c), table.cell_new(c)) for c in asked]


def fields(table: IdTable) -> tuple[object, ...]:
    return (table.rows, table._keys, table._low, table._high, table._shared, table._tail)


def check_fresh(index: RunIndex, table: IdTable) -> None:
    """Every answer of ``table`` is that of a table built from the index's id column."""
    column = index.ids[: len(index)]
    fresh = IdTable(column)
    asked = [*dict.fromkeys(column), "nope", "", None, "c9999999", "toolu_zz"]
    assert answers(table, asked) == answers(fresh, asked)
    assert fields(table) == fields(fresh)
    for query in ["c", "00", "0000001", "2026", "ab", "toolu"]:
        assert table.shown_as_key(query) == fresh.shown_as_key(query)
    assert table.keys_distinct() == fresh.keys_distinct()
