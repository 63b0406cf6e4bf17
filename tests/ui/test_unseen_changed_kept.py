"""The ``u`` screen pages tracetui's kept file from disk: changed after its check, it says so.

The file is checked whole when the screen opens; a change in place afterwards (same file, new
bytes) is not shown as the checked bytes: the next page says why instead, one line, no crash.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import Static
from viewer_helpers import make_app, settle

from tracetui.ui.screens.unseen import UnseenScreen

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "flaky-billing"
ATTEMPT_1 = 2  # row of cmd_3f76c0c60c4e: pytest, 16,014 bytes never shown


def body(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one("#unseen-body", Static).content)


async def test_a_kept_file_changed_after_its_check_is_one_line(tmp_path: Path) -> None:
    run = tmp_path / "flaky-billing"
    shutil.copytree(SAMPLE, run, ignore=shutil.ignore_patterns("*.reruns.jsonl*", "*.lock"))
    app = make_app(str(run))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        app.select_row(ATTEMPT_1)
        await pilot.pause()
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, UnseenScreen)
        assert body(app).startswith("▲ the agent's view ended here")
        pages = app.screen.pages
        assert pages is not None
        kept = Path(pages.kept.where)
        with kept.open("r+b") as fh:  # in place: the file the screen holds open
            fh.seek(20)
            fh.write(b"\0")
        await pilot.press("space")
        await pilot.pause()
        assert body(app) == f"not shown: {kept} changed since it was checked"
        await pilot.press("slash", *"assert", "enter")
        await settle(pilot)
        assert body(app) == f"not shown: {kept} changed since it was checked"
