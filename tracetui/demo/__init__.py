"""``tracetui demo``: a scripted agent session recorded through the real recorder.

:mod:`tracetui.demo.session` runs the steps; the other modules here are the small tools the
session runs (each a plain script, started with ``sys.executable``, no shell): a flaky test
suite, a JSON tool, a long build log, a server log read from its tail, a config check that
prints secrets, a slow check and a deploy check. They are deterministic, so the demo run is the
same every time apart from times, durations and ids.
"""
