"""Another run opened while a followed run's catch-up starts its follower (ui/live.py
``_follow_on``): ``Follower.start`` clears the stop the UI thread asked for, so the catch-up must
see the newer generation and stop the old run's thread itself. Before, that thread went on
polling the old run, its files open, for the rest of the session."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tracetui.live.follow import Follower
from tracetui.store.runset import open_path
from tracetui.ui import live


def run_file(tmp_path: Path) -> Path:
    base = tmp_path / "run.jsonl"
    rec = {"schema": "tracetui/1", "span_type": "tool", "command_id": "c0001"}
    base.write_bytes(json.dumps(rec).encode() + b"\n")
    return base


@pytest.mark.parametrize("when", ["before-start", "during-start"])
def test_a_run_opened_meanwhile_stops_the_old_follower(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    posted: list[Any] = []
    follow = live.LiveFollow(SimpleNamespace(post_message=posted.append))  # type: ignore[arg-type]
    follower = Follower(open_path(str(run_file(tmp_path)))[0])
    follower.poll_once()
    follow.follower, follow.generation = follower, 5
    real_start = Follower.start

    def start(self: Follower, waiter: Any = None) -> None:
        real_start(self, waiter)
        if when == "during-start":
            follow.generation += 1  # stop() on the UI thread, landing right here

    monkeypatch.setattr(Follower, "start", start)
    if when == "before-start":
        follow.generation += 1
    follow._follow_on(follower, 5, None, undecided=False)
    assert follower._thread is None  # not started, or stopped again
    assert [m for m in posted if getattr(m, "running", False)] == []  # no LIVE for the old run
