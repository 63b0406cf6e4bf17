"""Pilot's idle wait in 10 ms windows instead of 20 ms, for the tests that drive an app
(tests/ui, tests/snapshots: each conftest.py imports the fixture, autouse there).

``pilot.pause()`` and ``pilot.press(key)`` (and the snapshot plugin, before its screenshot)
wait (``textual._wait.wait_for_idle``) until the process, all its threads, used under 1/20 of
a window's time in one window of ``SLEEP_GRANULARITY`` (20 ms): at least one window a wait,
and a wait that begins while the app works ends up to a window after it stops. With three or
four such waits per key or step, that window was most of a Pilot test's wall time
(tests/ui/test_keys.py and test_app.py: 35 s, of which 17 s of CPU). Halved, the same rule
holds (idle: under 5% of the window's time; a busy thread still keeps a wait going) and those
tests take 23 s. docs/testing.md, "Seventh pass".
"""

from __future__ import annotations

import pytest
import textual._wait

IDLE_WINDOW = 0.01


@pytest.fixture(autouse=True)
def shorter_idle_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textual._wait, "SLEEP_GRANULARITY", IDLE_WINDOW)
    monkeypatch.setattr(textual._wait, "SLEEP_IDLE", IDLE_WINDOW / 20)
