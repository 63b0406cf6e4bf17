"""An adversarial pass over the id registry settled aside (``RunIndex.settling_ids_aside``,
``id_registry.SettlingIdRows``, ``ids.table_for(settle=False)`` / ``attach_registry`` and
``ui/messages.post_ready``): a followed run's rows appended while the registry is made on the
catch-up worker, readers on other threads meanwhile, a quit, a failure mid-settle.

Every answer is checked against a registry settled in one pass (first occurrence wins), a table
built from the id column and chains linked on a fresh build of the same file. Threads are
driven by events; every wait has a bound, so a hang fails the test instead of freezing it.
"""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from cache_runs import OLD, private_cache
from records import encode_line, tool
from test_id_table_fast import answers
from test_index_registry import reference

import tracetui.store.index as indexmod
import tracetui.ui.messages as messages
from tracetui.analysis.chains import ChainIndex
from tracetui.store import cache, fastindex, ids_kept
from tracetui.store.build import build_index
from tracetui.store.id_registry import OwedIdRows, SettlingIdRows, rows_of
from tracetui.store.ids import IdTable, cell_id, resolve, shown_id, table_for
from tracetui.store.ids_kept import RegistryTable
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path
from tracetui.ui.messages import ChainsReady, IndexReady, post_ready

BOUND = 30.0
"""Seconds any wait here may take before the test calls it a hang."""
ROWS = 300
LATE = "20261129T231151.000000Z-late0001"
"""A parent named by a base row and a follower's first batch, arriving in a later batch."""


def rid(i: int) -> str:
    return f"20261129T231150.{i:06d}Z-a{i:07d}"


def base_records() -> list[bytes]:
    """Rows with repeats (row 10 carries row 3's id), parents earlier, gone, repeated, late,
    a cycle and a row naming itself."""
    out = []
    for i in range(ROWS):
        cid = rid(3) if i == 10 else rid(i)
        parent = {20: rid(5), 30: "gone-parent", 40: LATE, 50: rid(3), 60: rid(20)}.get(i)
        parent = {70: rid(71), 71: rid(70), 80: rid(80)}.get(i, parent)  # a cycle, itself
        out.append(encode_line(tool(cid, parent_command_id=parent)))
    return out


def batch_one() -> list[bytes]:
    """A follower's batch of more than 64 rows: new ids, an id of a base row again, an id
    repeated inside the batch, a retry of a parent not yet there and of a new row."""
    out = []
    for k in range(100):
        cid = {5: rid(3), 7: f"20261129T231152.{2:06d}Z-n{2:07d}"}.get(
            k, f"20261129T231152.{k:06d}Z-n{k:07d}"
        )
        parent = {10: LATE, 20: f"20261129T231152.{0:06d}Z-n{0:07d}", 30: rid(10)}.get(k)
        out.append(encode_line(tool(cid, parent_command_id=parent)))
    return out


def batch_two() -> list[bytes]:
    """A follower's few rows: the late parent, a repeat of a base id, a retry of the late one."""
    return [
        encode_line(tool(LATE)),
        encode_line(tool(rid(7))),
        encode_line(tool("20261129T231153.000001Z-z0000001", parent_command_id=LATE)),
    ]


@pytest.fixture
def warm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, RunIndex]:
    """A run opened warm: its id table kept with the cache entry, its registry owed."""
    if not fastindex.available():
        pytest.skip("a line-by-line build registers every row at once: nothing is owed")
    monkeypatch.setattr(ids_kept, "KEEP_FROM", 10)
    private_cache(tmp_path, monkeypatch)
    root = tmp_path / "run"
    root.mkdir()
    path = root / "B.jsonl"
    path.write_bytes(b"".join(base_records()))
    os.utime(path, ns=(OLD, OLD))  # not racy: the cache trusts it
    table_for(build_index(open_path(str(path))[0]))  # built, and kept for the next open
    ix = build_index(open_path(str(path))[0])
    assert ix.ids_owed
    return path, ix


