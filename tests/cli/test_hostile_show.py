"""`tracetui show` on a full disk: a cut output is never reported as printed (exit 0).

Seen on a 16 KiB tmpfs: ``tracetui show B --id X > /full/fs/out`` wrote the first 16,384 of
200,001 bytes and exited 0 with nothing on stderr. A buffered stdout handed a chunk bigger than
its buffer takes what the disk takes and returns that count without raising; show ignored the
count. Now the rest is written again, the error comes, and show says so (exit 1, one line).
"""

from __future__ import annotations

import errno
import sys
from pathlib import Path

import pytest

from tracetui.cli import main as cli_main
from tracetui.record.recorder import run_with_feedback

PY = sys.executable
OUTPUT = b"abc\n" * 50_000


class FullDisk:
    """A stdout buffer on a disk with ``room`` bytes left: takes what fits and returns the count
    (as CPython's buffered stdout does on a short write), then raises ENOSPC."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.data = bytearray()

    def write(self, data: bytes | memoryview) -> int:
        if self.room == 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        taken = bytes(data[: self.room])
        self.data += taken
        self.room -= len(taken)
        return len(taken)

    def flush(self) -> None:
        pass


class FakeStdout:
    def __init__(self, buffer: FullDisk) -> None:
        self.buffer = buffer

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


ROOMS = [
    ("disk-full-mid-stream", 16_384, 1),
    ("disk-full-at-once", 0, 1),
    ("room-for-all", len(OUTPUT) + 1, 0),
]


@pytest.mark.parametrize(("room", "status"), [r[1:] for r in ROOMS], ids=[r[0] for r in ROOMS])
def test_show_on_a_full_disk_says_the_output_was_cut(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    room: int,
    status: int,
) -> None:
    code = "import sys; sys.stdout.buffer.write(b'abc\\n' * 50_000)"  # OUTPUT
    rec = run_with_feedback([PY, "-c", code], log=tmp_path / "B", cap=100).record
    capsys.readouterr()
    disk = FullDisk(room)
    monkeypatch.setattr(sys, "stdout", FakeStdout(disk))
    assert cli_main(["show", str(tmp_path / "B"), "--id", str(rec["command_id"])]) == status
    err = capsys.readouterr().err
    if status == 0:
        assert (err, bytes(disk.data)) == ("", OUTPUT)
    else:
        short = str(rec["command_id"]).rsplit("-", 1)[1][:4]  # as the viewer shows it
        assert err.splitlines() == [
            f"tracetui: show: stdout of {short} not printed whole: cannot write the output: "
            "No space left on device"
        ]
        assert bytes(disk.data) == OUTPUT[:room]
