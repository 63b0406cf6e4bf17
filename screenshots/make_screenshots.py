"""Regenerate the viewer's screenshots (SVG) from ``sample_runs/`` at fixed sizes.

    .venv/bin/python screenshots/make_screenshots.py

Each shot opens the run headless (``App.run_test``), waits for the index, does what a person
would do (keys), and saves the screen. Nothing depends on the clock or on the user's state folder
(re-runs made with ``r``), so the SVGs only change when the viewer or the sample runs do.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "screenshots")
RUN = os.path.join("sample_runs", "flaky-billing")


async def shot(name: str, size: tuple[int, int], setup, run: str = RUN) -> None:  # type: ignore[no-untyped-def]
    from tracetui.store.runset import open_paths
    from tracetui.ui.app import TraceApp

    app = TraceApp(open_paths([run]), follow=False)
    async with app.run_test(size=size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await setup(app, pilot)
        await pilot.pause()
        app.save_screenshot(f"{name}.svg", path=OUT)
    print(f"screenshots/{name}.svg")


async def postmortem(app, pilot) -> None:  # type: ignore[no-untyped-def]
    """As opened: the latest failure selected."""


async def truncated(app, pilot) -> None:  # type: ignore[no-untyped-def]
    """The first truncated span, its detail scrolled to the clip point's banner."""
    from tracetui.ui.widgets.detail import DetailPane

    await pilot.press("g", "t")
    await pilot.pause()
    pane = app.query_one(DetailPane)
    # Find the banner among the lines as wrapped on screen, then scroll it into view.
    lines = pane.body.content.wrap(app.console, pane.body.content_region.width)
    at = next((i for i, ln in enumerate(lines) if "the agent never saw" in ln.plain), 0)
    pane.scroll_to(y=max(0, at - 10), animate=False, immediate=True)


async def chain(app, pilot) -> None:  # type: ignore[no-untyped-def]
    """The longest retry chain, its last attempt selected."""
    from tracetui.analysis.chains import ChainIndex

    chains = ChainIndex(app.index).multi_attempt_chains()
    if chains:
        longest = max(chains, key=lambda c: len(c.rows()))
        app.select_row(longest.rows()[-1])


async def help_screen(app, pilot) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("question_mark")


async def trends(app, pilot) -> None:  # type: ignore[no-untyped-def]
    """The trends screen: hidden share, failures and response sizes over the run."""
    await pilot.press("s")
    await app.workers.wait_for_complete()
    await pilot.pause(0.2)


async def rerun(app, pilot) -> None:  # type: ignore[no-untyped-def]
    """The latest failure re-run uncapped: the pane opens on the first failure line the agent
    never saw. Not recorded (its row would carry a clock-made id); durations pinned."""
    from tracetui.ui.screens.confirm_rerun import start_rerun
    from tracetui.ui.widgets import rerun_pane
    from tracetui.ui.widgets.rerun_pane import RerunPane

    rerun_pane._secs = lambda ms: "?" if ms is None else "0.4 s"  # the clock stays out of the SVG
    start_rerun(app, app.selected_row, write_sidecar=False)
    await pilot.pause()
    await pilot.press("y")
    for _ in range(3000):
        panes = app.query(RerunPane)
        if panes and not panes.first().running:
            break
        await pilot.pause(0.01)
    await pilot.pause()


async def unseen(app, pilot) -> None:  # type: ignore[no-untyped-def]
    """``u`` on the latest failure: the kept bytes the agent never saw, no re-run; ``/`` walks to
    the AssertionError that lay past the cap."""
    from tracetui.ui.screens.unseen import UnseenScreen

    await pilot.press("u")
    for _ in range(3000):
        screen = app.screen
        if isinstance(screen, UnseenScreen) and (screen.pages or screen.problem):
            break
        await pilot.pause(0.01)
    await pilot.press("slash", *"AssertionError", "enter")
    await pilot.pause()


SHOTS: list[tuple] = [  # (name, size, setup[, run])
    ("rerun", (120, 40), rerun),
    ("unseen", (120, 40), unseen),
    ("postmortem", (160, 48), postmortem),
    ("postmortem-80x24", (80, 24), postmortem),
    ("truncated-detail", (160, 48), truncated),
    ("chain", (160, 48), chain),
    ("help", (120, 40), help_screen),
    ("trends", (120, 40), trends, os.path.join("sample_runs", "rotated")),
]


def main() -> int:
    os.chdir(ROOT)  # run names in the header are relative: same SVG wherever the repo lives
    # The samples' re-runs live in the user's state folder (store/sidecars.py): a re-run once
    # made there with `r` would add its row to every shot. A private, empty one keeps them out.
    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="tracetui-shots-")
    sys.path.insert(0, ROOT)
    if not os.path.isdir(RUN):
        print(f"{RUN} is missing (sample_runs/make_samples.py makes it)", file=sys.stderr)
        return 2
    for name, size, setup, *run in SHOTS:
        asyncio.run(shot(name, size, setup, *run))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
