"""The snapshot tests: Pilot's idle wait in 10 ms windows (tests/idle_window.py), before each
screenshot as in the Pilot tests; a screenshot taken early would differ and fail, not pass."""

from idle_window import shorter_idle_window  # noqa: F401 - an autouse fixture, used by being here
