"""Pilot tests of the re-run pane (ui/widgets/rerun_pane.py): confirm → run → diff → cancel.

Each test records a small real script with the real recorder into a tmp run (stdout capped at
8 KiB), opens the viewer on it, and drives ``r`` like a person would. Waits are "pause until it
is there", bounded by a count of pauses, never by a clock.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_live import until
from test_narrow_layout import screen_lines
from textual.message import Message
from textual.widgets import Checkbox
from viewer_helpers import settle

from tracetui.model.text import neutralize_line
from tracetui.record.recorder import run_with_feedback
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_paths, sidecar_path
from tracetui.ui.app import TraceApp
from tracetui.ui.screens.confirm_rerun import ConfirmRerun
from tracetui.ui.widgets.chain import ChainPane
from tracetui.ui.widgets.rerun_pane import RerunPane
from tracetui.ui.widgets.rerun_unseen import FIRST_FAILURE

PY = sys.executable
CAP = 8192
FAILURE = "E   AssertionError: total 33.33 != 33.34"
SCRIPTS = {
    # 20 KB of passing lines, the failure last: far past the 8 KiB the agent was shown.
    "suite": "import sys\n"
    "for i in range(400):\n    sys.stdout.write(f'test_{i:03d} PASSED ' + 'x' * 34 + '\\n')\n"
    f"print({FAILURE!r})\nsys.exit(1)\n",
    # Records its pid, then sleeps: the cancel test checks the process is gone.
    "sleeper": "import os, time\nopen('sleeper.pid', 'w').write(str(os.getpid()))\n"
    "print('sleeping', flush=True)\ntime.sleep(60)\n",
    # A new timestamp on every run: differs by hash, equal once timestamps are normalised.
    "clock": "import datetime\nprint('started', datetime.datetime.now().isoformat())\nprint('ok')\n",
}


def record(folder: Path, script: str) -> str:
    """Record ``script`` into ``folder/run.jsonl`` (cap 8 KiB); the span's command id."""
    folder.mkdir(exist_ok=True)
    (folder / f"{script}.py").write_text(SCRIPTS[script])
    argv = [PY, f"{script}.py"]
    if script == "sleeper":  # record it quickly: the re-run is the one that sleeps
        (folder / "sleeper.py").write_text("print('sleeping')\n")
    res = run_with_feedback(argv, log=folder / "run.jsonl", cap=CAP, clip="head", cwd=folder)
    (folder / f"{script}.py").write_text(SCRIPTS[script])
    (folder / "sleeper.pid").unlink(missing_ok=True)
    return str(res.record["command_id"])


def gone(pid: int) -> bool:
    """True once ``pid`` is gone or a zombie (bounded wait: SIGKILL is delivered asynchronously)."""
    for _ in range(200):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def make_app(folder: Path, follow: bool = False) -> TraceApp:
    return TraceApp(open_paths([str(folder)]), follow=follow)


