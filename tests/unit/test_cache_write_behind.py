"""The cache entry written on a thread of its own (``build_index(..., save_behind=True)``,
store/cache_state.py): the same entry and state as a write in line; the state waits for the
write, a recall that does not wait finds nothing meanwhile; a failed write is no error and a
bug in it is raised where the state is asked for; ``summary`` exits only once the entry is on
disk."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from cache_runs import make_set, private_cache

from tracetui.store import cache, cache_files, cache_results, cache_state
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_cache(tmp_path, monkeypatch)


def entry(home: Path) -> tuple[list[dict[str, Any]], bytes]:
    """The run's entry: its parts' headers (without when each member was read) and its body."""
    (path,) = home.glob("*.idx")
    loaded = cache._load_entry(str(path))
    assert loaded is not None
    header, body = loaded
    parts = [{k: v for k, v in p.items() if k != "scanned_ns"} for p in header["parts"]]
    return parts, bytes(body)


def test_the_entry_and_state_are_those_of_a_write_in_line(home: Path, tmp_path: Path) -> None:
    base = make_set(tmp_path / "run")
    inline = build_index(open_path(str(base))[0])
    state = cache.state_of(inline)
    assert state is not None
    written = entry(home)
    for f in home.iterdir():
        f.unlink()
    behind = build_index(open_path(str(base))[0], save_behind=True)
    assert cache.state_of(behind) == state
    assert entry(home) == written


class Gate:
    """Holds the entry's write until opened; says when it has started."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.started, self.open = threading.Event(), threading.Event()
        real = cache_files.atomic_write

        def held(path: str, chunks: list[Any]) -> bool:
            self.started.set()
            assert self.open.wait(10), "the gate was never opened"
            return real(path, chunks)

        monkeypatch.setattr(cache, "atomic_write", held)


def test_the_state_waits_for_the_write(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = make_set(tmp_path / "run")
    gate = Gate(monkeypatch)
    index = build_index(open_path(str(base))[0], save_behind=True)
    assert gate.started.wait(10)
    # While the entry is written: nothing is recalled without waiting, nothing is on disk.
    assert cache_state.state_of(index, wait=False) is None
    assert cache_results.recall(index, "summary", wait=False) is None
    assert not list(home.glob("*.idx"))
    got: list[str | None] = []
    asker = threading.Thread(target=lambda: got.append(cache.state_of(index)))
    asker.start()
    asker.join(0.2)
    assert asker.is_alive(), "state_of returned before the write ended"
    gate.open.set()
    asker.join(10)
    assert got and got[0] is not None
    assert list(home.glob("*.idx"))
    # Kept under that state and recalled, as after a write in line.
    cache_results.keep(index, {"summary": {"spans": 1}})
    assert cache_results.recall(index, "summary", wait=False) == {"spans": 1}


def test_one_write_at_a_time(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(monkeypatch)
    first = build_index(open_path(str(make_set(tmp_path / "a")))[0], save_behind=True)
    assert gate.started.wait(10)
    gate.started.clear()
    done: list[object] = []
    second = threading.Thread(
        target=lambda: done.append(
            build_index(open_path(str(make_set(tmp_path / "b")))[0], save_behind=True)
        )
    )
    second.start()
    second.join(0.2)
    assert second.is_alive(), "the second build's write started before the first ended"
    gate.open.set()
    second.join(10)
    assert cache.state_of(first) is not None
    assert done and cache.state_of(done[0]) is not None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("error", "raised"),
    [(OSError("disk full"), False), (ValueError("odd"), False), (RuntimeError("a bug"), True)],
    ids=["oserror", "valueerror", "bug"],
)
def test_a_failed_write(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
    raised: bool,
) -> None:
    def broken(path: str, chunks: list[Any]) -> bool:
        raise error

    monkeypatch.setattr(cache, "atomic_write", broken)
    index = build_index(open_path(str(make_set(tmp_path / "run")))[0], save_behind=True)
    if raised:
        with pytest.raises(RuntimeError, match="a bug"):
            cache.state_of(index)
    assert cache.state_of(index) is None  # not cached: nothing is kept or recalled for it
    assert not list(home.glob("*.idx"))


@pytest.mark.parametrize("command", [["summary", "--json"], ["lint", "--format", "json"]])
def test_a_command_exits_with_its_entry_written(tmp_path: Path, command: list[str]) -> None:
    """A fresh process: the command's output, then an entry whole on disk, so the next run is
    warm (a summary prints the kept output; lint reads the kept rows): the same bytes."""
    base = make_set(tmp_path / "run")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    env.pop("TRACETUI_NO_CACHE", None)
    # The test runs are tiny: lower the size from which a run is cached in the child too.
    code = (
        "import sys; from tracetui.store import cache; cache.MIN_RUN_BYTES = 0;"
        " from tracetui.cli import main; raise SystemExit(main(sys.argv[1:]))"
    )
    argv = [sys.executable, "-c", code, *command, str(base)]
    cold = subprocess.run(argv, capture_output=True, env=env)
    index = tmp_path / "xdg" / "tracetui" / "index"
    assert len(list(index.glob("*.idx"))) == 1
    assert len(list(index.glob("*.out"))) == (command[0] == "summary")
    assert not list(index.glob(".*.tmp"))
    warm = subprocess.run(argv, capture_output=True, env=env)
    assert (warm.returncode, warm.stdout) == (cold.returncode, cold.stdout)
    assert cold.returncode in (0, 1)
    assert cold.stderr == warm.stderr == b""
