"""Issue 13 in the viewer: trace text is never markup and never raw, and no record takes it down.

Each test opens a run built in tmp_path whose notes, ids, schema or nesting are hostile, drives the
viewer like a person would, and reads what the widgets actually rendered (the composed screen or
the widget's own render), not what the code meant to show.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from records import tool
from test_live import until
from viewer_helpers import settle

from tracetui.model.text import MAX_DEPTH
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.screens.confirm_rerun import ConfirmRerun
from tracetui.ui.widgets.detail import DetailPane
from tracetui.ui.widgets.rerun_pane import RerunPane

OSC = "\x1b]0;pwned\x07"
MARKUP = "[/] [bold]x[/bold] [/]"


def write_run(folder: Path, lines: list[str], base: str = "B.jsonl") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / base).write_text("".join(x + "\n" for x in lines))
    return folder


def make_app(path: Path) -> TraceApp:
    return TraceApp(open_paths([str(path)]), follow=False)


def screen_text(app: TraceApp) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip) for strip in strips)


def raw_characters(text: str) -> list[str]:
    return sorted(
        {hex(ord(c)) for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F}
    )


def detail_text(app: TraceApp) -> str:
    return str(app.query_one(DetailPane).body.render())


async def test_notes_with_markup_are_shown_literally(tmp_path: Path) -> None:
    # A Claude Code session whose first result names a call not in the file: the import note
    # quotes that tool_use_id, which holds markup (with the `[/]` that crashed the viewer).
    def line(kind: str, uuid: str, content: list[dict[str, Any]]) -> str:
        message = {"role": kind, "content": content}
        return json.dumps({"type": kind, "sessionId": "s", "uuid": uuid, "message": message})

    use = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}
    lines = [
        line("user", "u1", [{"type": "tool_result", "tool_use_id": f"t{MARKUP}{OSC}"}]),
        line("assistant", "u2", [use]),
        line("user", "u3", [{"type": "tool_result", "tool_use_id": "t1", "content": "a"}]),
    ]
    folder = write_run(tmp_path / "run", lines, "session.jsonl")
    app = make_app(folder / "session.jsonl")
    # notifications=True: Pilot leaves toasts out unless asked, and the toast is what must render.
    async with app.run_test(size=(200, 50), notifications=True) as pilot:
        await settle(pilot)
        notes = [(n.message, n.markup) for n in app._notifications]
        assert notes == [
            (
                "claude-code import: 1 tool call(s) imported; 1 problem(s): line 1: result for a "
                f"call not in the file (t{MARKUP}␛]0;pwned␇)",
                False,
            )
        ]
        await pilot.pause()
        screen = screen_text(app)
        assert raw_characters(screen) == []
        assert "[bold]x[/bold]" in screen  # the toast shows the brackets themselves


async def test_ids_with_markup_are_shown_literally(tmp_path: Path) -> None:
    root = f"r{MARKUP}"
    folder = write_run(
        tmp_path / "run",
        [
            json.dumps(tool(root, exit_code=1, ok_preview=False, agent_note=f"n{MARKUP}")),
            json.dumps(tool(f"c{MARKUP}", parent_command_id=root, exit_code=1, ok_preview=False)),
        ],
    )
    app = make_app(folder)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        app.select_row(0)
        await pilot.pause()
        assert f"note      n{MARKUP}" in detail_text(app).splitlines()
        app.select_row(1)
        await pilot.pause()
        assert f"id        c{MARKUP}   retry of {root}" in detail_text(app).splitlines()
        assert f"c{MARKUP}" in screen_text(app)


async def test_raw_view_heading_neutralises_the_schema(tmp_path: Path) -> None:
    folder = write_run(tmp_path / "run", [json.dumps(tool("a", schema=f"import/zz{OSC}{MARKUP}"))])
    app = make_app(folder)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        app.select_row(0)
        await pilot.press("R")
        await pilot.pause()
        text = detail_text(app)
        assert text.splitlines()[0] == f"raw record (zz␛]0;pwned␇{MARKUP})"
        assert raw_characters(screen_text(app)) == []


async def test_raw_view_of_a_record_nested_1000_deep(tmp_path: Path) -> None:
    record = json.dumps(tool("deep"))
    deep = record[:-1] + ', "nested": ' + "[" * 1000 + '"bottom"' + "]" * 1000 + ', "z": "after"}'
    folder = write_run(tmp_path / "run", [deep, json.dumps(tool("next"))])
    app = make_app(folder)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        app.select_row(0)
        await pilot.press("R")
        await pilot.pause()
        lines = detail_text(app).splitlines()
        assert lines[0] == "raw record (tracetui/1)"
        assert '  "command_id": "deep",' in lines
        assert "  " * MAX_DEPTH + f"… nested deeper than {MAX_DEPTH} levels: not drawn" in lines
        assert lines[-2:] == ['  "z": "after"', "}"]  # the rest of the record stays visible
        await pilot.press("j")  # and the viewer goes on
        await pilot.pause()
        assert '  "command_id": "next",' in detail_text(app).splitlines()


async def test_rerun_pane_title_with_a_markup_looking_id(tmp_path: Path) -> None:
    cid = "[/]i[bold]d"
    rec = tool(cid, argv=[sys.executable, "-c", "print('hi')"], cwd=str(tmp_path))
    folder = write_run(tmp_path / "run", [json.dumps(rec)])
    app = make_app(folder)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        app.select_row(0)
        await pilot.pause()
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmRerun))
        await pilot.press("y")
        await until(pilot, lambda: bool(app.query(RerunPane)))
        pane: Any = app.query_one(RerunPane)
        await until(pilot, lambda: not pane.running, pauses=2000)
        await pilot.pause()
        assert pane._border_title.plain == f"re-run · {cid}"
        assert f"re-run · {cid}" in screen_text(app)
