"""The viewer's open of a big frozen run (``view --no-follow``): the whole index is shown as
soon as the list can be drawn, its retry chains follow (``ui/messages.after_ready``), and the
UI thread never makes the id registry, the id table or the chains itself, cold or warm.

The run here is a few hundred rows; ``ids_kept.KEEP_FROM`` is lowered so it takes the path of
a million-row run (its id table kept with the cache entry and recalled on the warm open).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool
from unit.cache_runs import OLD, private_cache
from viewer_helpers import settle

import tracetui.store.index as indexmod
import tracetui.ui.app as appmod
from tracetui.analysis.chains import ChainIndex
from tracetui.store import ids_kept
from tracetui.store.build import build_index
from tracetui.store.id_registry import IdRegistry
from tracetui.store.ids import table_for
from tracetui.store.ids_kept import RegistryTable
from tracetui.store.ids_table import IdTable
from tracetui.store.runset import open_path, open_paths
from tracetui.ui.messages import ChainsReady, IndexReady, post_ready
from tracetui.ui.widgets.chain import ChainPane
from tracetui.ui.widgets.detail import DetailPane

ROWS = 300
FAILED = 290
"""The latest failure: the third attempt of a chain (rows 250, 270, 290), selected at open."""


def chain_run(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    recs = []
    for i in range(ROWS):
        parent = {270: "20261129T231150.000250Z-a0000250", 290: "20261129T231150.000270Z-a0000270"}
        recs.append(
            tool(
                f"20261129T231150.{i:06d}Z-a{i:07d}",
                exit_code=1 if i in (250, 270, FAILED) else 0,
                parent_command_id=parent.get(i),
            )
        )
    path = root / "B.jsonl"
    path.write_bytes(b"".join(encode_line(r) for r in recs))
    os.utime(path, ns=(OLD, OLD))  # not racy: the cache trusts it
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(ids_kept, "KEEP_FROM", 10)
    return private_cache(tmp_path, monkeypatch)


def spy_threads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """``(what, on the UI thread)`` of every registry settled, id table recalled or built and
    chain linking pass made from now on."""
    seen: list[tuple[str, bool]] = []
    ui = threading.main_thread()

    def spy(owner: Any, name: str, what: str, real_work: Callable[..., bool] | None = None) -> None:
        real = getattr(owner, name)

        def noted(*args: Any, **kw: Any) -> Any:
            if real_work is None or real_work(*args):
                seen.append((what, threading.current_thread() is ui))
            return real(*args, **kw)

        monkeypatch.setattr(owner, name, noted)

    spy(IdRegistry, "add", "registry", lambda self, ids, start: len(ids) > 64)
    spy(IdRegistry, "parents_table", "parents")
    spy(ids_kept, "recall", "recall")
    spy(ids_kept, "_read", "recall")
    spy(ids_kept, "members_of", "members")
    spy(indexmod, "registered", "registry")
    spy(ids_kept, "built", "built")
    spy(IdTable, "__init__", "table", lambda self, ids=(): len(ids) > 64)
    spy(ChainIndex, "_refresh", "chains", lambda self: self._seen != self.index.generation)
    return seen


async def open_and_look(path: Path) -> tuple[list[int], str]:
    """Open ``path`` frozen, wait for its chains, move about; the chain pane's rows and the
    selected row's ID cell."""
    app = appmod.TraceApp(open_paths([str(path)]), follow=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.index is not None and len(app.index) == ROWS
        assert app.selected_row == FAILED
        assert app.chains is not None and app.chains.index is app.index
        order = list(app.query_one(ChainPane).order)
        for key in ("up", "down", "G", "g"):
            await pilot.press(key)
        await settle(pilot)
        table = table_for(app.index)
        assert type(table) is RegistryTable  # a big run's table (kept with the cache entry)
        cell = table.cell(app.index.ids[FAILED])
    return order, cell


async def test_nothing_big_is_made_on_the_ui_thread_cold_or_warm(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = chain_run(tmp_path / "run")
    seen = spy_threads(monkeypatch)
    cold = await open_and_look(path)
    assert ("built", False) in seen and ("registry", False) in seen  # the cold open's
    assert not [what for what, on_ui in seen if on_ui], seen
    seen.clear()
    warm = await open_and_look(path)
    for what in ("recall", "registry", "chains"):  # the warm open's
        assert (what, False) in seen, seen
    assert "members" not in [what for what, _ in seen]  # its kept rows answer: no set of ids
    assert not [what for what, on_ui in seen if on_ui], seen
    assert warm == cold
    assert warm[0] == [250, 270, 290]


async def test_while_the_registry_is_settled_the_screen_answers_as_after(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The list, its ID cells, the detail pane and go-to-id, shown while the indexing thread is
    still settling the id registry (held there), answer as once it is done; the chain pane
    says the chains are being linked until they come."""
    path = chain_run(tmp_path / "run")
    await open_and_look(path)  # the cold open keeps the id table: the next one is warm
    reference = build_index(open_path(str(path))[0])
    cells = [IdTable(reference.ids).cell(cid) for cid in reference.ids]
    gate, held = threading.Event(), threading.Event()
    real = indexmod.registered

    def gated(ids: Any, stop: int) -> Any:
        held.set()
        gate.wait(10)  # the registry held back while the test looks at the screen
        return real(ids, stop)

    monkeypatch.setattr(indexmod, "registered", gated)
    app = appmod.TraceApp(open_paths([str(path)]), follow=False)
    async with app.run_test(size=(120, 40)) as pilot:
        # The list first; the registry is built aside once the list is drawn (a refresh or
        # two later, and on a loaded machine the indexing thread may take a while to get
        # there): wait for both, each within a bound.
        for _ in range(200):
            await pilot.pause(0.02)
            if app.index is not None and len(app.index) == ROWS and held.is_set():
                break
        await pilot.pause()
        index = app.index
        assert index is not None and held.is_set() and index.ids_owed
        assert app.selected_row == FAILED and app.chains is None
        pane = app.query_one(ChainPane)
        assert pane.body.render().plain == "Linking the retry chains…"  # type: ignore[union-attr]
        table = table_for(index)
        assert isinstance(table, RegistryTable) and table.unattached  # its kept rows
        assert [table.cell(cid) for cid in index.ids] == cells
        detail = app.query_one(DetailPane).body.render().plain  # type: ignore[union-attr]
        # Going to an id meanwhile: the whole id, then a part of it.
        app.goto("20261129T231150.000007Z-a0000007")
        await pilot.pause()
        assert app.selected_row == 7
        app.goto("a0000270")
        await pilot.pause()
        assert app.selected_row == 270
        assert index.ids_owed  # all of it answered without the registry
        gate.set()
        await settle(pilot)
        assert not index.ids_owed and not table.unattached  # the registry, then attached
        assert [table.cell(cid) for cid in index.ids] == cells
        assert app.chains is not None and app.chains.index is index
        assert index.id_rows == reference.id_rows
        app.goto(f"#{FAILED + 1}")
        await pilot.pause()
        assert app.selected_row == FAILED and pane.order == [250, 270, 290]
        assert app.query_one(DetailPane).body.render().plain == detail  # type: ignore[union-attr]
        text = pane.body.render().plain  # type: ignore[union-attr]
        assert "Linking" not in text and "a0000250" in text


@pytest.mark.parametrize("same", [True, False], ids=["its-own-index", "another-index"])
async def test_chains_of_another_index_are_not_taken(tmp_path: Path, same: bool) -> None:
    path = chain_run(tmp_path / "run")
    app = appmod.TraceApp(open_paths([str(path)]), follow=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.index is not None and app.chains is not None
        index = app.index if same else build_index(open_path(str(path))[0])
        app.chains = None  # as while the chains are being linked
        app.post_message(ChainsReady(index, ChainIndex(index).prepare()))
        await settle(pilot)
        assert (app.chains is not None) is same
        if same:
            assert app.query_one(ChainPane).order == [250, 270, 290]


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_post_ready_shows_the_index_then_its_chains(home: Path, tmp_path: Path, warm: bool) -> None:
    path = chain_run(tmp_path / "run")
    if warm:
        table_for(build_index(open_path(str(path))[0]))  # keeps the id table
    index = build_index(open_path(str(path))[0])
    reference = build_index(open_path(str(path))[0])
    posted: list[object] = []
    owed_when_shown: list[bool] = []

    def shown() -> None:
        owed_when_shown.append(index.ids_owed)
        posted.append("shown")

    def post(message: object) -> None:
        posted.append(message)
        if isinstance(message, IndexReady):
            message.drawn.set()  # as the app does once it drew it

    post_ready(index, post, shown=shown)
    ready, mark, chains = posted
    assert isinstance(ready, IndexReady) and ready.index is index and ready.linking
    assert mark == "shown" and owed_when_shown == [warm]  # (a cold open settles it first)
    assert isinstance(chains, ChainsReady) and chains.index is index
    assert chains.chains.groups() == ChainIndex(reference).groups() == {250: [250, 270, 290]}
    assert not index.ids_owed and index.id_rows == reference.id_rows


def test_post_ready_stops_when_cancelled(tmp_path: Path) -> None:
    index = build_index(open_path(str(chain_run(tmp_path / "run")))[0])
    posted: list[object] = []
    post_ready(index, posted.append, cancelled=lambda: True)
    assert posted == []


def test_a_reader_waiting_for_the_registry_does_not_wait_for_the_draw(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The UI thread waiting for the registry (many ids at once) cannot draw: the indexing
    thread then builds the registry at once instead of waiting for the draw."""
    import tracetui.ui.messages as messages

    monkeypatch.setattr(messages, "DRAWN_WAIT", 600.0)  # a draw that never comes
    path = chain_run(tmp_path / "run")
    table_for(build_index(open_path(str(path))[0]))  # keeps the id table: the next is warm
    index = build_index(open_path(str(path))[0])
    posted = threading.Event()
    messages_seen: list[object] = []

    def post(message: object) -> None:
        messages_seen.append(message)
        posted.set()

    worker = threading.Thread(target=post_ready, args=(index, post), daemon=True)
    worker.start()
    assert posted.wait(60)
    assert index.ids_owed
    first = index.settle_ids()  # waits for the indexing thread's registry, not for the draw
    worker.join(60)
    assert not worker.is_alive()
    assert first == build_index(open_path(str(path))[0]).settle_ids()
    assert [type(m) for m in messages_seen] == [IndexReady, ChainsReady]
