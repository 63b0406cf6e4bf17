"""``python -m tracetui`` is the same as the ``tracetui`` command."""

from tracetui.cli import run

run()
