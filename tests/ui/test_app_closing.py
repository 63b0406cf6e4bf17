"""Messages that reach the app while it shuts down (its screens already gone): a worker's
progress or index, the follower's update, the list's last selection. Each is dropped; before,
one that touched the list raised ScreenStackError ("No screens on stack") and a quit could end
in an internal error (seen once in CI: a foreign live view's last Selected)."""

from __future__ import annotations

from typing import Any

import pytest
from viewer_helpers import make_app, settle

from tracetui.analysis.chains import ChainIndex
from tracetui.ui.app import TraceApp
from tracetui.ui.live import LiveUpdate
from tracetui.ui.messages import ChainsReady, IndexFailed, IndexProgress, IndexReady
from tracetui.ui.widgets.span_list import SpanList


def late_messages(app: TraceApp) -> list[tuple[str, Any]]:
    index = app.index
    assert index is not None
    return [
        ("on_index_progress", IndexProgress(1 << 20, 2 << 20)),
        ("on_index_failed", IndexFailed("gone")),
        ("on_index_ready", IndexReady(index)),
        ("on_chains_ready", ChainsReady(index, ChainIndex(index))),
        ("on_span_list_selected", SpanList.Selected(0)),
        ("on_live_update", LiveUpdate(rows=1, generation=app.live.generation)),
    ]


async def test_messages_after_the_screens_are_gone_are_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        messages = late_messages(app)
        with monkeypatch.context() as m:
            m.setattr(TraceApp, "screen_stack", property(lambda self: []))
            for handler, message in messages:
                getattr(app, handler)(message)  # none raises
            ready = next(msg for name, msg in messages if name == "on_index_ready")
            assert ready.drawn.is_set()  # an indexing thread waiting for a draw goes on
