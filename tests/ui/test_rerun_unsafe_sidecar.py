"""The viewer's `r` on a run whose sidecar is a planted link: one notice naming it, no modal, nothing run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from records import tool
from viewer_helpers import settle

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.screens.confirm_rerun import ConfirmRerun

LINK = "refused, it is a symbolic link (tracetui never follows a link beside a trace)"


@pytest.mark.parametrize("name", ["run.jsonl.reruns.jsonl", "run.jsonl.reruns.jsonl.lock"])
async def test_a_linked_sidecar_is_a_notice_before_the_modal(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    victim = tmp_path / "victim.rc"
    victim.write_bytes(b"keep me\n")
    (folder / name).symlink_to(victim)
    rec = tool("x1", argv=["touch", "ran"], cwd=str(folder))
    (folder / "run.jsonl").write_text(json.dumps(rec) + "\n")
    app = TraceApp(open_paths([str(folder)]))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        # The span itself: the linked sidecar is read as rows too (reading is not this test's).
        await pilot.press("home")
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmRerun)
        [note] = list(app._notifications)
        assert note.message == f"{folder / name}: {LINK}"
        assert (note.title, note.severity, note.markup) == ("cannot re-run", "warning", False)
    assert not (folder / "ran").exists()
    assert victim.read_bytes() == b"keep me\n"
