"""Seeding every followed run in a test (tracetui/live/seed.py), and seeing whether it took."""

from __future__ import annotations

from typing import Any

import pytest

from tracetui.live import seed


def seed_every_run(monkeypatch: pytest.MonkeyPatch, *, cache: bool = True) -> list[bool]:
    """Seed runs of any size (not only past ``SEED_BYTES``); the outcome of each seeding, in
    order (True: the built index was taken). ``cache=False`` turns the persistent index off
    (a test may turn it on again)."""
    monkeypatch.setattr(seed, "SEED_BYTES", 0)
    if not cache:
        monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    outcomes: list[bool] = []
    real = seed.seeded

    def spy(*args: Any, **kw: Any) -> seed.Seeded | None:
        got = real(*args, **kw)
        outcomes.append(got is not None)
        return got

    monkeypatch.setattr("tracetui.live.follow.seeded", spy)
    return outcomes
