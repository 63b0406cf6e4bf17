"""``g`` (go to a row or an id) in a big run looks for the id on a thread (``ui/navigate``,
``RESOLVE_ASIDE``, lowered here so the ``flaky`` run takes that path): the same rows and the
same messages as on the UI thread, the UI thread never searching, and an answer about a run
no longer shown dropped."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from viewer_helpers import MULTI, make_app, settle, type_text

import tracetui.ui.navigate as navmod
from tracetui.store import id_search
from tracetui.ui.screens.ask import AskScreen

LATEST_FAILURE = 10
GOTO = [
    ("row-number", "3", 2, None),
    ("id-shown-as-digits", "0006", 6, None),
    ("id-prefix", "fb-", 8, None),
    ("whole-id", "fb-0008", 8, None),
    ("hash-is-always-a-row", "#6", 5, None),
    ("number-past-the-end", "99", LATEST_FAILURE, "no span with id '99'"),
    ("unknown-id", "zzz", LATEST_FAILURE, "no span with id 'zzz'"),
]


def notes(app: Any) -> list[str]:
    return [n.message for n in app._notifications]


def searched_on(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The threads ``resolve`` and the column's joining ran on."""
    threads: list[str] = []
    resolve, column = navmod.resolve, id_search.column

    def resolve_noted(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return resolve(*args)

    def column_noted(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return column(*args)

    monkeypatch.setattr(navmod, "resolve", resolve_noted)
    monkeypatch.setattr(id_search, "column", column_noted)
    return threads


@pytest.mark.parametrize("aside", [False, True], ids=["ui-thread", "thread"])
async def test_goto_answers_alike(monkeypatch: pytest.MonkeyPatch, aside: bool) -> None:
    if aside:
        monkeypatch.setattr(navmod, "RESOLVE_ASIDE", 0)
    threads = searched_on(monkeypatch)
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        got = {}
        for case, answer, _row, _note in GOTO:
            app.select_row(LATEST_FAILURE)
            app.clear_notifications()
            await pilot.press("colon")
            await pilot.pause()
            assert isinstance(app.screen, AskScreen)
            await type_text(pilot, answer)
            await pilot.press("enter")
            await settle(pilot)
            got[case] = (app.selected_row, notes(app)[-1] if notes(app) else None)
        here = threading.current_thread().name
    assert got == {case: (row, note) for case, _a, row, note in GOTO}
    assert threads and all((name != here) is aside for name in threads)


async def test_an_answer_about_an_earlier_run_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(navmod, "RESOLVE_ASIDE", 0)
    held, resolve = threading.Event(), navmod.resolve

    def slow(*args: Any) -> Any:
        held.wait(10)
        return resolve(*args)

    monkeypatch.setattr(navmod, "resolve", slow)
    app = make_app(MULTI)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.pop_screen()  # the picker: open the runs by hand
        app.open_run(0)
        await settle(pilot)
        earlier = app.index
        app.goto("zzz")  # would say "no span with id 'zzz'"
        app.open_run(1)
        for _ in range(500):  # the new run's index shown, the search still held
            if app.index is not earlier and app.index is not None and not app.index.partial:
                break
            await pilot.pause(0.01)
        assert app.index is not earlier
        held.set()
        await settle(pilot)
        assert app.run_ is app.runs[1]
        assert not any("zzz" in note for note in notes(app))
