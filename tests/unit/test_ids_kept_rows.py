"""The rows of a kept id table's keys (tracetui/store/ids_rows.py): found exactly, answering
whether an id is one of the run's as a table built from the id column does, and a kept file
whose rows do not check out (damaged, truncated, reordered, of the wrong count, pointing
elsewhere, of an older form) refused: the table is built again, answers as a fresh one and is
kept again. Each on the C scanner's road and without it (``TRACETUI_NO_C``)."""

from __future__ import annotations

import os
import random
import zlib
from array import array
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from cache_runs import OLD, private_cache
from records import encode_line, tool

from tracetui.store import ids_kept, ids_rows
from tracetui.store.build import build_index
from tracetui.store.ids import IdTable, keep_owed, table_for
from tracetui.store.ids_kept import RegistryTable, kept_of
from tracetui.store.ids_table import plain
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

Column = list[str | None]


def column(shape: str, n: int, rnd: random.Random) -> Column:
    hexes = [f"{rnd.getrandbits(32):08x}" for _ in range(n)]
    if shape == "recorder":
        return [f"20261129T2311{i % 60:02d}.{i:06d}Z-{h}" for i, h in enumerate(hexes)]
    if shape == "sequential":
        return [f"c{i:08d}" for i in range(n)]
    if shape == "one-key-twice":  # two ids of one key: both shown whole
        return [*[f"c{i:04d}-long-id" for i in range(n)], "xc0007-long-id"]
    if shape == "non-ascii":
        return [f"ïd-{h[:5]}-\u202e{i % 7}\x1b" for i, h in enumerate(hexes)]
    pool = [  # "mixed": kinds, repeats, gaps
        *[f"20261129T231150.{i:06d}Z-{h}" for i, h in enumerate(hexes[: n // 3])],
        *[f"toolu_01{h}" for h in hexes[n // 3 : 2 * n // 3]],
        None,
        "",
        "ab",
    ]
    return [rnd.choice(pool) for _ in range(n)]


SHAPES = ["recorder", "sequential", "one-key-twice", "non-ascii", "mixed"]


def answers(table: IdTable, asked: list[str | None]) -> list[tuple[str, ...]]:
    return [(table.shown(c), table.cell(c), table.shown_new(c), table.cell_new(c)) for c in asked]


def first_rows_of(ids: Column) -> dict[str, int]:
    first: dict[str, int] = {}
    for row, cid in enumerate(ids):
        if cid:
            first.setdefault(cid, row)
    return first


# ------------------------------------------------------------------ the rows, found
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("order", ["rows", "backwards", "shuffled"])
def test_each_key_gets_the_first_row_of_its_id(shape: str, order: str) -> None:
    rnd = random.Random(len(shape))
    ids = column(shape, 300, rnd)
    built = IdTable(ids)
    kept = kept_of(built)
    first = list(first_rows_of(ids).items())
    if order == "backwards":
        first.reverse()
    elif order == "shuffled":
        rnd.shuffle(first)
    keyer = ids_kept._keyer(kept.shared, kept.tail)
    rows_of = ids_rows.rows_of_keys(kept.keys, dict(first), len(ids), keyer.keys_of, plain)
    assert rows_of is not None and len(rows_of) == len(kept.keys)
    firsts = set(first_rows_of(ids).values())
    for key, row in zip(kept.keys, rows_of, strict=True):
        cid = ids[row]
        assert cid and row in firsts and keyer.key(cid) == key
    assert sorted(rows_of) == sorted(firsts)  # every id once
    # the same from the id column, a follower's later ids left out
    grown = [*ids, "c99999999", ids[3]]
    again = ids_rows.rows_of_keys(
        kept.keys, ids_rows.first_rows(grown, len(ids)), len(ids), keyer.keys_of, plain
    )
    assert again is not None and sorted(again) == sorted(rows_of)
    straight = ids_rows.rows_from_column(kept.keys, grown, len(ids), keyer.keys_of, plain)
    assert straight is not None and sorted(straight) == sorted(rows_of)
    if built.keys_distinct():  # one id per key: the very same rows
        assert straight == rows_of


def test_rows_that_are_not_of_the_keys_are_not_found() -> None:
    ids: Column = [f"c{i:06d}" for i in range(100)]
    kept = kept_of(IdTable(ids))
    keyer = ids_kept._keyer(kept.shared, kept.tail)
    find = ids_rows.rows_of_keys
    assert find(kept.keys, first_rows_of(ids[:99]), 100, keyer.keys_of, plain) is None
    other = first_rows_of([*ids[:99], "c999999"])
    assert find(kept.keys, other, 100, keyer.keys_of, plain) is None


@pytest.mark.parametrize("shape", SHAPES)
def test_kept_rows_answer_whether_an_id_is_of_the_run(shape: str) -> None:
    rnd = random.Random(7)
    ids = column(shape, 300, rnd)
    at = 200
    built = IdTable(ids[:at])
    kept = kept_of(built, copy=True)  # (as read from a file: not the list built goes on with)
    keyer = ids_kept._keyer(kept.shared, kept.tail)
    rows_of = ids_rows.rows_of_keys(kept.keys, first_rows_of(ids[:at]), at, keyer.keys_of, plain)
    assert rows_of is not None
    with_rows = ids_kept.KeptTable(**{**_fields(kept), "rows_of": rows_of})  # type: ignore[arg-type]
    table = RegistryTable(ids, {}, with_rows, by_rows=True)
    strangers: Column = [*column(shape, 20, random.Random(99)), "zz", "", None]
    asked = [*dict.fromkeys(ids), *strangers]
    assert table.unattached
    assert answers(table, asked) == answers(built, asked)
    table.extend(ids[at:])  # a follower's rows, taken in with the kept rows
    built.extend(ids[at:])
    assert answers(table, asked) == answers(built, asked) and table._keys == built._keys
    table.attach(first_rows_of(ids))
    assert not table.unattached and answers(table, asked) == answers(built, asked)


def _fields(kept: ids_kept.KeptTable) -> dict[str, object]:
    return {f: getattr(kept, f) for f in ids_kept.KeptTable.__dataclass_fields__}


# ------------------------------------------------------------------ kept with the run's cache
@pytest.fixture(params=["c", "no-c"])
def home(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(ids_kept, "KEEP_FROM", 10)
    if request.param == "no-c":
        monkeypatch.setenv("TRACETUI_NO_C", "1")
    else:
        monkeypatch.delenv("TRACETUI_NO_C", raising=False)
    return private_cache(tmp_path, monkeypatch)


def ids_run(root: Path, shape: str, n: int = 300) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / "B.jsonl"
    ids = column(shape, n, random.Random(n))
    path.write_bytes(b"".join(encode_line(tool(cid)) for cid in ids))
    os.utime(path, ns=(OLD, OLD))  # not racy: the cache trusts it
    return path


def warm_open(path: Path) -> tuple[RunIndex, IdTable]:
    """As the viewer opens a run: the table before the registry, then the owed keep."""
    index = build_index(open_path(str(path))[0])
    table = table_for(index, settle=False)
    keep_owed(index)
    return index, table


def kept_file(home: Path) -> Path:
    found = list(home.glob("*.ids"))
    assert len(found) == 1
    return found[0]


def parts(data: bytes) -> tuple[bytes, dict[str, object], bytes, bytes]:
    """``(the blob's head line, the table's fields, the rows' bytes, the keys' text)``."""
    head, rest = data.split(b"\n", 1)
    cut = rest.index(b"\n")
    fields = orjson.loads(rest[:cut])
    body = rest[cut + 1 :]
    size = 4 * int(fields["count"])
    return head, fields, body[:size], body[size:]


def joined(
    head: bytes, fields: dict[str, object], rows: bytes, keys: bytes, *, crc: bool = True
) -> bytes:
    """A kept file of these parts (``crc``: its payload CRC made to agree, as a forger would)."""
    if crc:
        fields = {**fields, "payload": zlib.crc32(rows + keys)}
    return b"\n".join([head, orjson.dumps(fields), rows + keys])


def rows_changed(data: bytes, change: Callable[[array[int]], None], *, crc: bool = True) -> bytes:
    head, fields, rows, keys = parts(data)
    got = array("I")
    got.frombytes(rows)
    change(got)
    return joined(head, fields, got.tobytes(), keys, crc=crc)


def field_set(name: str, value: object) -> Callable[[bytes], bytes]:
    def spoil(data: bytes) -> bytes:
        head, fields, rows, keys = parts(data)
        return joined(head, {**fields, name: value}, rows, keys)

    return spoil


def _swap(got: array[int], i: int, j: int) -> None:
    got[i], got[j] = got[j], got[i]


def _keys_reordered(data: bytes) -> bytes:
    head, fields, rows, keys = parts(data)
    lines = keys.split(b"\n")
    lines[0], lines[-1] = lines[-1], lines[0]
    return joined(head, fields, rows, b"\n".join(lines))


def _old_form(data: bytes) -> bytes:
    """The file as kept before the rows were: the fields, then the keys."""
    head, fields, _rows, keys = parts(data)
    old = {k: v for k, v in fields.items() if k not in ("form", "byteorder", "payload", "column")}
    return b"\n".join([head, orjson.dumps(old), keys])


def _body_cut(data: bytes) -> bytes:
    head, fields, rows, _keys = parts(data)
    return joined(head, fields, rows[: len(rows) // 2], b"")


# (case id, how the kept file is spoiled)
SPOILED: list[tuple[str, Callable[[bytes], bytes]]] = [
    (
        "a-row-byte-flipped",
        lambda d: rows_changed(d, lambda a: a.__setitem__(5, a[5] ^ 1), crc=False),
    ),
    ("a-key-byte-flipped", lambda d: d[:-3] + bytes([d[-3] ^ 1]) + d[-2:]),
    ("truncated-in-the-keys", lambda d: d[:-7]),
    ("truncated-in-the-rows", _body_cut),
    ("payload-crc-off", lambda d: _crc_off(d)),
    ("rows-reordered", lambda d: rows_changed(d, lambda a: a.reverse())),
    ("first-and-last-rows-swapped", lambda d: rows_changed(d, lambda a: _swap(a, 0, len(a) - 1))),
    ("a-sampled-row-past-the-rows", lambda d: rows_changed(d, lambda a: a.__setitem__(0, 10**6))),
    ("a-sampled-row-of-another-id", lambda d: rows_changed(d, lambda a: a.__setitem__(64, a[65]))),
    ("a-row-missing", lambda d: rows_changed(d, lambda a: a.__delitem__(-1))),
    ("a-row-more", lambda d: rows_changed(d, lambda a: a.append(0))),
    ("count-one-more", lambda d: field_set("count", int(parts(d)[1]["count"]) + 1)(d)),  # type: ignore[call-overload]
    ("column-crc-off", lambda d: field_set("column", int(parts(d)[1]["column"]) ^ 1)(d)),  # type: ignore[call-overload]
    ("column-crc-missing", lambda d: field_set("column", None)(d)),
    ("column-crc-a-text", lambda d: field_set("column", "0")(d)),
    ("other-form", lambda d: field_set("form", 1)(d)),
    (
        "other-byte-order",
        lambda d: field_set("byteorder", "big" if ids_rows.BYTEORDER == "little" else "little")(d),
    ),
    ("keys-reordered", _keys_reordered),
    ("the-form-before-rows", _old_form),
]


def _crc_off(data: bytes) -> bytes:
    head, fields, rows, keys = parts(data)
    return joined(head, {**fields, "payload": int(fields["payload"]) ^ 1}, rows, keys, crc=False)  # type: ignore[call-overload]


@pytest.mark.parametrize("shape", ["recorder", "mixed"])
@pytest.mark.parametrize("spoil", [c[1] for c in SPOILED], ids=[c[0] for c in SPOILED])
def test_a_kept_file_whose_rows_do_not_check_out_is_not_used(
    home: Path, tmp_path: Path, shape: str, spoil: Callable[[bytes], bytes]
) -> None:
    path = ids_run(tmp_path / "run", shape)
    _, cold = warm_open(path)  # built, and kept once shown
    kept = kept_file(home)
    good = kept.read_bytes()
    bad = spoil(good)
    assert bad != good
    kept.write_bytes(bad)
    index, warm = warm_open(path)
    assert type(warm) is RegistryTable and not warm.unattached  # built again (the registry)
    ids = list(index.ids)
    asked = [*dict.fromkeys(ids), "nope", None, ""]
    assert answers(warm, asked) == answers(IdTable(ids), asked) == answers(cold, asked)
    assert kept.read_bytes() == good  # and kept again


@pytest.mark.parametrize("shape", SHAPES)
def test_the_unspoiled_file_is_used_and_answers_as_a_fresh_build(
    home: Path, tmp_path: Path, shape: str
) -> None:
    """The control of the test above (and of every row kind)."""
    path = ids_run(tmp_path / "run", shape)
    warm_open(path)
    index, warm = warm_open(path)
    assert type(warm) is RegistryTable and warm.unattached  # by its kept rows
    ids = list(index.ids)
    asked = [*dict.fromkeys(ids), *column(shape, 20, random.Random(5)), "nope", None, ""]
    assert answers(warm, asked) == answers(IdTable(ids), asked)


def test_the_viewer_keeps_a_fresh_table_only_once_it_is_shown(home: Path, tmp_path: Path) -> None:
    path = ids_run(tmp_path / "run", "recorder")
    index = build_index(open_path(str(path))[0])
    table_for(index, settle=False)
    assert list(home.glob("*.ids")) == []  # owed: not on the way to the list
    keep_owed(index)
    kept_file(home)
    keep_owed(index)  # once
    _, warm = warm_open(path)
    assert type(warm) is RegistryTable and warm.unattached


def test_many_new_rows_are_taken_in_with_a_set_of_the_ids(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = ids_run(tmp_path / "run", "mixed")
    warm_open(path)
    index, warm = warm_open(path)
    assert isinstance(warm, RegistryTable) and warm._by_rows is not None
    monkeypatch.setattr(ids_kept, "BIG_EXTEND", 5)
    by = warm._by_rows
    kept_keys = list(by.keys)
    new = column("recorder", 40, random.Random(3))
    warm.extend([*new, index.ids[4], None])
    assert warm._by_rows is None and warm._members is not None  # the set, past BIG_EXTEND
    # A reader still holding the kept rows (another thread) finds them as they were.
    assert by.keys == kept_keys and all(by.has(cid) for cid in index.ids if cid)
    whole = IdTable([*index.ids, *new, index.ids[4], None])
    asked = [*dict.fromkeys([*index.ids, *new]), "nope", None]
    assert answers(warm, asked) == answers(whole, asked)
