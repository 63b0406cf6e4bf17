"""Shared fixtures: building small runs on disk from records or raw lines."""

from __future__ import annotations

import gc
import gzip
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from records import Line, encode_line

from tracetui.ui import heap  # (it imports only gc: the core's tests load no Textual)


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


# ------------------------------------------------------------------ the collector in the session
# A full pass of the cycle collector walks every object the process holds that is not frozen, and
# pytest's process holds much that the viewer's never does: each collected test with its
# parameters, every test module and what it made at import, and Textual's caches (bounded lru
# caches of strips and styles, ~100k objects once full) filled by earlier tests' apps. The
# passes the viewer makes at each open (ui/heap.settle) walked all of it: 0.2-0.4 s an open, a
# third of tests/ui's time. So what lives as long as the session is frozen instead: what
# collecting made, and after each test that opened a run, what outlived it. The viewer's own use
# of the collector is replaced for the session by stand-ins that keep that frozen; a test that
# requests ``real_heap`` (tests/ui/test_ui_stall_heap.py, tests/unit/test_heap.py) gets it.
REAL_HEAP = (heap.settle, heap.freeze, heap.freeze_young)
_opened: list[str] = []  # the tests since the last freeze that opened a run (settle was called)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collecting made (it lives as long as the session): full passes skip it."""
    gc.collect()
    gc.freeze()


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:
    """After a test that opened a run (its fixtures and arguments let go): free its app, then
    freeze what outlived it (Textual's caches), so the next test's passes walk only its own."""
    if _opened:
        _opened.clear()
        gc.collect()
        gc.freeze()


def _settle_in_session() -> None:
    """heap.settle for the suite: a full pass without the ``gc.unfreeze()`` that would thaw the
    session's frozen heap for it to walk. Nothing of an app is frozen in the session (see
    below), so an earlier app's cycles are in this pass's reach all the same."""
    _opened.append("settle")
    gc.collect()


def _freeze_in_session() -> None:
    """heap.freeze and heap.freeze_young for the suite: nothing. An app's objects stay unfrozen
    while it runs, so that the pass after its test frees them; frozen, they would be kept to
    the session's end."""


@pytest.fixture(autouse=True, scope="session")
def _session_heap() -> Iterator[None]:
    heap.settle, heap.freeze, heap.freeze_young = (
        _settle_in_session,
        _freeze_in_session,
        _freeze_in_session,
    )
    yield
    heap.settle, heap.freeze, heap.freeze_young = REAL_HEAP


@pytest.fixture
def real_heap(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """ui/heap.py itself for this test: what the viewer does with the collector for users. (Set
    through monkeypatch, so a test's own wrapping of these functions is undone in order.) Its
    ``settle`` thaws everything; after the test, what it left frozen is thawed, to be let go
    and the rest frozen again once the test is done (pytest_runtest_logfinish)."""
    for name, call in zip(("settle", "freeze", "freeze_young"), REAL_HEAP, strict=True):
        monkeypatch.setattr(heap, name, call)
    yield
    gc.unfreeze()
    _opened.append("real_heap")


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
