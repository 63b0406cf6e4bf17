"""The demo's scripted agent session: real commands recorded through ``run_with_feedback``.

Each step runs one of the tool scripts next to this module, never through a shell. The scripts
are copied into the run folder's ``tools/`` with a ``#!`` line naming ``sys.executable`` and run
as ``tools/NAME.py …``: the recorded argv reads like an agent's command instead of starting with
a long interpreter path, and a re-run from the viewer finds them. (Where that line would be too
long for the kernel, or cannot be made executable, ``sys.executable`` is put in front instead.) The run rotates every few KB, so rotation happens while a
viewer follows it. No UI here: ``tracetui demo`` runs this in a thread beside the viewer, and
``tracetui demo --no-ui`` runs it alone.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from tracetui.record.recorder import run_with_feedback

BASE = "feedback_record.jsonl"
MAX_BYTES = 4096
"""Tiny on purpose: the set rotates every one or two records, on screen."""
KEEP = 9
"""Enough members that nothing of the demo is dropped (its chains stay whole)."""
TOOLS = (
    "flaky_tests.py",
    "inventory.py",
    "build.py",
    "server_log.py",
    "env_check.py",
    "slow_check.py",
    "deploy_check.py",
)
MISSING_TOOL = "invoice-sync"
"""A program that does not exist: its span has no exit code and says why."""


@dataclass(frozen=True, slots=True)
class Step:
    """One command of the session."""

    argv: tuple[str, ...]
    """The tool script and its arguments (``python`` is put in front), or a bare program."""
    note: str
    """The agent's expectation, written before it read the result."""
    cap: int = 1024
    clip: str = "head"
    retry: bool = False
    """Chain to the previous step (``parent_command_id``)."""
    pause: float = 0.6
    """Seconds to wait after this step (divided by the speed) so a person can follow."""
    script: bool = True
    """False for a program run as is (no interpreter in front)."""


STEPS: tuple[Step, ...] = (
    Step(
        ("flaky_tests.py", "--state", ".flaky-state", "--pass-on", "3"),
        "expect the money tests to pass",
    ),
    Step(
        ("flaky_tests.py", "--state", ".flaky-state", "--pass-on", "3"),
        "probably a flake: retry",
        retry=True,
    ),
    Step(
        ("flaky_tests.py", "--state", ".flaky-state", "--pass-on", "3"),
        "retry once more",
        retry=True,
        pause=0.9,
    ),
    Step(("inventory.py", "--items", "50"), "expect 50 invoices, look for overdue ones", cap=2048),
    Step((MISSING_TOOL, "--dry-run"), "sync invoices to the ledger", script=False, pause=0.4),
    Step(("build.py", "--units", "120"), "expect the build to pass", cap=2048),
    Step(("server_log.py", "--lines", "160"), "expect the api to start cleanly", clip="tail"),
    Step(
        ("build.py", "--units", "80", "--ok"),
        "rebuild without the ledger module",
        cap=1536,
        clip="head_tail",
    ),
    Step(("env_check.py",), "expect the config to be complete", pause=0.4),
    Step(("slow_check.py", "--seconds", "1.5"), "expect the health probes to pass", pause=0.3),
    Step(("deploy_check.py",), "expect the deploy gate to open", pause=0.3),
)


SHEBANG_MAX = 127
"""Longest ``#!`` line every Linux kernel reads whole (newer ones read more)."""


def prepare(folder: str) -> str:
    """Create ``folder`` (with ``tools/`` and an empty base file); returns the base path."""
    os.makedirs(os.path.join(folder, "tools"), exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    shebang = f"#!{sys.executable}\n"
    direct = len(shebang) <= SHEBANG_MAX and " " not in sys.executable and os.name == "posix"
    for name in TOOLS:
        with open(os.path.join(here, name), encoding="utf-8") as src:
            text = src.read()
        dest = os.path.join(folder, "tools", name)
        with open(dest, "w", encoding="utf-8") as out:
            out.write((shebang if direct else "") + text)
        if direct:
            os.chmod(dest, 0o755)
    base = os.path.join(folder, BASE)
    open(base, "ab").close()  # the viewer opens the run before its first span
    return base


def tool_argv(folder: str, args: tuple[str, ...]) -> list[str]:
    """``tools/NAME.py ARGS…`` when the copy is executable, else with the interpreter in front."""
    script = os.path.join("tools", args[0])
    if os.access(os.path.join(folder, script), os.X_OK):
        return [script, *args[1:]]
    return [sys.executable, script, *args[1:]]


def run_session(
    folder: str,
    *,
    speed: float = 1.0,
    stop: threading.Event | None = None,
    on_step: Callable[[int, dict[str, object]], None] | None = None,
) -> int:
    """Run every step into ``folder`` (see :func:`prepare`); returns the number recorded.

    ``speed`` divides the pauses between steps (0: no pauses). Setting ``stop`` ends the
    session between steps and kills the command running.
    """
    stop = stop or threading.Event()
    base = os.path.join(folder, BASE)
    parent: str | None = None
    done = 0
    for number, step in enumerate(STEPS):
        if stop.is_set():
            break
        argv = tool_argv(folder, step.argv) if step.script else list(step.argv)
        result = run_with_feedback(
            argv,
            log=base,
            cap=step.cap,
            clip=step.clip,
            note=step.note,
            parent=parent if step.retry else None,
            cwd=folder,
            max_bytes=MAX_BYTES,
            keep=KEEP,
            cancel=stop,
            tool_name=os.path.splitext(step.argv[0])[0],
        )
        done += 1
        parent = str(result.record["command_id"])
        if on_step is not None:
            on_step(number, result.record)
        if speed > 0 and stop.wait(step.pause / speed):
            break
    return done
