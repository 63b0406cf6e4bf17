"""The viewer's ``u`` on an imported Claude Code session whose big result the agent persisted to a
file: the part past the preview, headed with what was (and was not) checked; refused with its
one line when the named file is a link."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Static
from viewer_helpers import make_app, settle

from tracetui.ui.screens.unseen import UnseenScreen

SESSION = "5f0c1e2a-0000-4000-8000-00000000000b"
CALL = "toolu_01pytest"
FULL = "".join(f"tests/test_{i:04d}.py::test_ok PASSED\n" for i in range(1500))
FULL += "E   AssertionError: 33.33 != 33.34\n"


def session(folder: Path) -> Path:
    """One Bash call whose result Claude Code saved to <session>/tool-results/<id>.txt."""
    target = folder / SESSION / "tool-results" / f"{CALL}.txt"
    cut = FULL[:2000]
    preview = cut[: cut.rfind("\n")]
    text = (
        f"<persisted-output>\nOutput too large ({len(FULL) / 1024:.1f}KB). Full output saved to: "
        f"{target}\n\nPreview (first 2KB):\n{preview}\n...\n</persisted-output>"
    )
    call = {"type": "tool_use", "id": CALL, "name": "Bash", "input": {"command": "pytest"}}
    result = {"type": "tool_result", "tool_use_id": CALL, "content": text, "is_error": False}
    lines = [
        {
            "type": "assistant",
            "uuid": "a1",
            "sessionId": SESSION,
            "timestamp": "2025-07-01T10:00:00.000Z",
            "message": {"id": "m1", "role": "assistant", "content": [call]},
        },
        {
            "type": "user",
            "uuid": "u1",
            "sessionId": SESSION,
            "timestamp": "2025-07-01T10:00:03.000Z",
            "message": {"role": "user", "content": [result]},
        },
    ]
    path = folder / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    target.parent.mkdir(parents=True)
    return path


def text_of(app, selector: str) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one(selector, Static).content)


async def test_u_on_a_persisted_output_shows_the_rest_and_says_it_is_not_verified(
    tmp_path: Path,
) -> None:
    trace = session(tmp_path)
    (tmp_path / SESSION / "tool-results" / f"{CALL}.txt").write_text(FULL, encoding="utf-8")
    app = make_app(str(trace))
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        app.select_row(0)
        await pilot.pause()
        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, UnseenScreen)
        head = text_of(app, "#unseen-head")
        assert "kept by the agent in " in head
        assert "not verified (no hash recorded)" in head
        assert "hash-checked" not in head and "checked against its hash" not in head
        assert text_of(app, "#unseen-body").startswith("▲ the agent's view ended here")
        await pilot.press("G")
        await pilot.pause()
        body = text_of(app, "#unseen-body")
        assert body.endswith("E   AssertionError: 33.33 != 33.34\n■ end of the stream")


async def test_u_on_a_persisted_output_that_is_a_link_says_why_it_is_not_used(
    tmp_path: Path,
) -> None:
    trace = session(tmp_path)
    (tmp_path / SESSION / "tool-results" / f"{CALL}.txt").symlink_to("/etc/passwd")
    app = make_app(str(trace))
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        app.select_row(0)
        await pilot.pause()
        await pilot.press("u")
        await settle(pilot)
        assert not isinstance(app.screen, UnseenScreen)
        messages = [n.message for n in app._notifications]
    target = tmp_path / SESSION / "tool-results" / f"{CALL}.txt"
    assert messages == [
        f"stdout: {target}: not used: it is a symbolic link (a file named in a trace is never "
        "reached through a link)\nr re-runs it uncapped to see the rest"
    ]
