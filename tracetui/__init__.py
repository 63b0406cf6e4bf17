"""tracetui: make a capped tool pipe honest, then review it.

The package splits into a pure core (``tracetui.core``: reading, normalising, chains, lint,
recording, re-running, diffing) and a thin Textual UI (``tracetui.ui``) that is imported only
when the viewer starts.
"""

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # `tracetui.run_with_feedback` without making `import tracetui` pay for the recorder.
    if name == "run_with_feedback":
        from tracetui.record.recorder import run_with_feedback

        return run_with_feedback
    raise AttributeError(f"module 'tracetui' has no attribute {name!r}")
