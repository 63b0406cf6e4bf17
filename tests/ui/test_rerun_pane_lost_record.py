"""The viewer's re-run whose record cannot be written says so in its status, not only in a toast."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from records import tool
from test_rerun_pane import confirm_and_finish, make_app, text
from viewer_helpers import settle

from tracetui.record import rotate


async def test_a_lost_record_stays_in_the_status(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.jsonl").write_text(
        json.dumps(tool("x1", argv=["echo", "hi"], cwd=str(folder))) + "\n"
    )

    def full(_fd: int, _data: bytes) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(rotate, "write_all", full)
    problem = f"cannot write {folder / 'run.jsonl.reruns.jsonl'}: {os.strerror(errno.ENOSPC)}"
    app = make_app(folder)
    async with app.run_test(size=(200, 48)) as pilot:
        await settle(pilot)
        await pilot.press("home")
        pane = await confirm_and_finish(pilot)
        assert pane.result is not None and pane.result.sidecar_error == problem
        status = text(app, "#rerun-status")
        assert status.splitlines()[-1] == f"not recorded: {problem}"
        assert "recorded in" not in status
        assert [n.message for n in app._notifications] == [problem]