def grow(ix: RunIndex, path: Path, lines: list[bytes]) -> None:
    """What the follower does: the file grows, its new rows are appended to the index."""
    with path.open("ab") as fh:
        fh.write(b"".join(lines))
    ix.index_member(0)


def check_like_a_fresh_build(ix: RunIndex, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Registry, duplicates, id table, ID cells, --id and chains as a fresh build gives them."""
    monkeypatch.setattr(cache, "_off", True)
    fresh = build_index(open_path(str(path))[0])
    assert len(fresh) == len(ix) and fresh.ids == ix.ids
    first, dups = reference(list(ix.ids))
    assert ix.id_rows == first and ix.duplicates == dups and not ix.ids_owed
    assert list(ix.id_rows.items()) == list(fresh.id_rows.items())  # (the same order too)
    asked = [*dict.fromkeys(ix.ids), "nope", None, ""]
    whole = IdTable(list(ix.ids[: len(ix)]))
    table = table_for(ix)
    assert table.rows == len(ix)
    assert answers(table, asked) == answers(whole, asked)
    if isinstance(table, RegistryTable):
        assert not table.unattached  # the kept rows went once the registry came
    cells = [(cell_id(ix, c), shown_id(ix, c)) for c in asked]
    assert cells == [(whole.cell(c), whole.shown(c)) for c in asked]
    for cid in (rid(3), LATE, rid(7)):
        if cid in first:
            assert resolve([ix], cid) == (ix, first[cid])
    chains, expected = ChainIndex(ix), ChainIndex(fresh)
    assert chains.groups() == expected.groups()
    for row, _pid in fresh.links():
        got, want = chains.chain(row), expected.chain(row)
        assert (got.rows(), got.missing_parent, got.cycle) == (
            want.rows(),
            want.missing_parent,
            want.cycle,
        )


class Posted:
    """``post`` for post_ready: the messages, an event per kind, the draw set or not."""

    def __init__(self, *, draws: bool) -> None:
        self.seen: list[object] = []
        self.ready = threading.Event()
        self.chains = threading.Event()
        self.draws = draws

    def __call__(self, message: object) -> None:
        self.seen.append(message)
        if isinstance(message, IndexReady):
            self.ready.set()
            if self.draws:
                message.drawn.set()
        if isinstance(message, ChainsReady):
            self.chains.set()


def run_thread(target: Callable[[], object], errors: list[BaseException]) -> threading.Thread:
    def body() -> None:
        try:
            target()
        except BaseException as exc:  # handed to the test, which fails on it
            errors.append(exc)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread


def joined(*threads: threading.Thread) -> None:
    for thread in threads:
        thread.join(BOUND)
        assert not thread.is_alive(), f"{thread.name} hung"


# ------------------------------------------------------------------ the live catch-up's path
@pytest.mark.parametrize("draws", [False, True], ids=["never-drawn", "drawn"])
def test_a_follower_started_when_shown_gets_every_answer_right(
    warm: tuple[Path, RunIndex], monkeypatch: pytest.MonkeyPatch, draws: bool
) -> None:
    """ui/live.py's catch-up: post_ready(shown=) starts the follower, whose thread appends a
    batch (owed) and a few rows and brings the id table up to date (``table_for``) while the
    worker settles the registry aside. A draw that never comes holds up nobody but the worker,
    for DRAWN_WAIT at most."""
    path, ix = warm
    # A draw that never comes holds up only the worker, and only this long (2 s in the app).
    monkeypatch.setattr(messages, "DRAWN_WAIT", 0.5)
    errors: list[BaseException] = []
    posted = Posted(draws=draws)
    appended = threading.Event()

    def follower() -> None:
        grow(ix, path, batch_one())
        table_for(ix)  # on_rows: the table's set takes the rows (no wait for the registry)
        grow(ix, path, batch_two())
        table_for(ix)
        appended.set()

    threads: list[threading.Thread] = []
    aside: list[bool] = []

    def shown() -> None:
        aside.append(ix._ids.settling is not None and ix.ids_owed)
        threads.append(run_thread(follower, errors))

    worker = run_thread(lambda: post_ready(ix, posted, shown=shown), errors)
    joined(worker)
    joined(*threads)
    assert not errors and appended.is_set() and aside == [True]
    kinds = [type(m) for m in posted.seen]
    assert kinds == [IndexReady, ChainsReady]
    got = posted.seen[1]
    assert isinstance(got, ChainsReady) and got.index is ix and got.chains.index is ix
    check_like_a_fresh_build(ix, path, monkeypatch)


def test_a_follower_and_the_ui_thread_go_on_while_the_registry_is_made(
    warm: tuple[Path, RunIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The registry held mid-build: the follower brings the id table up to date with its set
    of ids (it waited for the registry, holding the table's lock, and the UI thread's ID cell
    waited behind it), and the UI thread's cell is answered, both before the registry is done."""
    path, ix = warm
    building, go = threading.Event(), threading.Event()
    real = indexmod.registered

    def held(column: list[str | None], stop: int) -> tuple[dict[str, int], dict[str, list[int]]]:
        building.set()
        assert go.wait(BOUND)
        return real(column, stop)

    monkeypatch.setattr(indexmod, "registered", held)
    errors: list[BaseException] = []
    posted = Posted(draws=True)
    follower_done = threading.Event()

    def follower() -> None:
        grow(ix, path, batch_one())
        table_for(ix)
        follower_done.set()

    threads: list[threading.Thread] = []
    worker = run_thread(
        lambda: post_ready(ix, posted, shown=lambda: threads.append(run_thread(follower, errors))),
        errors,
    )
    cells: list[str] = []
    try:
        assert building.wait(BOUND)
        assert follower_done.wait(BOUND)  # not held up by the registry
        ui = run_thread(lambda: cells.append(cell_id(ix, rid(3))), errors)
        joined(ui)  # nor is the UI thread's cell
        assert not go.is_set() and ix.ids_owed
    finally:
        go.set()
    joined(worker)
    joined(*threads)
    assert not errors
    assert cells == [IdTable(list(ix.ids[: len(ix)])).cell(rid(3))]
    check_like_a_fresh_build(ix, path, monkeypatch)


@pytest.mark.parametrize("waiter", [False, True], ids=["nobody-waiting", "a-follower-waiting"])
def test_a_quit_mid_settle_ends_the_worker_and_leaves_the_registry_whole(
    warm: tuple[Path, RunIndex], monkeypatch: pytest.MonkeyPatch, waiter: bool
) -> None:
    """stop() (or quitting) while the worker waits for the draw: it stops waiting, posts no
    ChainsReady (the app is going or shows another run), and a follower waiting for the
    registry gets it."""
    path, ix = warm
    monkeypatch.setattr(messages, "DRAWN_WAIT", 600.0)
    quit_now = threading.Event()
    errors: list[BaseException] = []
    posted = Posted(draws=False)
    threads: list[threading.Thread] = []

    def follower() -> None:
        grow(ix, path, batch_one())
        table_for(ix)

    def shown() -> None:
        if waiter:
            threads.append(run_thread(follower, errors))

    worker = run_thread(lambda: post_ready(ix, posted, quit_now.is_set, shown=shown), errors)
    assert posted.ready.wait(BOUND)
    quit_now.set()
    joined(worker)
    joined(*threads)  # (started by the worker: listed once it is done)
    assert not errors
    assert [type(m) for m in posted.seen] == [IndexReady]
    assert ix._ids.settling is None
    if not waiter:
        grow(ix, path, batch_one())
    grow(ix, path, batch_two())
    check_like_a_fresh_build(ix, path, monkeypatch)


def test_a_failure_in_shown_lets_every_waiter_go(
    warm: tuple[Path, RunIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``shown`` (the live follower's start) raising: the error reaches the worker, a reader
    waiting for the registry is let go with it settled, and the index answers as after. (The
    chains are not linked then: no ChainsReady, see the review's report.)"""
    path, ix = warm
    monkeypatch.setattr(messages, "DRAWN_WAIT", 600.0)
    errors: list[BaseException] = []
    waited: list[dict[str, int]] = []
    posted = Posted(draws=False)
    reader: list[threading.Thread] = []
    waiting = threading.Event()

    def shown() -> None:
        reader.append(run_thread(lambda: (waiting.set(), waited.append(ix.settle_ids())), errors))
        assert waiting.wait(BOUND)
        raise OSError("cannot start the follower")

    worker = run_thread(lambda: post_ready(ix, posted, shown=shown), errors)
    joined(worker)
    joined(*reader)
    assert [type(e) for e in errors] == [OSError]
    assert [type(m) for m in posted.seen] == [IndexReady]
    assert ix._ids.settling is None
    assert waited == [reference(list(ix.ids))[0]]
    grow(ix, path, batch_one() + batch_two())
    check_like_a_fresh_build(ix, path, monkeypatch)


def test_a_failure_building_the_registry_lets_a_waiting_follower_go(
    warm: tuple[Path, RunIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, ix = warm

    def failing(column: list[str | None], stop: int) -> tuple[dict[str, int], dict[str, list[int]]]:
        raise MemoryError

    monkeypatch.setattr(indexmod, "registered", failing)
    errors: list[BaseException] = []
    posted = Posted(draws=False)
    threads: list[threading.Thread] = []

    def follower() -> None:
        grow(ix, path, batch_one())
        table_for(ix)  # waits for the registry; settles it itself once the worker failed

    worker = run_thread(
        lambda: post_ready(ix, posted, shown=lambda: threads.append(run_thread(follower, errors))),
        errors,
    )
    joined(worker)
    joined(*threads)  # (started by the worker: listed once it is done)
    assert [type(e) for e in errors] == [MemoryError]
    grow(ix, path, batch_two())
    check_like_a_fresh_build(ix, path, monkeypatch)


def test_the_worker_bringing_the_table_up_to_date_itself_in_shown(
    warm: tuple[Path, RunIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows appended and the table brought up to date on the settling thread itself (inside
    the block): it settles the registry there, never waiting for itself."""
    path, ix = warm
    errors: list[BaseException] = []
    posted = Posted(draws=True)

    def shown() -> None:
        grow(ix, path, batch_one())
        table_for(ix)
        grow(ix, path, batch_two())

    worker = run_thread(lambda: post_ready(ix, posted, shown=shown), errors)
    joined(worker)
    assert not errors and [type(m) for m in posted.seen] == [IndexReady, ChainsReady]
    check_like_a_fresh_build(ix, path, monkeypatch)


# ------------------------------------------------------------------ readers meanwhile
@pytest.fixture
def aside(warm: tuple[Path, RunIndex]) -> Callable[[], tuple[threading.Thread, threading.Event]]:
    """A thread that holds the registry aside (in the block) until the event returned is set."""
    _path, ix = warm

    def start() -> tuple[threading.Thread, threading.Event]:
        table_for(ix, settle=False)  # as post_ready makes it, before the registry
        inside, go = threading.Event(), threading.Event()

        def settler() -> None:
            with ix.settling_ids_aside():
                inside.set()
                assert go.wait(BOUND)

        thread = threading.Thread(target=settler, daemon=True)
        thread.start()
        assert inside.wait(BOUND)
        return thread, go

    return start


def test_answers_while_settled_aside_with_rows_appended_meanwhile(
    warm: tuple[Path, RunIndex],
    aside: Callable[[], tuple[threading.Thread, threading.Event]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each look-up while the registry is made, before and after a follower's batch, a few
    rows one by one and a few rows in a batch: the first row of an id among the rows committed
    when asked, as the settled registry gives it."""
    path, ix = warm
    thread, go = aside()
    try:
        for lines in ([], batch_one(), batch_two()[:1], batch_two()[1:]):
            if lines:
                grow(ix, path, lines)
            view = ix.id_rows
            assert isinstance(view, SettlingIdRows)
            first = reference(list(ix.ids[: len(ix)]))[0]
            asked = [*dict.fromkeys(c for c in ix.ids if c is not None), "nope", "", LATE]
            got = [(view.get(c), c in view) for c in asked]
            assert got == [(first.get(c), c in first) for c in asked]
            with pytest.raises(KeyError):
                view["nope"]
            few = [LATE, rid(3), "nope", rid(10)]
            assert rows_of(view, few) == [first.get(c) for c in few]
            assert resolve([ix], rid(3)) == (ix, 3)  # the first of a repeated id
            if not lines:  # (the table current: a displayed form is looked up without waiting)
                assert resolve([ix], "a0000003") == (ix, 3)
        assert ix.ids_owed  # nothing above made the registry
    finally:
        go.set()
    joined(thread)
    check_like_a_fresh_build(ix, path, monkeypatch)


def test_readers_wanting_the_whole_registry_wait_and_get_it_right(
    warm: tuple[Path, RunIndex],
    aside: Callable[[], tuple[threading.Thread, threading.Event]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Chains linked, duplicates and many parents at once on other threads while the registry
    is settled aside, a follower's rows owed meanwhile: each waits, none hangs, each gets what
    a fresh build gives."""
    path, ix = warm
    thread, go = aside()
    grow(ix, path, batch_one())
    errors: list[BaseException] = []
    got: dict[str, object] = {}
    many = [*(rid(i) for i in range(0, ROWS, 7)), LATE, "nope"]
    readers = [
        run_thread(lambda: got.__setitem__("dups", dict(ix.duplicates)), errors),
        run_thread(lambda: got.__setitem__("many", rows_of(ix.id_rows, many)), errors),
    ]
    try:
        grow(ix, path, batch_two())  # owed while they wait
        linking = ChainIndex(ix).prepare  # (its few parents are searched: it need not wait)
        readers.append(run_thread(lambda: got.__setitem__("groups", linking().groups()), errors))
    finally:
        go.set()
    joined(thread, *readers)
    assert not errors
    monkeypatch.setattr(cache, "_off", True)
    fresh = build_index(open_path(str(path))[0])
    assert got["dups"] == reference(list(fresh.ids))[1]
    assert got["many"] == [fresh.id_rows.get(c) for c in many]
    assert got["groups"] == ChainIndex(fresh).groups()
    check_like_a_fresh_build(ix, path, monkeypatch)


def test_a_second_settler_waits_for_the_first(
    warm: tuple[Path, RunIndex],
    aside: Callable[[], tuple[threading.Thread, threading.Event]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, ix = warm
    thread, go = aside()
    errors: list[BaseException] = []

    def second() -> None:
        with ix.settling_ids_aside():
            pass

    other = run_thread(second, errors)
    grow(ix, path, batch_one())
    go.set()
    joined(thread, other)
    assert not errors
    check_like_a_fresh_build(ix, path, monkeypatch)


def test_between_the_install_and_the_last_settle_parents_are_answered(
    warm: tuple[Path, RunIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The registry of the rows owed at the start is in, a follower's batch still owed: the
    parent-ids view answers as the settled registry will."""
    path, ix = warm
    seen: list[bool] = []
    real = RunIndex.settle_ids

    def checking(self: RunIndex) -> dict[str, int]:
        if self is ix and not seen:
            view = ix.id_rows
            first = reference(list(ix.ids[: len(ix)]))[0]
            asked = [LATE, rid(3), rid(10), "gone-parent", f"20261129T231152.{0:06d}Z-n{0:07d}"]
            seen.append(isinstance(view, OwedIdRows))
            assert [view.get(c) for c in asked] == [first.get(c) for c in asked]
            assert [c in view for c in asked] == [c in first for c in asked]
        return real(self)

    monkeypatch.setattr(RunIndex, "settle_ids", checking)
    with ix.settling_ids_aside():
        grow(ix, path, batch_one())
    assert seen == [True]
    monkeypatch.setattr(RunIndex, "settle_ids", real)
    check_like_a_fresh_build(ix, path, monkeypatch)


# ------------------------------------------------------------------ the searched ids by themselves
@pytest.mark.parametrize("seed", range(6))
def test_views_of_any_age_sharing_what_was_searched_answer_for_their_rows(seed: int) -> None:
    """Views made as a column grows (ids new, repeated, None, ""), asked in any order, share
    one ``searched`` dict: each answers for the rows owed when it was made."""
    rnd = random.Random(seed)
    pool = [f"c{i}" for i in range(12)] + ["", "x"]
    column: list[str | None] = []
    searched: dict[str, int] = {}
    views: list[tuple[int, SettlingIdRows]] = []

    def never() -> dict[str, int]:
        raise AssertionError("a few ids never wait for the registry")

    for _ in range(60):
        column.extend(rnd.choice([*pool, None]) for _ in range(rnd.choice([0, 1, 3, 9])))
        views.append((len(column), SettlingIdRows(column, len(column), searched, never)))
        for _ in range(8):
            upto, view = rnd.choice(views)
            key = rnd.choice([*pool, "absent"])
            first = reference(column[:upto])[0]
            assert (view.get(key), key in view) == (first.get(key), key in first), (upto, key)
            small = rnd.sample([*pool, "absent"], 3)
            assert view.get_many(small) == [first.get(k) for k in small]


# ------------------------------------------------------------------ a walk over a view
def test_a_walk_over_a_settling_view_made_before_new_rows_answers_every_key_it_lists() -> None:
    """``dict(view)``, ``view == ...``, ``items()``: the keys a walk lists are the ones
    ``view[key]`` answers. It listed the settled registry's, rows appended since included, and
    ``view[key]`` then raised KeyError for a new row's id (failed before the fix)."""
    column: list[str | None] = ["a", "b", None, "a"]
    view = SettlingIdRows(column, len(column), {}, lambda: reference(column)[0])
    column.extend(["c", "b"])  # a follower's rows, registered after the view was made
    assert dict(view) == {"a": 0, "b": 1} and len(view) == 2 and view == {"a": 0, "b": 1}
    assert list(view.items()) == [("a", 0), ("b", 1)] and "c" not in view


def test_a_walk_over_the_index_view_while_settled_aside_with_rows_appended(
    warm: tuple[Path, RunIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    path, ix = warm
    with ix.settling_ids_aside():
        view = ix.id_rows
        assert isinstance(view, SettlingIdRows)
        before = reference(list(ix.ids[: len(ix)]))[0]
        grow(ix, path, batch_one())
        assert dict(view) == before and len(view) == len(before)  # (settled here, on the settler)
    check_like_a_fresh_build(ix, path, monkeypatch)


def test_a_walk_over_the_owed_view_after_a_parent_arrived(
    warm: tuple[Path, RunIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parent-ids view of an owed registry (not settled aside): a parent in no row when it
    was made, arriving in a follower's row after, is not one of its keys (``view[parent]`` says
    KeyError, as it did when made); a walk lists no key it cannot answer (failed before)."""
    path, ix = warm
    view = ix.id_rows
    assert isinstance(view, OwedIdRows) and LATE not in view
    grow(ix, path, batch_two())  # LATE's row: registered at once (a few rows)
    walked = dict(view)
    first = reference(list(ix.ids[: len(ix)]))[0]
    assert LATE not in walked and len(view) == len(walked)
    assert walked == {cid: first[cid] for cid in first if cid != LATE}
    check_like_a_fresh_build(ix, path, monkeypatch)
