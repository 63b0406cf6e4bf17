"""The id registry settled aside (``RunIndex.settling_ids_aside``, ``id_registry.registered``)
and the kept id table taken back without it (``ids.table_for(settle=False)``): what the viewer
does so a warm run's list shows before the registry's dict is made. Every answer is the one a
registry settled in one pass, and a table built from the id column, give."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from cache_runs import private_cache
from records import encode_line, tool
from test_id_table_fast import answers, column, ids_run
from test_index_registry import SHAPES, id_column, reference

from tracetui.store import cache, fastindex, id_registry, ids_kept
from tracetui.store.build import build_index
from tracetui.store.id_registry import IdRegistry, SettlingIdRows, registered
from tracetui.store.ids import IdTable, attach_registry, table_for
from tracetui.store.ids_kept import RegistryTable
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path


# ------------------------------------------------------------------ registered
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("step", [1, 7, 1 << 15], ids=["step-1", "step-7", "step-default"])
def test_registered_in_steps_makes_the_dicts_add_makes(
    shape: str, seed: int, step: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(id_registry, "STEP", step)
    ids = id_column(shape, 300, seed)
    for stop in (0, 1, 150, 300):
        one = IdRegistry()
        one.add(ids[:stop], 0)
        rows, duplicates = registered(ids, stop)
        # The same dicts, in the same order (a reader iterating the registry sees no change).
        assert list(rows.items()) == list(one.rows.items())
        assert list(duplicates.items()) == list(one.duplicates.items())


def test_settling_rows_answer_for_the_rows_owed_when_asked() -> None:
    column: list[str | None] = ["a", None, "b", "a"]
    searched: dict[str, int] = {}
    settled: list[int] = []

    def settle() -> dict[str, int]:
        settled.append(1)
        return reference(column)[0]

    early = SettlingIdRows(column, 4, searched, settle)
    assert [early.get(k) for k in ("a", "b", "c", "a")] == [0, 2, None, 0]
    assert "c" not in early and "" not in early and not settled
    column.extend(["c", "b"])  # a follower's rows, owed while the registry is made
    later = SettlingIdRows(column, 6, searched, settle)
    assert [later.get(k) for k in ("a", "b", "c")] == [0, 2, 4]  # not the early miss
    assert "c" not in early  # (an answer for the first 4 rows still)
    assert not settled
    many = ["a", "b", "c", "d", *"efghij"]
    assert later.get_many(many) == [reference(column)[0].get(k) for k in many] and settled
    assert dict(later) == reference(column)[0] and len(later) == 3


# ------------------------------------------------------------------ settling aside
@pytest.fixture
def no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache, "_off", True)


def built(tmp_path: Path, shape: str, seed: int) -> RunIndex:
    if not fastindex.available():
        pytest.skip("a line-by-line build registers every row at once")
    from test_index_registry import _linked_run

    return build_index(open_path(str(_linked_run(tmp_path, shape, seed)))[0])


@pytest.mark.parametrize("shape", SHAPES)
def test_while_settled_aside_every_id_is_answered_as_after(
    tmp_path: Path, no_cache: None, shape: str
) -> None:
    ix = built(tmp_path, shape, 5)
    first, dups = reference(ix.ids)
    assert ix.ids_owed
    inside, go = threading.Event(), threading.Event()

    def settler() -> None:
        with ix.settling_ids_aside():
            inside.set()
            go.wait(10)

    thread = threading.Thread(target=settler)
    thread.start()
    try:
        assert inside.wait(10)
        view = ix.id_rows
        assert isinstance(view, SettlingIdRows)
        asked = ["no such id", "", *dict.fromkeys(c for c in ix.ids if c is not None)]
        assert [(view.get(c), c in view) for c in asked] == [
            (first.get(c), c in first) for c in asked
        ]
        few = asked[: id_registry.FEW]
        assert id_registry.rows_of(view, few) == [first.get(c) for c in few]
        assert ix.ids_owed  # one id at a time: the registry was not made here
    finally:
        go.set()
    assert ix.settle_ids() == first  # waits for the other thread's, then it is the one
    thread.join(10)
    assert not ix.ids_owed and ix._ids.settling is None
    assert ix.id_rows == first and ix.duplicates == dups
    assert list(ix.id_rows.items()) == list(reference_registry(ix.ids).items())


def reference_registry(ids: list[str | None]) -> dict[str, int]:
    reg = IdRegistry()
    reg.add(list(ids), 0)
    return reg.rows


@pytest.mark.parametrize("shape", SHAPES)
def test_the_settling_thread_itself_may_read_the_registry(
    tmp_path: Path, no_cache: None, shape: str
) -> None:
    ix = built(tmp_path, shape, 6)
    first, dups = reference(ix.ids)
    with ix.settling_ids_aside():
        assert ix.settle_ids() == first  # settled here at once, never waiting for itself
    assert ix.id_rows == first and ix.duplicates == dups and not ix.ids_owed


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("added", [3, 100], ids=["a-few-rows", "a-batch"])
def test_rows_appended_while_settled_aside_are_registered_after(
    tmp_path: Path, no_cache: None, shape: str, added: int
) -> None:
    ix = built(tmp_path, shape, 7)
    before = len(ix)
    member = tmp_path / "r.jsonl"
    news = [f"new{i % 7}" if shape == "repeats" else f"new{i}" for i in range(added)]
    news[0] = next(c for c in ix.ids if c)  # an id the built rows hold already
    with ix.settling_ids_aside():
        with member.open("ab") as fh:  # a follower's rows, read while the registry is made
            fh.write(b"".join(encode_line(tool(cid)) for cid in news))
        mno = next(i for i, im in enumerate(ix.members) if im.member.path == str(member))
        ix.index_member(mno)
        assert len(ix) == before + added
    assert ix.id_rows == reference(ix.ids)[0] and ix.duplicates == reference(ix.ids)[1]
    assert not ix.ids_owed


def test_a_failed_settle_leaves_the_registry_to_be_settled_again(
    tmp_path: Path, no_cache: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tracetui.store.index as indexmod

    ix = built(tmp_path, "repeats", 8)

    def failing(ids: list[str | None], stop: int) -> tuple[dict[str, int], dict[str, list[int]]]:
        raise MemoryError

    monkeypatch.setattr(indexmod, "registered", failing)
    with pytest.raises(MemoryError), ix.settling_ids_aside():
        pass
    assert ix._ids.settling is None and ix.ids_owed
    assert ix.settle_ids() == reference(ix.ids)[0]


# ------------------------------------------------------------------ the table without it
@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(ids_kept, "KEEP_FROM", 10)
    return private_cache(tmp_path, monkeypatch)


def test_the_kept_table_answers_with_its_kept_rows_as_with_the_registry(
    home: Path, tmp_path: Path
) -> None:
    path = ids_run(tmp_path / "run", 300)
    cold_index = build_index(open_path(str(path))[0])
    cold = table_for(cold_index)  # built, and kept for the next open
    ix = build_index(open_path(str(path))[0])
    warm = table_for(ix, settle=False)
    assert isinstance(warm, RegistryTable) and warm.unattached
    assert ix.ids_owed  # taken back without the registry
    asked = [*dict.fromkeys(ix.ids), "nope", None, ""]
    assert answers(warm, asked) == answers(cold, asked)
    assert table_for(ix) is warm and ix.ids_owed  # a current table: nothing settled
    with ix.settling_ids_aside():
        pass
    attach_registry(ix)
    assert not warm.unattached and not ix.ids_owed
    assert answers(warm, asked) == answers(cold, asked)


@pytest.mark.parametrize("attached", [False, True], ids=["with-its-set", "with-the-registry"])
def test_a_table_taken_back_without_the_registry_takes_new_rows_as_a_built_one(
    home: Path, tmp_path: Path, attached: bool
) -> None:
    import random

    path = ids_run(tmp_path / "run", 300)
    table_for(build_index(open_path(str(path))[0]))
    ix = build_index(open_path(str(path))[0])
    warm = table_for(ix, settle=False)
    assert isinstance(warm, RegistryTable)
    if attached:
        warm.attach(ix.settle_ids())
    rnd = random.Random(3)
    new = [*column("mixed", 40, rnd), ix.ids[5], None, "", "zz-other-kind"]
    if not attached:
        warm.extend(new)  # with its set: the set takes the new ids
    else:
        ix_ids = list(ix.ids)
        first = dict(ix.settle_ids())
        for row, cid in enumerate(new, len(ix_ids)):
            if cid is not None:
                first.setdefault(cid, row)
        warm.attach(first)
        warm.extend(new)
    whole = IdTable([*ix.ids, *new])
    asked = [*dict.fromkeys([*ix.ids, *new]), "nope", None]
    assert warm.rows == whole.rows
    assert answers(warm, asked) == answers(whole, asked)


def test_making_one_index_table_holds_up_no_other_index(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The viewer's indexing thread making the big run's table must not hold up the ID cells
    of the peek the UI thread draws meanwhile (another index)."""
    path = ids_run(tmp_path / "run", 300)
    table_for(build_index(open_path(str(path))[0]))  # kept: the next is taken back
    big, peek = (build_index(open_path(str(path))[0]) for _ in range(2))
    inside, go = threading.Event(), threading.Event()
    real = ids_kept.recalled_unsettled

    def held(index: RunIndex, n: int) -> IdTable | None:
        inside.set()
        go.wait(60)
        return real(index, n)

    monkeypatch.setattr(ids_kept, "recalled_unsettled", held)
    maker = threading.Thread(target=table_for, args=(big,), kwargs={"settle": False})
    maker.start()
    try:
        assert inside.wait(60)
        other = threading.Thread(target=table_for, args=(peek,))
        other.start()
        other.join(60)
        assert not other.is_alive()  # made while the big one is still being made
    finally:
        go.set()
        maker.join(60)
    assert answers(table_for(big), list(big.ids)) == answers(table_for(peek), list(peek.ids))


