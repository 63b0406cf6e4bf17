"""The follower when ``open`` fails for want of file descriptors (EMFILE, ENFILE): a rotated file
it cannot open is no file gone (its rows stay readable and it is listed again later), and a base
it cannot open is said once; once descriptors are free again every row is read, once, in order.
Before, such a file was taken for vanished (its rows read back as "rotated away") and the base's
new rows were never read, without a word."""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest

from tracetui.live import follow, watch
from tracetui.live.follow import Follower
from tracetui.store.reader import BadLine
from tracetui.store.runset import open_path


def rec(i: int) -> bytes:
    record = {"schema": "tracetui/1", "span_type": "tool", "command_id": f"c{i:04d}"}
    return json.dumps(record).encode() + b"\n"


def recs(first: int, n: int) -> bytes:
    return b"".join(rec(i) for i in range(first, first + n))


def drain(f: Follower) -> None:
    while f.poll_once() or f.more:
        pass


def read_back(f: Follower) -> list[str]:
    out = []
    for r in range(len(f.index)):
        got = f.index.get(r)
        out.append(got.reason if isinstance(got, BadLine) else str(got.command_id))
    return out


def starved(monkeypatch: pytest.MonkeyPatch, code: int) -> Callable[[bool], None]:
    """Make every open of the run's files fail with ``code`` while switched on."""
    on = [False]

    def wrap(real: Callable[[str], IO[bytes]]) -> Callable[[str], IO[bytes]]:
        def opening(path: str) -> IO[bytes]:
            if on[0]:
                raise OSError(code, os.strerror(code), path)
            return real(path)

        return opening

    monkeypatch.setattr(watch, "open_regular", wrap(watch.open_regular))
    monkeypatch.setattr(follow, "open_regular", wrap(follow.open_regular))

    def switch(value: bool) -> None:
        on[0] = value

    return switch


@pytest.mark.parametrize("code", [errno.EMFILE, errno.ENFILE], ids=["EMFILE", "ENFILE"])
def test_a_rotation_while_out_of_handles_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    base = tmp_path / "run.jsonl"
    (tmp_path / "run.jsonl.1").write_bytes(recs(0, 5))
    base.write_bytes(recs(5, 5))
    f = Follower(open_path(str(base))[0])
    drain(f)
    switch = starved(monkeypatch, code)
    os.rename(f"{base}.1", f"{base}.2")
    os.rename(base, f"{base}.1")
    base.write_bytes(recs(10, 3))
    switch(True)
    drain(f)
    drain(f)
    assert read_back(f) == [f"c{i:04d}" for i in range(10)]  # nothing taken for gone
    assert [n for n in f.notes if "run.jsonl" in n and os.strerror(code) in n] != []
    switch(False)
    drain(f)
    assert read_back(f) == [f"c{i:04d}" for i in range(13)]
    assert len([n for n in f.notes if os.strerror(code) in n]) == 1
    f.stop()