def text(app: TraceApp, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


def notes(app: TraceApp) -> list[str]:
    return [n.message for n in app._notifications]


async def confirm_and_finish(pilot: Any) -> RerunPane:
    app = pilot.app
    old = set(app.query(RerunPane))
    await pilot.press("r")
    await until(pilot, lambda: isinstance(app.screen, ConfirmRerun))
    await pilot.press("y")
    await until(pilot, lambda: bool(set(app.query(RerunPane)) - old))
    pane = app.query_one(RerunPane)
    await until(pilot, lambda: not pane.running, pauses=2000)
    await pilot.pause()
    return pane


async def test_confirm_run_diff_and_the_never_seen_failure(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    record(folder, "suite")
    app = make_app(folder)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        pane = await confirm_and_finish(pilot)
        status = text(app, "#rerun-status")
        assert "exit    then 1   now 1" in status
        assert (
            "stdout  20,441 → 20,441 B  identical\n        saw the head window · 12,249 B never seen\n"
            in status
        )
        assert "stderr  0 → 0 B  identical\n        saw the whole stream\n" in status
        body = text(app, "#rerun-stdout")
        diff_part, unseen_part = body.split(
            "── never seen by the agent: 12,249 B from byte 8,192 ──"
        )
        assert "no difference" in diff_part and FAILURE not in diff_part
        assert unseen_part.rstrip().endswith(FAILURE)
        # It opens on the first failure line the agent never saw (rerun/landmark.py), in view.
        assert pane.pages["stdout"] == pane.failures["stdout"] == 12_208
        assert unseen_part.startswith(
            f"\n{FIRST_FAILURE}\nbytes 12,208–12,249 of 12,249   (the end) · < back\n{FAILURE}"
        )
        assert any(FIRST_FAILURE in line for line in screen_lines(app))
        # < goes back a page, then to the excerpt (its start and its end).
        await pilot.press("less_than_sign")
        assert "bytes 4,016–12,208 of 12,249   > next · < back" in text(app, "#rerun-stdout")
        await pilot.press("less_than_sign")
        assert pane.pages["stdout"] is None
        excerpt = text(app, "#rerun-stdout").split("12,249 B from byte 8,192 ──")[1]
        assert excerpt.startswith("\nEnd jumps to its last lines\n…")  # 8,192 is mid-line
        # Paging: > shows the first page of the never-seen part, again the next, < goes back.
        await pilot.press("greater_than_sign")
        assert "bytes 0–8,192 of 12,249   > next · < back" in text(app, "#rerun-stdout")
        await pilot.press("greater_than_sign")
        page2 = text(app, "#rerun-stdout")
        assert "bytes 8,192–12,249 of 12,249   (the end) · < back" in page2 and FAILURE in page2
        await pilot.press("less_than_sign", "less_than_sign")
        assert pane.pages["stdout"] is None
        # Esc closes the finished pane; its spool files are gone, the detail pane is back.
        spools = [pane.result.captured.stdout, pane.result.captured.stderr]
        await pilot.press("escape")
        await pilot.pause()
        assert not app.query(RerunPane) and app.query_one("#detail").display
        assert [s.closed for s in spools] == [True, True]


async def test_cancel_kills_the_process_group(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    record(folder, "sleeper")
    app = make_app(folder)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("r", "y")
        await until(pilot, lambda: (folder / "sleeper.pid").exists(), pauses=2000)
        await until(pilot, lambda: "stdout 9 B" in text(app, "#rerun-status"), pauses=2000)
        assert text(app, "#rerun-status").startswith("running")
        pid = int((folder / "sleeper.pid").read_text())
        await pilot.press("escape")
        pane = app.query_one(RerunPane)
        await until(pilot, lambda: not pane.running, pauses=2000)
        await pilot.pause()
        assert gone(pid)
        assert "error   cancelled; process group killed" in text(app, "#rerun-status")
        # Even a cancelled re-run is recorded, as a failed attempt with the reason.
        rows = [
            json.loads(x)
            for x in Path(sidecar_path(str(folder / "run.jsonl"))).read_text().splitlines()
        ]
        assert [(r["exit_code"] is not None and r["exit_code"] < 0, r["error"]) for r in rows] == [
            (True, "cancelled; process group killed")
        ]


@pytest.mark.parametrize("key", ["n", "escape"], ids=["n", "esc"])
async def test_declining_runs_nothing(tmp_path: Path, key: str) -> None:
    folder = tmp_path / "run"
    record(folder, "sleeper")
    app = make_app(folder)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmRerun))
        facts = text(app, "#confirm-facts")
        assert f"argv  {PY} sleeper.py" in facts and f"cwd   {folder}" in facts
        assert "untrusted input" in facts
        await pilot.press("enter")  # Cancel has the focus: a stray Enter runs nothing
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmRerun)
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, ConfirmRerun))
        await pilot.press("r")  # asking again while asking stacks nothing
        await pilot.pause()
        assert sum(isinstance(sc, ConfirmRerun) for sc in app.screen_stack) == 1
        await pilot.press(key)
        await settle(pilot)
        assert not app.query(RerunPane)
    assert not os.path.exists(sidecar_path(str(folder / "run.jsonl")))
    assert not (folder / "sleeper.pid").exists()


@pytest.mark.parametrize("follow", [False, True], ids=["frozen", "live"])
async def test_the_rerun_joins_the_chain(tmp_path: Path, follow: bool) -> None:
    folder = tmp_path / "run"
    cid = record(folder, "suite")
    app = make_app(folder, follow)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        assert len(app.index) == 1
        new_ids = []
        # Twice: the second pane replaces the first, and its row joins a sidecar already read.
        for n in (2, 3):
            app.select_row(0)
            pane = await confirm_and_finish(pilot)
            new_ids.append(str(pane.result.record["command_id"]))
            await until(
                pilot, lambda n=n: app.index is not None and len(app.index) == n, pauses=2000
            )
            await settle(pilot)
        assert len(app.query(RerunPane)) == 1
        chain = app.query_one(ChainPane)
        assert [app.index.ids[r] for r in chain.order] == [cid, *new_ids]
        assert app.index.stats.spans == 1  # a re-run is no fact about the trace
        lines = str(chain.body.render()).splitlines()
        # Each line leads with the selection mark's column (▶ on the selected attempt).
        assert [ln[:14] for ln in lines[1:]] == ["  ├─ #2 exit 1", "  └─ #2 exit 1"]


