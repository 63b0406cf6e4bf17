"""The viewer's Pilot tests: Pilot's idle wait in 10 ms windows (tests/idle_window.py)."""

from idle_window import shorter_idle_window  # noqa: F401 - an autouse fixture, used by being here
