"""The viewer's `r` on a span whose argv was redacted: a notice saying why, no confirmation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from records import tool
from viewer_helpers import settle

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.screens.confirm_rerun import ConfirmRerun

R = "[REDACTED]"
WHY = "redacted secret ([REDACTED] in the record): re-run it yourself with the real values"

# (id, record fields, the notice)
CASES = [
    (
        "marked",
        {"argv": ["mysql", "--password", R], "argv_redacted": 1},
        f"span 'x1' cannot be re-run: the argv holds 1 {WHY}",
    ),
    (
        "unmarked-older-record",
        {"argv": ["curl", f"https://ann:{R}@host/", "-H", f"Authorization: Bearer {R}"]},
        f"span 'x1' cannot be re-run: the argv holds 2 {WHY.replace('secret ', 'secrets ')}",
    ),
]


@pytest.mark.parametrize(("over", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
async def test_redacted_argv_is_a_notice_not_a_modal(
    tmp_path: Path, over: dict[str, Any], message: str
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.jsonl").write_text(json.dumps(tool("x1", **over)) + "\n")
    app = TraceApp(open_paths([str(folder)]), follow=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmRerun)
        assert [n.message for n in app._notifications] == [message]
        assert [n.title for n in app._notifications] == ["cannot re-run"]
    assert not (folder / "run.jsonl.reruns.jsonl").exists()
