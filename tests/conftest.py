"""Shared fixtures: building small runs on disk from records or raw lines."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest
from records import Line, encode_line


@pytest.fixture(autouse=True, scope="session")
def _private_index_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The persistent index (tracetui/store/cache.py) of the suite lives in a temp folder, never
    in the user's ~/.cache; a test that studies the cache sets its own XDG_CACHE_HOME."""
    import os

    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))


@pytest.fixture(autouse=True, scope="session")
def _private_state(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The suite's state folder (re-runs of sample_runs/ and of read-only folders, crash
    reports: tracetui/store/sidecars.py, tracetui/crash.py) is a temp folder too: a re-run
    someone made of a bundled sample by hand must not add rows to the suite's counts, and the
    suite must not leave files in the user's ~/.local/state."""
    import os

    os.environ["XDG_STATE_HOME"] = str(tmp_path_factory.mktemp("xdg-state"))


@pytest.fixture(autouse=True, scope="session")
def _child_bytecode_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The CLI tests start a ``python -m tracetui`` child per case. Where the environment sets
    PYTHONDONTWRITEBYTECODE (this machine's does), each child compiled every module it imports
    from source: 0.31 s a start against 0.20 s, and tests/cli took 88 s against 66 s. The
    children share one bytecode cache in a temp folder instead (PYTHONPYCACHEPREFIX), so nothing
    is written into the checkout."""
    import os

    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(tmp_path_factory.mktemp("pycache"))


@pytest.fixture
def make_run(tmp_path: Path) -> Callable[..., Path]:
    """``make_run({"B": [...], "B.1": [...], "B.2.gz": [...]})`` → the folder holding them."""

    def build(members: dict[str, list[Line]], folder: str = "run") -> Path:
        root = tmp_path / folder
        root.mkdir(parents=True, exist_ok=True)
        for name, lines in members.items():
            data = b"".join(encode_line(x) for x in lines)
            path = root / name
            if name.endswith(".gz"):
                path.write_bytes(gzip.compress(data))
            else:
                path.write_bytes(data)
        return root

    return build