async def test_rules_switch_the_diff_without_running_again(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    record(folder, "clock")
    app = make_app(folder)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot)
        pane = await confirm_and_finish(pilot)
        assert text(app, "#rerun-status").splitlines()[1].endswith(" B  differs")
        assert (
            "no difference after normalisation: switch rules off (1-5) to see the raw change"
            in text(app, "#rerun-stdout")
        )
        await pilot.press("2")  # timestamps off
        await pilot.pause()
        assert not app.query_one("#rule-timestamps", Checkbox).value
        body = text(app, "#rerun-stdout")
        assert "normalised: ansi, durations, hex, tmp" in body
        assert [ln[:9] for ln in body.splitlines() if ln[:1] in "+-" and ln[1:2] != ln[:1]] == [
            "-started ",
            "+started ",
        ]
        await pilot.press("2")
        await pilot.pause()
        assert "no difference" in text(app, "#rerun-stdout")
        assert len(Path(sidecar_path(str(folder / "run.jsonl"))).read_text().splitlines()) == 1
        assert pane.result is not None


REFUSED = [
    ("no-argv", {"argv": []}, "span 'x1' records no argv to re-run"),
    (
        "not-rerunnable",
        {"argv": ["Read", "a.txt"], "tool_name": "Read", "rerunnable": False},
        "span 'x1' is a Read call, not a shell command: it cannot be re-run (rerunnable: false)",
    ),
    ("missing-cwd", {"cwd": "gone"}, "its working directory is not there: {folder}/gone"),
]


@pytest.mark.parametrize(("name", "over", "message"), REFUSED, ids=[c[0] for c in REFUSED])
async def test_refusals_are_notices_without_a_modal(
    tmp_path: Path, name: str, over: dict[str, Any], message: str
) -> None:
    from records import tool

    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.jsonl").write_text(json.dumps(tool("x1", **over)) + "\n")
    app = make_app(folder)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmRerun)
        assert notes(app) == [message.format(folder=folder)]


WRITERS = (
    "add_member",
    "repoint_member",
    "adopt_temp",
    "add_line",
    "append",
    "register_all",
    "index_member",
    "take_in_sidecar",
)
"""RunIndex's methods that change the index."""


def spy_on_index_writes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str]]]:
    """Log every call of a WRITERS method with the modules on its call stack, innermost first."""
    calls: list[tuple[str, list[str]]] = []
    for name in WRITERS:
        real = getattr(RunIndex, name)

        def spy(self: RunIndex, *args: Any, _real: Any = real, _name: str = name, **kw: Any) -> Any:
            frame = inspect.currentframe()
            caller = frame.f_back if frame is not None else None
            modules = []
            while caller is not None:
                modules.append(str(caller.f_globals.get("__name__", "?")))
                caller = caller.f_back
            calls.append((_name, modules))
            return _real(self, *args, **kw)

        monkeypatch.setattr(RunIndex, name, spy)
    return calls


@pytest.mark.parametrize("follow", [False, True], ids=["frozen", "live"])
async def test_the_pane_posts_the_rerun_and_the_app_takes_it_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, follow: bool
) -> None:
    folder = tmp_path / "run"
    cid = record(folder, "suite")
    calls = spy_on_index_writes(monkeypatch)
    posted: dict[int, RerunPane.Recorded] = {}  # by identity: the hook sees each hop of a bubble

    def hook(message: Message) -> None:
        if isinstance(message, RerunPane.Recorded):
            posted[id(message)] = message

    app = make_app(folder, follow)
    async with app.run_test(size=(160, 48), message_hook=hook) as pilot:
        await settle(pilot)
        pane = await confirm_and_finish(pilot)
        new_id = str(pane.result.record["command_id"])
        await until(pilot, lambda: app.index is not None and len(app.index) == 2, pauses=2000)
        await settle(pilot)
        assert [m.sidecar_path for m in posted.values()] == [
            sidecar_path(str(folder / "run.jsonl"))
        ]
        assert [app.index.ids[r] for r in app.query_one(ChainPane).order] == [cid, new_id]
    # A frozen view: the app's handler asks the index to read the new row; a live one leaves
    # it to the follower. Either way no widget or screen ever wrote to the index.
    takers = [modules[0] for name, modules in calls if name == "take_in_sidecar"]
    assert takers == ([] if follow else ["tracetui.ui.app"])
    from_parts = [
        (name, modules)
        for name, modules in calls
        if any(m.startswith(("tracetui.ui.widgets.", "tracetui.ui.screens.")) for m in modules)
    ]
    assert from_parts == []


async def test_an_unreadable_reruns_file_is_a_plain_notice(tmp_path: Path) -> None:
    from records import tool

    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.jsonl").write_text(json.dumps(tool("x1")) + "\n")
    app = make_app(folder)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        path = str(folder / "gone\x1b[2J.reruns.jsonl")  # not there, and an escape in its name
        app.post_message(RerunPane.Recorded(path))
        await until(pilot, lambda: bool(notes(app)))
        [note] = list(app._notifications)
        assert note.message == f"cannot read {neutralize_line(path)}: No such file or directory"
        assert "\x1b" not in note.message and note.markup is False
        assert len(app.index) == 1
