"""A kept id table whose record of rows (tracetui/store/ids_prefix.py) does not check out is never
taken back for a grown run: each field spoiled, of another type, out of range or made to agree
with a spoiled neighbour; the table is built again, answers as one built from the index's id
column, and is kept again."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cache_runs import private_cache
from ids_grown_runs import check_fresh, make_run, more, opened

from tracetui.store import ids_kept, ids_prefix
from tracetui.store.ids import IdTable
from tracetui.store.index import RunIndex

Spoil = Callable[[dict[str, Any]], None]


def block(i: int, field: int, value: Any) -> Spoil:
    def spoil(fields: dict[str, Any]) -> None:
        fields["prefix"]["blocks"][i][field] = value

    return spoil


def shifted(i: int, field: int, by: int) -> Spoil:
    def spoil(fields: dict[str, Any]) -> None:
        fields["prefix"]["blocks"][i][field] += by

    return spoil


def ident(i: int, field: int, value: Any) -> Spoil:
    def spoil(fields: dict[str, Any]) -> None:
        fields["prefix"]["blocks"][i][1][field] = value

    return spoil


def prefix(name: str, value: Any) -> Spoil:
    def spoil(fields: dict[str, Any]) -> None:
        fields["prefix"][name] = value

    return spoil


def head(name: str, value: Any) -> Spoil:
    def spoil(fields: dict[str, Any]) -> None:
        fields[name] = value

    return spoil


def rows_moved(fields: dict[str, Any]) -> None:
    """One row moved from the first block to the second: the count still adds up."""
    blocks = fields["prefix"]["blocks"]
    blocks[0][6] -= 1
    blocks[1][6] += 1


def all_rows_one_more(fields: dict[str, Any]) -> None:
    """The table's rows, the record's and its last block's, all one more (and agreeing)."""
    fields["rows"] += 1
    fields["prefix"]["rows"] += 1
    fields["prefix"]["blocks"][-1][6] += 1


def blocks_swapped(fields: dict[str, Any]) -> None:
    blocks = fields["prefix"]["blocks"]
    blocks[0], blocks[1] = blocks[1], blocks[0]


def too_many_blocks(fields: dict[str, Any]) -> None:
    blocks = fields["prefix"]["blocks"]
    blocks[:] = [[*blocks[0][:6], 1]] * (ids_prefix.MAX_BLOCKS + 1)
    fields["prefix"]["rows"] = ids_prefix.MAX_BLOCKS + 1


def key_dropped(fields: dict[str, Any]) -> None:
    fields["count"] -= 1  # (the keys themselves: see keep_spoiled)


# (case id, how the kept fields are spoiled)
SPOILED: list[tuple[str, Spoil]] = [
    ("no-record", head("prefix", None)),
    ("record-a-list", head("prefix", [])),
    ("other-code", head("fingerprint", "0" * 32)),
    ("no-fingerprint", head("fingerprint", None)),
    ("record-rows-off", prefix("rows", 1)),
    ("record-rows-a-string", prefix("rows", "360")),
    ("no-blocks", prefix("blocks", [])),
    ("blocks-not-a-list", prefix("blocks", {"0": 1})),
    ("layout-off", prefix("layout", 1)),
    ("layout-a-float", prefix("layout", 1.5)),
    ("sample-off", prefix("sample", "0" * 32)),
    ("sample-a-number", prefix("sample", 7)),
    ("a-block-short", lambda f: f["prefix"]["blocks"][0].pop()),
    ("gz-said-of-a-plain-member", block(0, 0, True)),
    ("gz-a-string", block(0, 0, "false")),
    ("an-inode-off", ident(0, 1, 1)),
    ("a-size-off", ident(1, 2, 10)),
    ("an-mtime-off", ident(0, 3, 0)),
    ("an-ident-short", lambda f: f["prefix"]["blocks"][0][1].pop()),
    ("an-ident-a-bool-for-int", ident(0, 0, True)),
    ("a-rotated-member-unsettled", block(0, 2, False)),
    ("an-end-one-more", shifted(1, 3, 1)),
    ("an-end-negative", block(2, 3, -5)),
    ("a-head-hash-off", block(0, 4, "0" * 32)),
    ("a-tail-hash-off", block(2, 5, "0" * 32)),
    ("a-block-without-rows", block(1, 6, 0)),
    ("a-row-moved-between-blocks", rows_moved),
    ("every-count-one-more", all_rows_one_more),
    ("blocks-swapped", blocks_swapped),
    ("too-many-blocks", too_many_blocks),
    ("a-key-missing", key_dropped),
]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(ids_kept, "KEEP_FROM", 10)
    return private_cache(tmp_path, monkeypatch)


def spoiled(data: bytes, spoil: Spoil) -> bytes:
    cache_head, fields_line, keys = data.split(b"\n", 2)
    fields = json.loads(fields_line)
    spoil(fields)
    if fields.get("count") is not None and fields["count"] < len(keys.split(b"\n")):
        keys = keys.rsplit(b"\n", 1)[0]  # a key dropped to agree with the count
    line = json.dumps(fields, separators=(",", ":")).encode()
    return b"\n".join([cache_head, line, keys])


@pytest.mark.parametrize("spoil", [c[1] for c in SPOILED], ids=[c[0] for c in SPOILED])
@pytest.mark.parametrize("follow", [False, True], ids=["frozen", "followed"])
def test_a_record_that_does_not_check_out_is_not_used(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    spoil: Spoil,
    follow: bool,
) -> None:
    base = make_run(tmp_path / "run", "recorder")
    opened(base, follow=follow, settle=False)
    kept = next(home.glob("*.ids"))
    good = kept.read_bytes()
    bad = spoiled(good, spoil)
    assert bad != good
    kept.write_bytes(bad)
    with open(base, "ab") as fh:  # grown: the record decides
        fh.write(more(base, "recorder"))
    built: list[int] = []
    real = ids_kept.built

    def spy(index: RunIndex, first: dict[str, int], n: int, *, later: bool = False) -> IdTable:
        built.append(n)
        return real(index, first, n, later=later)

    monkeypatch.setattr(ids_kept, "built", spy)
    index, table = opened(base, follow=follow, settle=False)
    check_fresh(index, table)
    assert built == [len(index)]  # built again
    assert kept.read_bytes() not in (good, bad)  # and kept again, for the grown run


def test_the_unspoiled_record_is_used(home: Path, tmp_path: Path) -> None:
    """The control of the test above: the same steps, nothing spoiled."""
    base = make_run(tmp_path / "run", "recorder")
    opened(base, follow=True, settle=False)
    with open(base, "ab") as fh:
        fh.write(more(base, "recorder"))
    index, table = opened(base, follow=True, settle=False)
    check_fresh(index, table)
    kept = ids_kept._read(index, len(index))
    assert kept is not None and kept.rows < len(index) == table.rows
