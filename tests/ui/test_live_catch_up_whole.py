"""Opening a run to follow it reads the whole run before its index is shown (ui/live.py
``_catch_up``): the rows the list has not taken yet are no backlog then. Before, the catch-up
stopped at MAX_BACKLOG rows, showed those, and streamed the rest through the list 20,000 rows
an update (a million-row open took 13.6 s instead of ~3 s). Once shown, the backlog holds the
follower back again, and a pause (``f``) during the catch-up still stops it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool
from test_live import until
from viewer_helpers import settle

from tracetui.live.follow import Follower
from tracetui.store.runset import open_paths
from tracetui.ui import live
from tracetui.ui.app import TraceApp
from tracetui.ui.messages import IndexProgress, IndexReady

ROWS = 300


def big_run(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    folder.mkdir()
    rows = [tool(f"c{i}", argv=["echo", str(i)], exit_code=i % 5 == 0) for i in range(ROWS)]
    (folder / "feedback_record.jsonl").write_bytes(b"".join(encode_line(r) for r in rows))
    return folder


class SmallPolls(Follower):
    """A follower reading 50 rows a poll: the catch-up of the run takes several polls."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, batch=50, **kw)


def shown_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The row count of each index the follower hands the app, when it hands it over."""
    sizes: list[int] = []
    post = live.LiveFollow._post

    def spy(self: live.LiveFollow, message: Any) -> None:
        if isinstance(message, IndexReady):
            sizes.append(len(message.index))
        post(self, message)

    monkeypatch.setattr(live.LiveFollow, "_post", spy)
    return sizes


async def test_the_whole_run_is_read_before_it_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "MAX_BACKLOG", 50)  # far fewer than the run's rows
    monkeypatch.setattr(live, "Follower", SmallPolls)
    sizes = shown_sizes(monkeypatch)
    app = TraceApp(open_paths([str(big_run(tmp_path))]), follow=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: bool(sizes))
        assert sizes[0] == ROWS  # one index, every row: nothing streamed in afterwards
        await until(pilot, lambda: app.spans.view is not None and len(app.spans.view) == ROWS)
        assert app.live.catching_up is None  # the backlog counts again from here


async def test_a_pause_during_the_catch_up_still_stops_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The catch-up reads 50 rows a poll here; `f` pressed after the first poll stops it, and
    the index is shown with what was read (the follower then waits, paused)."""
    monkeypatch.setattr(live, "Follower", SmallPolls)
    sizes = shown_sizes(monkeypatch)
    post = live.LiveFollow._post

    def pause_on_progress(self: live.LiveFollow, message: Any) -> None:
        if isinstance(message, IndexProgress):
            self.paused = True  # as `f` sets it, from the UI thread, mid catch-up
        post(self, message)

    monkeypatch.setattr(live.LiveFollow, "_post", pause_on_progress)
    app = TraceApp(open_paths([str(big_run(tmp_path))]), follow=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: bool(sizes))
        assert 0 < sizes[0] < ROWS
