"""The cycle collector paused while an index is built (tracetui/store/gc_pause.py): off inside,
back as it was after, whatever the nesting, the threads or the way a build ends."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from records import encode_line, tool

from tracetui.store import build, cache, gc_pause
from tracetui.store.build import build_index
from tracetui.store.runset import open_path


@pytest.fixture(autouse=True)
def collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.parametrize("enabled", [True, False], ids=["was-on", "was-off"])
@pytest.mark.parametrize("depth", [1, 3])
def test_nested_pauses_restore_the_collector_as_it_was(enabled: bool, depth: int) -> None:
    gc.enable() if enabled else gc.disable()

    def nest(level: int) -> None:
        with gc_pause.paused():
            assert not gc.isenabled()
            if level > 1:
                nest(level - 1)
            assert not gc.isenabled()

    nest(depth)
    assert gc.isenabled() is enabled


def test_pauses_on_two_threads_end_when_the_last_one_ends() -> None:
    gc.enable()
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with gc_pause.paused():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    assert inside.wait(10)
    with gc_pause.paused():
        pass
    assert not gc.isenabled()  # the other thread's build still runs
    release.set()
    t.join(10)
    assert gc.isenabled()


@pytest.mark.parametrize("fails", [False, True], ids=["returns", "raises"])
def test_a_build_leaves_the_collector_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fails: bool
) -> None:
    monkeypatch.setattr(cache, "_off", True)
    (tmp_path / "r.jsonl").write_bytes(encode_line(tool("a")) + encode_line(tool("b")))
    seen: list[bool] = []
    real = build._build

    def spy(*args: object, **kw: object) -> object:
        seen.append(gc.isenabled())
        if fails:
            raise KeyboardInterrupt
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(build, "_build", spy)
    gc.enable()
    run = open_path(str(tmp_path / "r.jsonl"))[0]
    if fails:
        with pytest.raises(KeyboardInterrupt):
            build_index(run)
    else:
        assert len(build_index(run)) == 2
    assert seen == [False]
    assert gc.isenabled()
