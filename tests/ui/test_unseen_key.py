"""The viewer's ``u``: the kept bytes the agent never saw, paged from disk, searched with ``/``."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from textual.widgets import Static
from viewer_helpers import make_app, settle

from tracetui.ui.screens.unseen import UnseenScreen

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "flaky-billing"
ATTEMPT_1 = 2  # row of cmd_3f76c0c60c4e: pytest, 16,014 bytes never shown


def body(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one("#unseen-body", Static).content)


async def test_u_shows_the_unseen_part_and_finds_the_assertion() -> None:
    app = make_app(str(SAMPLE))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        app.select_row(ATTEMPT_1)
        await pilot.pause()
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, UnseenScreen)
        first = body(app)
        assert first.startswith("▲ the agent's view ended here")
        assert "AssertionError" not in first  # it is far down: past the first page
        await pilot.press("slash", *"assertionerror: assert", "enter")
        await settle(pilot)
        found = body(app)
        assert (
            found.splitlines()[0]
            == "E       AssertionError: assert Decimal('33.33') == Decimal('33.34')"
        )
        await pilot.press("G")
        await pilot.pause()
        assert body(app).endswith("■ end of the stream")
        await pilot.press("g")
        await pilot.pause()
        assert body(app) == first
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(app.screen, UnseenScreen)


async def test_u_pages_down_and_back_to_the_same_lines() -> None:
    app = make_app(str(SAMPLE))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        app.select_row(ATTEMPT_1)
        await pilot.pause()
        await pilot.press("u")
        await settle(pilot)
        first = body(app)
        await pilot.press("space")
        await pilot.pause()
        second = body(app)
        await pilot.press("b")
        await pilot.pause()
        assert second != first and body(app) == first


async def test_u_where_nothing_was_kept_says_so_and_offers_the_rerun() -> None:
    app = make_app()  # tests/ui/data/flaky: recorded before kept outputs existed
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        app.select_row(1)  # cmd_3f76c0c60c4e, truncated
        await pilot.pause()
        await pilot.press("u")
        await settle(pilot)
        assert not isinstance(app.screen, UnseenScreen)
        messages = [n.message for n in app._notifications]
    assert messages == [
        "stdout: its stdout was not kept (recorded with --no-keep, or by a tracetui that kept no "
        "output)\nr re-runs it uncapped to see the rest"
    ]


async def test_u_on_a_changed_kept_file_shows_no_byte_of_it(tmp_path: Path) -> None:
    run = tmp_path / "flaky-billing"
    shutil.copytree(SAMPLE, run)
    kept = run / "feedback_record.jsonl.kept"
    for name in os.listdir(kept):
        (kept / name).write_bytes(b"\x1f\x8b garbage")
    app = make_app(str(run))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        app.select_row(ATTEMPT_1)
        await pilot.pause()
        await pilot.press("u")
        await settle(pilot)
        text = body(app)
    assert text.startswith("not shown: ") and "is damaged" in text
    assert "passed" not in text