def test_new_rows_while_the_registry_is_made_aside_wait_for_nothing(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A follower's rows taken into the table while the registry is made aside: the table's
    set takes them (it did wait for the registry first, and the UI thread's ID cells behind
    the table's lock with it), and it answers as a built table does."""
    path = ids_run(tmp_path / "run", 300)
    table_for(build_index(open_path(str(path))[0]))
    ix = build_index(open_path(str(path))[0])
    warm = table_for(ix, settle=False)
    assert isinstance(warm, RegistryTable) and warm.unattached
    news = ["fresh-1", ix.ids[3], "fresh-2"]
    with ix.settling_ids_aside():
        with path.open("ab") as fh:  # the follower's rows, read while the registry is made
            fh.write(b"".join(encode_line(tool(cid)) for cid in news))
        ix.index_member(0)
        with monkeypatch.context() as m:
            m.setattr(RunIndex, "settle_ids", lambda self: pytest.fail("waited for it"))
            assert table_for(ix) is warm and warm.rows == len(ix)
    asked = [*dict.fromkeys(ix.ids), "nope", None]
    assert answers(warm, asked) == answers(IdTable(list(ix.ids)), asked)
    attach_registry(ix)
    assert not warm.unattached
    assert answers(warm, asked) == answers(IdTable(list(ix.ids)), asked)
