"""A big run opens on a peek at its newest rows, then swaps in the full index."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool


def big_run(tmp_path: Path) -> Path:
    recs = [
        tool(f"r{i:05d}", exit_code=1 if i == 10 else 0, preview_stdout="y" * 250)
        for i in range(6000)
    ]
    path = tmp_path / "B.jsonl"
    path.write_bytes(b"".join(encode_line(r) for r in recs))
    return path


async def test_peek_first_then_the_latest_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tracetui.ui.app as appmod
    from tracetui.store.runset import open_paths

    gate = threading.Event()
    real = appmod.build_index

    def slow_build(run: Any, progress: Any = None, **kw: Any) -> Any:
        gate.wait(10)  # hold the full index back while the test looks at the peek
        return real(run, progress, **kw)

    monkeypatch.setattr(appmod, "PEEK_ABOVE", 0)
    monkeypatch.setattr(appmod, "build_index", slow_build)
    app = appmod.TraceApp(open_paths([str(big_run(tmp_path))]), follow=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        assert app.index is not None and app.index.partial
        assert app.index.ids[-1] == "r05999" and len(app.index) < 6000
        gate.set()
        for _ in range(100):
            await pilot.pause(0.05)
            if app.index is not None and not app.index.partial:
                break
        await pilot.pause(0.1)
        assert len(app.index) == 6000
        assert app.index.ids[app.selected_row] == "r00010"  # the latest failure, as for any open


async def test_a_row_chosen_in_the_peek_stays_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tracetui.ui.app as appmod
    from tracetui.store.runset import open_paths

    gate = threading.Event()
    real = appmod.build_index
    monkeypatch.setattr(appmod, "PEEK_ABOVE", 0)
    monkeypatch.setattr(
        appmod,
        "build_index",
        lambda run, progress=None, **kw: (gate.wait(10), real(run, progress, **kw))[1],
    )
    app = appmod.TraceApp(open_paths([str(big_run(tmp_path))]), follow=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.2)
        await pilot.press("k", "k", "k")
        await pilot.pause(0.1)
        chosen = app.index.ids[app.selected_row]
        gate.set()
        for _ in range(100):
            await pilot.pause(0.05)
            if app.index is not None and not app.index.partial:
                break
        await pilot.pause(0.1)
        assert app.index.ids[app.selected_row] == chosen
