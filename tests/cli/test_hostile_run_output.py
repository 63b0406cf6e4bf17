"""`tracetui run … > FILE` on a full disk: the capped view cut short is said, never exit 0.

Before: the view went out in one buffered write whose count was not looked at; on a full disk
the agent got the first 16 KiB of a 50 KB view, nothing was said, and the exit was the
command's (0): the record claimed the agent saw bytes it never got. Now the rest is written
again, the error comes, and run says so: exit 2, one line, the record written whole.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import pytest
from test_hostile_show import FakeStdout, FullDisk

from tracetui.cli import main as cli_main

PY = sys.executable
VIEW = b"x" * 50_000 + b"\n"

ROOMS = [
    ("disk-full-mid-view", 16_384, 2),
    ("disk-full-at-once", 0, 2),
    ("room-for-all", len(VIEW), 0),
]


@pytest.mark.parametrize(("room", "status"), [r[1:] for r in ROOMS], ids=[r[0] for r in ROOMS])
def test_a_cut_view_on_a_full_disk_is_said_and_not_exit_0(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    room: int,
    status: int,
) -> None:
    disk = FullDisk(room)
    monkeypatch.setattr(sys, "stdout", FakeStdout(disk))
    code = "print('x' * 50_000)"
    argv = ["run", "--log", str(tmp_path / "B"), "--cap", "100000", "--", PY, "-c", code]
    assert cli_main(argv) == status
    err = capsys.readouterr().err
    record = orjson.loads((tmp_path / "B").read_bytes())
    assert record["preview_stdout"] == VIEW.decode()  # the record is whole either way
    if status == 0:
        assert (err, bytes(disk.data)) == ("", VIEW)
    else:
        assert err.splitlines() == [
            "tracetui run: the capped stdout was not written whole: No space left on device "
            "(the record holds all of it)"
        ]
        assert bytes(disk.data) == VIEW[:room]
