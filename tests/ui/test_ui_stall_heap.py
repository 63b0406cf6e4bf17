"""The collector's full pass (``ui/heap.settle``) is made when a run is opened, before its
index exists, not after a million-row index is drawn (where it walked every row: 0.05-0.2 s of
the UI thread); after the draw only what was made since the index was frozen is collected
(``heap.freeze_young``). An earlier run's index is still let go when another is opened.

These tests use the viewer's own ui/heap.py (``real_heap``, tests/conftest.py): the rest of the
suite runs with stand-ins that keep pytest's heap frozen."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable

import pytest
from viewer_helpers import MULTI, make_app, settle

import tracetui.ui.app as appmod
from tracetui.ui import heap


def recorded(monkeypatch: pytest.MonkeyPatch, app: appmod.TraceApp) -> list[tuple[str, object]]:
    """Each pass the app makes, with the index it had then."""
    calls: list[tuple[str, object]] = []

    def wrap(name: str, call: Callable[[], None]) -> Callable[[], None]:
        def wrapped() -> None:
            calls.append((name, app.index))
            call()

        return wrapped

    monkeypatch.setattr(heap, "settle", wrap("full", heap.settle))
    monkeypatch.setattr(heap, "freeze_young", wrap("young", heap.freeze_young))
    return calls


PEEK_CASES = [("no-peek", 32 << 20), ("peek", 0)]


@pytest.mark.parametrize("peek_above", [c[1] for c in PEEK_CASES], ids=[c[0] for c in PEEK_CASES])
async def test_full_pass_before_the_index(
    monkeypatch: pytest.MonkeyPatch, real_heap: None, peek_above: int
) -> None:
    monkeypatch.setattr(appmod, "PEEK_ABOVE", peek_above)
    app = make_app()
    calls = recorded(monkeypatch, app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.index is not None and not app.index.partial
        assert [name for name, _ in calls] == ["full", "young"]
        assert calls[0][1] is not app.index  # the full pass: before the index was shown
        assert calls[1][1] is app.index
        # The shown index is frozen: out of every full pass (gc.get_objects lists the others).
        assert gc.is_tracked(app.index)
        assert not any(o is app.index for o in gc.get_objects())


SWITCH_CASES = [
    # No peek: the earlier index is shown until the new one comes, then let go by a full pass.
    ("no-peek", 32 << 20, ["full", "full"]),
    # A peek replaces the earlier index at once: the pass at the open lets it go.
    ("peek", 0, ["full", "young"]),
]


@pytest.mark.parametrize(
    ("peek_above", "passes"), [c[1:] for c in SWITCH_CASES], ids=[c[0] for c in SWITCH_CASES]
)
async def test_an_earlier_run_is_let_go(
    monkeypatch: pytest.MonkeyPatch, real_heap: None, peek_above: int, passes: list[str]
) -> None:
    monkeypatch.setattr(appmod, "PEEK_ABOVE", peek_above)
    app = make_app(MULTI)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.pop_screen()  # the picker: open the runs by hand
        app.open_run(0)
        await settle(pilot)
        first = app.index
        assert first is not None and not first.partial
        earlier = weakref.ref(first)
        del first
        calls = recorded(monkeypatch, app)
        app.open_run(1)
        await settle(pilot)
        assert app.index is not None and app.run_ is app.runs[1]
        assert [name for name, _ in calls] == passes
        calls.clear()  # (they hold the indexes they saw)
        assert earlier() is None
