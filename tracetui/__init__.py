"""tracetui: make a capped tool pipe honest, then review it.

The package splits into a pure core (``tracetui.core``: reading, normalising, chains, lint,
recording, re-running, diffing) and a thin Textual UI (``tracetui.ui``) that is imported only
when the viewer starts.
"""

__version__ = "0.1.0"
