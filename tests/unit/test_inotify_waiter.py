"""The Linux inotify wait (live/inotify.py) and the follower's waiter built on it."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tracetui.live.inotify import Inotify
from tracetui.live.watch import InotifyWaiter, PollWaiter, make_waiter

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux's")


def _append(folder: Path) -> None:
    with open(folder / "run.jsonl", "ab") as fh:
        fh.write(b"{}\n")


def _rename(folder: Path) -> None:
    os.rename(folder / "run.jsonl", folder / "run.jsonl.1")


def _create(folder: Path) -> None:
    (folder / "other.jsonl").write_bytes(b"")


def _truncate(folder: Path) -> None:
    os.truncate(folder / "run.jsonl", 0)


def _delete(folder: Path) -> None:
    os.unlink(folder / "run.jsonl")


CHANGES: list[tuple[str, Callable[[Path], None]]] = [
    ("append", _append),
    ("rename-rotation", _rename),
    ("new-file", _create),
    ("copy-truncate", _truncate),
    ("delete", _delete),
]


@pytest.mark.parametrize("change", [c for _, c in CHANGES], ids=[n for n, _ in CHANGES])
def test_a_change_in_the_folder_ends_the_wait(
    tmp_path: Path, change: Callable[[Path], None]
) -> None:
    (tmp_path / "run.jsonl").write_bytes(b"{}\n")
    watch = Inotify([str(tmp_path)])
    try:
        change(tmp_path)
        assert watch.wait(30.0) is True
        # Every queued event was consumed: nothing more is pending.
        assert watch.wait(0.0) is False
    finally:
        watch.close()


def test_nothing_changed_is_a_timeout(tmp_path: Path) -> None:
    watch = Inotify([str(tmp_path)])
    try:
        assert watch.wait(0.0) is False
    finally:
        watch.close()


def test_close_wakes_a_waiting_thread_and_later_waits_return(tmp_path: Path) -> None:
    watch = Inotify([str(tmp_path)])
    got: list[bool] = []
    thread = threading.Thread(target=lambda: got.append(watch.wait(600.0)))
    thread.start()
    watch.close()
    thread.join(60)
    assert not thread.is_alive()
    assert got == [False]
    assert watch.wait(600.0) is False
    watch.close()  # twice is harmless


def test_a_missing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        Inotify([str(tmp_path / "gone")])


@pytest.mark.parametrize(
    ("poll", "kind"),
    [("", InotifyWaiter), ("0", InotifyWaiter), ("1", PollWaiter)],
    ids=["default", "poll-0", "poll-1"],
)
def test_make_waiter_prefers_inotify_unless_polling_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, poll: str, kind: type
) -> None:
    monkeypatch.setenv("TRACETUI_POLL", poll)
    waiter = make_waiter([str(tmp_path)])
    try:
        assert type(waiter) is kind
    finally:
        waiter.close()


def test_a_closed_waiter_never_blocks(tmp_path: Path) -> None:
    waiter = InotifyWaiter([str(tmp_path)])
    waiter.close()
    thread = threading.Thread(target=lambda: waiter.wait(busy=True))
    thread.start()
    thread.join(60)
    assert not thread.is_alive()
