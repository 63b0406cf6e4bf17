"""A bug in an indexing thread's last step (the id table, the registry, the chains, the live
follower's start) is said in the viewer, not left to die silently with its worker (the workers
run with exit_on_error off, so Textual would drop the exception)."""

from __future__ import annotations

import pytest
from viewer_helpers import FLAKY, settle

from tracetui.analysis.chains import ChainIndex
from tracetui.store.runset import open_paths
from tracetui.ui import live as live_mod
from tracetui.ui import messages
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.run_header import RunHeader


def boom(*_args: object, **_kwargs: object) -> None:
    raise RuntimeError("boom in the last step")


def _table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(messages, "table_for", boom)


def _chains(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ChainIndex, "prepare", boom)


def _follower_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_mod.LiveFollow, "_follow_on", boom)


CASES = [
    ("id table, frozen", _table, False),
    ("id table, followed", _table, True),
    ("chains, frozen", _chains, False),
    ("chains, followed", _chains, True),
    ("follower start", _follower_start, True),
]


@pytest.mark.parametrize(("break_it", "follow"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_the_failure_is_said(
    monkeypatch: pytest.MonkeyPatch, break_it: object, follow: bool
) -> None:
    assert callable(break_it)
    break_it(monkeypatch)
    app = TraceApp(open_paths([FLAKY]), follow=follow)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.pause(0.05)
        said = [n.message for n in app._notifications]
        assert any("RuntimeError: boom in the last step" in m for m in said), said
        assert app.query_one(RunHeader).progress == ""  # no "indexing…" left standing
