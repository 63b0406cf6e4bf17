"""The id table restored from the cache (tracetui/store/ids_kept.py) shows every id exactly as a
table built from the id column does: restored at any row, then taken on in steps as a live
follower does, with the registry even ahead of it; and a kept file that does not check out is
never used."""

from __future__ import annotations

import itertools
import os
import random
import uuid
from pathlib import Path

import pytest
from cache_runs import OLD, private_cache
from records import encode_line, tool

from tracetui.store import ids_kept
from tracetui.store.build import build_index
from tracetui.store.id_registry import IdRegistry
from tracetui.store.ids import IdTable, table_for
from tracetui.store.ids_kept import RegistryTable, from_registry, kept_of
from tracetui.store.runset import open_path

Column = list[str | None]


def column(shape: str, n: int, rnd: random.Random) -> Column:
    hexes = [f"{rnd.getrandbits(32):08x}" for _ in range(n)]
    if shape == "uuid":
        return [str(uuid.UUID(int=rnd.getrandbits(128))) for _ in range(n)]
    if shape == "recorder":
        return [f"20261129T2311{i % 60:02d}.{i:06d}Z-{h}" for i, h in enumerate(hexes)]
    if shape == "sequential":
        return [f"c{i:08d}" for i in range(n)]
    if shape == "shared-prefix":  # long common start, differing late
        return [f"toolu_01AAAAAAAAAAAA{h[: 1 + i % 8]}" for i, h in enumerate(hexes)]
    if shape == "shared-ending":
        return [f"c{i:04d}-long-id" for i in range(n)]
    if shape == "short":
        return [rnd.choice(["a", "ab", "abc", "x1", "abcd", "abcde", None, ""]) for _ in range(n)]
    if shape == "duplicates":
        pool = [f"d{rnd.randint(0, 30):03d}" for _ in range(40)]
        return [rnd.choice(pool) for _ in range(n)]
    if shape == "non-ascii":
        return [f"ïd-{h[:5]}-\u202e{i % 7}\x1b" for i, h in enumerate(hexes)]
    if shape == "empty":
        return [rnd.choice([None, ""]) for _ in range(n)]
    pool = [  # "mixed": every kind, repeats and gaps
        *column("uuid", n // 5, rnd),
        *column("recorder", n // 5, rnd),
        *column("sequential", n // 5, rnd),
        *column("short", n // 10, rnd),
        *column("non-ascii", n // 10, rnd),
    ]
    return [rnd.choice(pool) for _ in range(n)]


SHAPES = [
    "uuid",
    "recorder",
    "sequential",
    "shared-prefix",
    "shared-ending",
    "short",
    "duplicates",
    "non-ascii",
    "empty",
    "mixed",
]


def answers(table: IdTable, asked: list[str | None]) -> list[tuple[str, str, str, str]]:
    return [(table.shown(c), table.cell(c), table.shown_new(c), table.cell_new(c)) for c in asked]


def registry_first(ids: Column, upto: int) -> dict[str, int]:
    """The registry an index holds after registering rows ``0 … upto``."""
    reg = IdRegistry()
    reg.add(ids[:upto], 0)
    return reg.rows


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", [1, 2])
def test_restored_table_answers_as_a_built_one(shape: str, seed: int) -> None:
    rnd = random.Random(seed)
    n = 400
    ids = column(shape, n, rnd)
    strangers: list[str | None] = [*column(shape, 20, random.Random(seed + 99)), "zz", "", None]
    asked = [*dict.fromkeys(ids), *strangers]
    at = rnd.randint(0, n // 2)  # the row the table was kept at
    cuts = sorted({at, *rnd.sample(range(at, n + 1), 4), n})
    built = IdTable(ids[:at])
    kept = kept_of(built)
    # The index registers rows as they are committed, ahead of the table (a follower's rows).
    first = registry_first(ids, cuts[1] if len(cuts) > 1 else at)
    restored = RegistryTable(ids, first, kept)
    assert answers(restored, asked) == answers(built, asked)
    for start, stop in itertools.pairwise(cuts):
        reg = IdRegistry()
        reg.add(ids[:stop], 0)
        first.update(reg.rows)  # the same dict, grown, as the index's registry is
        built.extend(ids[start:stop])
        restored.extend(ids[start:stop])
        assert restored.rows == built.rows == stop
        assert answers(restored, asked) == answers(built, asked)
        assert restored._keys == built._keys


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("ahead", [0, 7], ids=["registry-at-n", "registry-ahead"])
def test_a_table_made_from_the_registry_answers_as_one_built_from_the_column(
    shape: str, ahead: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ids_kept, "KEEP_FROM", 1)
    rnd = random.Random(len(shape))
    ids = column(shape, 300, rnd)
    n = len(ids) - ahead
    first = registry_first(ids, len(ids))
    made = from_registry(ids, first, n)
    if max(first.values(), default=0) >= n or not first.keys() - {""}:
        assert made is None  # ids of rows past n in the registry, or none at all: not used
        return
    assert made is not None
    built = IdTable(ids[:n])
    asked = [*dict.fromkeys(ids), "nope", None]
    assert answers(made, asked) == answers(built, asked)
    assert made._keys == built._keys and kept_of(made) == kept_of(built)


# (case id, ids kept, ids that come later: one moves the shared prefix, so the table rebuilds)
REBUILDS: list[tuple[str, Column, Column]] = [
    ("prefix-moves", [f"c{i:06d}" for i in range(50)], ["x123456", "c000001"]),
    ("ending-moves", [f"c{i:04d}-long-id" for i in range(50)], ["c9999-short"]),
    (
        "first-other-after-recorder-ids",
        [f"20261129T231150.{i:06d}Z-{i:08x}" for i in range(50)],
        ["c1"],
    ),
    (
        "recorder-after-others",
        [f"c{i:04d}" for i in range(50)],
        ["20261129T231150.000001Z-abcdef12"],
    ),
]


@pytest.mark.parametrize(("early", "late"), [c[1:] for c in REBUILDS], ids=[c[0] for c in REBUILDS])
def test_restored_table_rebuilds_as_a_built_one(early: Column, late: Column) -> None:
    ids = early + late
    built = IdTable(early)
    restored = RegistryTable(ids, registry_first(ids, len(ids)), kept_of(built))
    asked = [*ids, "nope"]
    for row in range(len(early), len(ids)):  # one row at a time, as a follower brings them
        built.extend(ids[row : row + 1])
        restored.extend(ids[row : row + 1])
        assert answers(restored, asked) == answers(built, asked)


# ------------------------------------------------------------------ kept with the run's cache
def ids_run(root: Path, n: int) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    rnd = random.Random(n)
    path = root / "B.jsonl"
    path.write_bytes(b"".join(encode_line(tool(cid)) for cid in column("mixed", n, rnd)))
    os.utime(path, ns=(OLD, OLD))  # not racy: the cache trusts it
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(ids_kept, "KEEP_FROM", 10)
    return private_cache(tmp_path, monkeypatch)


def open_table(path: Path) -> tuple[IdTable, list[str | None]]:
    index = build_index(open_path(str(path))[0])
    return table_for(index), list(index.ids)


def kept_file(home: Path) -> Path:
    found = list(home.glob("*.ids"))
    assert len(found) == 1
    return found[0]


def test_warm_open_restores_the_table_kept_by_the_cold_one(home: Path, tmp_path: Path) -> None:
    path = ids_run(tmp_path / "run", 300)
    cold, ids = open_table(path)
    assert type(cold) is RegistryTable and kept_file(home).stat().st_size > 0
    warm, _ = open_table(path)
    assert type(warm) is RegistryTable and warm._owed_rows == len(ids)  # restored
    asked = [*dict.fromkeys(ids), "nope", None]
    assert answers(warm, asked) == answers(cold, asked)


def test_small_runs_keep_nothing(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ids_kept, "KEEP_FROM", 10_000)
    open_table(ids_run(tmp_path / "run", 100))
    assert list(home.glob("*.ids")) == []


def swap_keys(data: bytes) -> bytes:
    """The first and last keys swapped (the two header lines kept)."""
    head, fields, keys = data.split(b"\n", 2)
    parts = keys.split(b"\n")
    parts[0], parts[-1] = parts[-1], parts[0]
    return b"\n".join([head, fields, *parts])


# (case id, how the kept file is spoiled)
SPOILED = [
    ("keys-out-of-order", swap_keys),
    ("a-key-missing", lambda d: d.rsplit(b"\n", 1)[0]),
    ("truncated", lambda d: d[: len(d) // 2]),
    ("empty", lambda d: b""),
    ("not-json", lambda d: b"{nope" + d[d.index(b"\n") :]),
    (  # of other files whose rows differ (the same rows: test_ids_grown_*.py)
        "other-state-and-rows",
        lambda d: d.replace(b'"state":"', b'"state":"0', 1).replace(b'"layout":', b'"layout":1', 1),
    ),
    ("fields-not-json", lambda d: d.split(b"\n", 1)[0] + b"\n{nope\n" + d.split(b"\n", 2)[2]),
    ("rows-off-by-one", lambda d: spoil_field(d, b'"rows":', 1)),
    ("shared-off-by-one", lambda d: spoil_field(d, b'"shared":', 1)),
    ("others-negative", lambda d: spoil_field(d, b'"others":', -(10**6))),
    ("not-utf8", lambda d: d + b"\xff\xfe"),
]


def spoil_field(data: bytes, name: bytes, by: int) -> bytes:
    at = data.index(name) + len(name)
    end = at
    while data[end : end + 1].isdigit():
        end += 1
    return data[:at] + str(int(data[at:end]) + by).encode() + data[end:]


@pytest.mark.parametrize("spoil", [c[1] for c in SPOILED], ids=[c[0] for c in SPOILED])
def test_a_kept_file_that_does_not_check_out_is_not_used(
    home: Path, tmp_path: Path, spoil: object
) -> None:
    path = ids_run(tmp_path / "run", 300)
    cold, ids = open_table(path)
    kept = kept_file(home)
    good = kept.read_bytes()
    bad = spoil(good)  # type: ignore[operator]
    assert bad != good
    kept.write_bytes(bad)
    warm, _ = open_table(path)
    assert type(warm) is RegistryTable and warm._owed_rows == 0  # built again (and kept again)
    asked = [*dict.fromkeys(ids), "nope", None]
    assert answers(warm, asked) == answers(cold, asked)
    assert kept.read_bytes() == good
