"""The displayed id rule (shortest unique abbreviation of the part that differs) and --id resolution."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from records import tool

from tracetui.analysis.rows import row_cells
from tracetui.store.build import build_index
from tracetui.store.ids import IdError, IdTable, cell_id, resolve, shown_id, table_for
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

STAMP = "20261129T231150.848677Z-"
OTHER_STAMP = "20261201T084400.000001Z-"

SHOWN_CASES = [
    (
        "recorder-ids-share-timestamp",
        [STAMP + "1b5a45f2", STAMP + "aeac1f3b", STAMP + "1b5a9999"],
        ["1b5a4", "aeac", "1b5a9"],
    ),
    (
        "recorder-ids-different-timestamps",
        [STAMP + "1b5a45f2", OTHER_STAMP + "77770000"],
        ["1b5a", "7777"],
    ),
    (
        "recorder-same-suffix-shown-whole",
        [STAMP + "1b5a45f2", OTHER_STAMP + "1b5a45f2", STAMP + "cafe0000"],
        [STAMP + "1b5a45f2", OTHER_STAMP + "1b5a45f2", "cafe"],
    ),
    (
        "toolu-prefix-dropped",
        ["toolu_01ABCdefGHI", "toolu_01XYZabcDEF", "toolu_01ABCxyz000"],
        ["ABCd", "XYZa", "ABCx"],
    ),
    (
        "generated-keeps-four",
        [f"c{i:07d}" for i in (1, 8, 10)],
        ["0001", "0008", "0010"],
    ),
    ("single-id-keeps-four", ["toolu_01ABCdefGHI"], ["fGHI"]),
    ("short-ids-whole", ["a1", "a2", "other"], ["a1", "a2", "othe"]),
    ("duplicates-share-one-form", ["c0000001", "c0000001", "c0000002"], ["0001", "0001", "0002"]),
    (
        "control-characters-neutralised",
        ["bad\x1b[31mid", "bad\x1b[32mid"],
        ["␛[31", "␛[32"],
    ),
    (
        "shared-ending-dropped",
        ["c0001-long-id", "c0002-long-id", "c0013-long-id"],
        ["0001", "0002", "0013"],
    ),
    ("none-and-empty", [None, "", "c0000001"], ["-", "-", "0001"]),
]


@pytest.mark.parametrize(
    ("ids", "want"), [c[1:] for c in SHOWN_CASES], ids=[c[0] for c in SHOWN_CASES]
)
def test_shown(ids: list[str | None], want: list[str]) -> None:
    table = IdTable(ids)
    assert [table.shown(c) for c in ids] == want


def test_control_characters_never_shown() -> None:
    ids = ["x\x1b]0;pwned\x07y", "x\u202eevil"]
    table = IdTable(ids)
    shown = [table.shown(c) for c in ids]
    assert all(s.isprintable() and "\x1b" not in s and "\u202e" not in s for s in shown)
    assert len(set(shown)) == 2


CELL_CASES = [
    ("fits", [STAMP + "1b5a45f2"], 8, "1b5a"),
    ("clipped", [STAMP + "1b5a45f2", OTHER_STAMP + "1b5a45f2"], 8, "2026112…"),
    ("narrow", ["c0000001"], 3, "00…"),
]


@pytest.mark.parametrize(
    ("ids", "width", "cell"), [c[1:] for c in CELL_CASES], ids=[c[0] for c in CELL_CASES]
)
def test_cell_clips_with_ellipsis(ids: list[str], width: int, cell: str) -> None:
    assert IdTable(ids).cell(ids[0], width) == cell


@pytest.mark.parametrize("step", [37, 150], ids=["inserted", "merged"])
def test_extend_matches_building_at_once(step: int) -> None:
    ids = [STAMP + f"{i * 7919:08x}" for i in range(600)] + [f"c{i:07d}" for i in range(50)]
    whole = IdTable(ids)
    grown = IdTable(ids[:10])
    for start in range(10, len(ids), step):
        grown.extend(ids[start : start + step])
    assert grown.rows == whole.rows == len(ids)
    assert [grown.shown(c) for c in ids] == [whole.shown(c) for c in ids]


def test_every_shown_form_is_unique_in_a_big_run() -> None:
    ids = [f"{STAMP[:-1]}{i % 3}-{(i * 2654435761) % 2**32:08x}" for i in range(20_000)]
    table = IdTable(ids)
    shown = [table.shown(c) for c in ids]
    assert len(set(shown)) == len(ids)
    assert min(len(s) for s in shown) == 4


# ------------------------------------------------------------------ resolution
def index_of(tmp_path: Path, ids: list[str], name: str = "run") -> RunIndex:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "trace.jsonl").write_text("".join(json.dumps(tool(c)) + "\n" for c in ids))
    return build_index(open_path(str(folder / "trace.jsonl"))[0])


RECORDED = [STAMP + "1b5a45f2", STAMP + "aeac1f3b", STAMP + "1b5a9999", "c0000008", "c0000080"]

RESOLVE_CASES = [
    ("whole-id", STAMP + "aeac1f3b", STAMP + "aeac1f3b"),
    ("shown-form", "aeac", STAMP + "aeac1f3b"),
    ("suffix-substring", "aeac1f3b", STAMP + "aeac1f3b"),
    ("longer-shown-form", "1b5a4", STAMP + "1b5a45f2"),
    ("unique-prefix", "c000008", "c0000080"),
    ("shown-generated", "0008", "c0000008"),
    ("clipped-cell-ellipsis", "aeac1f…", STAMP + "aeac1f3b"),
]


@pytest.mark.parametrize(
    ("ident", "want"), [c[1:] for c in RESOLVE_CASES], ids=[c[0] for c in RESOLVE_CASES]
)
def test_resolve(tmp_path: Path, ident: str, want: str) -> None:
    ix = index_of(tmp_path, RECORDED)
    got, row = resolve([ix], ident)
    assert got is ix and ix.ids[row] == want


def test_every_displayed_form_resolves(tmp_path: Path) -> None:
    ix = index_of(tmp_path, [*RECORDED, OTHER_STAMP + "1b5a45f2"])
    for row, cid in enumerate(ix.ids):
        assert resolve([ix], shown_id(ix, cid)) == (ix, row)
        if len(shown_id(ix, cid)) <= 8:  # a clipped cell is a prefix several ids share
            assert resolve([ix], cell_id(ix, cid)) == (ix, row)


ERROR_CASES = [
    ("unknown", "nope", "no span with id 'nope'"),
    ("empty", "  ", "empty id"),
    (
        "ambiguous-substring",
        "1b5a",
        f"id '1b5a' is ambiguous: 1b5a4 ({STAMP}1b5a45f2), 1b5a9 ({STAMP}1b5a9999)",
    ),
    ("ambiguous-prefix", "c00", "id 'c00' is ambiguous: 0008 (c0000008), 0080 (c0000080)"),
    ("control-chars-neutralised", "no\x1bpe", "no span with id 'no␛pe'"),
]


@pytest.mark.parametrize(
    ("ident", "message"), [c[1:] for c in ERROR_CASES], ids=[c[0] for c in ERROR_CASES]
)
def test_resolve_errors(tmp_path: Path, ident: str, message: str) -> None:
    ix = index_of(tmp_path, RECORDED)
    with pytest.raises(IdError) as err:
        resolve([ix], ident)
    assert str(err.value) == message


def test_ambiguity_lists_five_and_counts_the_rest(tmp_path: Path) -> None:
    ix = index_of(tmp_path, [f"c{i:07d}" for i in range(1, 9)])
    with pytest.raises(IdError) as err:
        resolve([ix], "c")
    assert str(err.value) == (
        "id 'c' is ambiguous: 0001 (c0000001), 0002 (c0000002), 0003 (c0000003), "
        "0004 (c0000004), 0005 (c0000005) (and 3 more)"
    )


def test_same_id_in_two_runs(tmp_path: Path) -> None:
    a = index_of(tmp_path, ["c0000001"], "a")
    b = index_of(tmp_path, ["c0000001"], "b")
    with pytest.raises(IdError) as err:
        resolve([a, b], "c0000001")
    assert str(err.value) == "id 'c0000001' is in several runs: a/trace.jsonl, b/trace.jsonl"


def test_table_follows_the_index(tmp_path: Path) -> None:
    ix = index_of(tmp_path, RECORDED)
    table = table_for(ix)
    assert table_for(ix) is table and table.rows == len(ix)


LIST_CASES = [
    ("recorder", [STAMP + "1b5a45f2", STAMP + "aeac1f3b"], ["1b5a", "aeac"]),
    ("toolu", ["toolu_01ABCdefGHI", "toolu_01XYZabcDEF"], ["ABCd", "XYZa"]),
    ("generated", [f"c{i:07d}" for i in range(1, 11)], [f"{i:04d}" for i in range(1, 11)]),
    (
        "same-suffix-clipped",
        [STAMP + "1b5a45f2", OTHER_STAMP + "1b5a45f2"],
        ["2026112…", "2026120…"],
    ),
]


@pytest.mark.parametrize(
    ("ids", "cells"), [c[1:] for c in LIST_CASES], ids=[c[0] for c in LIST_CASES]
)
def test_list_id_column(tmp_path: Path, ids: list[str], cells: list[str]) -> None:
    ix = index_of(tmp_path, ids)
    assert [row_cells(ix, r, ix.get(r))[1].text for r in range(len(ix))] == cells
