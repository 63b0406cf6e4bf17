"""safe_files: what tracetui writes beside a trace is never reached through a planted file, and a
user-named output is written the way a shell's `>` would write it."""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from records import tool

from tracetui.record import safe_files
from tracetui.record.rotate import append_record, encode_line, rotate
from tracetui.record.safe_files import UnsafeFile, create_new, open_append, open_lock, output_file
from tracetui.rerun import runner
from tracetui.store.build import build_index
from tracetui.store.runset import open_paths

LINK = "refused, it is a symbolic link (tracetui never follows a link beside a trace)"
FIFO = "refused, it is a FIFO, not a regular file"
VICTIM = b"export PATH=/usr/bin\n"
RECORD = {"schema": "tracetui/1", "command_id": "c1"}


def plant_link(victim: Path, at: Path) -> None:
    at.symlink_to(victim)


def plant_dangling(victim: Path, at: Path) -> None:
    victim.unlink()  # the link names a file that is not there yet: it must not be created
    at.symlink_to(victim)


def plant_hard_link(victim: Path, at: Path) -> None:
    os.link(victim, at)


PLANTED = {"link": plant_link, "dangling-link": plant_dangling, "hard-link": plant_hard_link}

# (planted name, the base appended to): the run file and its lock, the sidecar and its lock.
PLACES = [
    ("B", "B"),
    ("B.lock", "B"),
    ("B.reruns.jsonl", "B.reruns.jsonl"),
    ("B.reruns.jsonl.lock", "B.reruns.jsonl"),
]


def message(path: Path, how: str) -> str:
    if how == "hard-link":
        return (
            f"{path}: refused, it is a file with 2 hard links "
            "(writing it would change another name too)"
        )
    return f"{path}: {LINK}"


CASES = [
    (name, base, how)
    for name, base in PLACES
    for how in PLANTED
    if not (how == "hard-link" and name.endswith(".lock"))  # a lock is never written
]


@pytest.mark.parametrize(
    ("name", "base", "how"), CASES, ids=[f"{name}-{how}" for name, _b, how in CASES]
)
def test_a_planted_file_is_refused_and_the_victim_untouched(
    tmp_path: Path, name: str, base: str, how: str
) -> None:
    victim = tmp_path / "victim.rc"
    victim.write_bytes(VICTIM)
    PLANTED[how](victim, tmp_path / name)
    with pytest.raises(UnsafeFile) as caught:
        append_record(tmp_path / base, RECORD, 1 << 20, 4)
    assert str(caught.value) == message(tmp_path / name, how)
    assert caught.value.filename == str(tmp_path / name)
    if how == "dangling-link":
        assert not victim.exists()
    else:
        assert victim.read_bytes() == VICTIM


def test_a_hard_linked_lock_is_harmless_and_allowed(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.write_bytes(b"")
    os.link(other, tmp_path / "B.lock")
    append_record(tmp_path / "B", RECORD, 1 << 20, 4)
    assert other.read_bytes() == b""  # nothing is ever written to a lock
    assert (tmp_path / "B").read_bytes() == encode_line(RECORD)


def _in_thread(call: Callable[[], Any]) -> BaseException | None:
    """Run ``call`` on a thread; what it raised. The test fails (not hangs) if it blocks."""
    got: list[BaseException | None] = []

    def body() -> None:
        try:
            call()
        except BaseException as exc:
            got.append(exc)
        else:
            got.append(None)

    t = threading.Thread(target=body, daemon=True)
    t.start()
    t.join(20)
    assert not t.is_alive(), "blocked on the FIFO"
    return got[0]


@pytest.mark.parametrize("name", ["B.reruns.jsonl", "B.reruns.jsonl.lock", "B", "B.lock"])
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, name: str) -> None:
    os.mkfifo(tmp_path / name)
    base = tmp_path / ("B.reruns.jsonl" if name.startswith("B.reruns") else "B")
    exc = _in_thread(lambda: append_record(base, RECORD, 1 << 20, 4))
    assert isinstance(exc, UnsafeFile)
    assert str(exc) == f"{tmp_path / name}: {FIFO}"


def _lstat_lies_once(monkeypatch: pytest.MonkeyPatch, path: Path) -> None:
    """The first lstat of ``path`` reports a regular file: something is swapped in after it."""
    real = os.lstat
    fake = real(path.parent / "decoy")
    calls = []

    def lstat(p: Any, *a: Any, **kw: Any) -> os.stat_result:
        if os.fspath(p) == str(path) and not calls:
            calls.append(p)
            return fake
        return real(p, *a, **kw)

    monkeypatch.setattr(safe_files.os, "lstat", lstat)


@pytest.mark.parametrize("swapped", ["fifo", "link"])
def test_a_file_swapped_in_after_the_look_is_refused_by_the_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swapped: str
) -> None:
    (tmp_path / "decoy").write_bytes(b"")
    victim = tmp_path / "victim.rc"
    victim.write_bytes(VICTIM)
    path = tmp_path / "B.reruns.jsonl"
    if swapped == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to(victim)
    _lstat_lies_once(monkeypatch, path)
    exc = _in_thread(lambda: open_append(path))
    assert isinstance(exc, UnsafeFile)
    assert str(exc) == f"{path}: {FIFO if swapped == 'fifo' else LINK}"
    assert victim.read_bytes() == VICTIM


@pytest.mark.parametrize("opener", [open_append, open_lock], ids=["append", "lock"])
def test_someone_elses_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opener: Callable[[Path], int]
) -> None:
    path = tmp_path / "B.reruns.jsonl"
    path.write_bytes(b"")
    owner = os.stat(path).st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1)  # no root needed to test the check
    with pytest.raises(UnsafeFile) as caught:
        opener(path)
    assert str(caught.value) == (
        f"{path}: refused, it is owned by uid {owner}, not by this user (uid {owner + 1})"
    )


def test_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "B.lock").mkdir()
    with pytest.raises(UnsafeFile) as caught:
        append_record(tmp_path / "B", RECORD, 1 << 20, 4)
    assert (
        str(caught.value)
        == f"{tmp_path / 'B.lock'}: refused, it is a directory, not a regular file"
    )


def test_rotation_refuses_a_planted_member_and_leaves_the_set(tmp_path: Path) -> None:
    victim = tmp_path / "victim.rc"
    victim.write_bytes(VICTIM)
    (tmp_path / "B").write_bytes(encode_line({"n": 0}))
    (tmp_path / "B.1.gz").symlink_to(victim)
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(UnsafeFile) as caught:
        rotate(str(tmp_path / "B"), 4)
    assert str(caught.value) == f"{tmp_path / 'B.1.gz'}: {LINK}"
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert victim.read_bytes() == VICTIM


# ------------------------------------------------------------------ a writer killed mid-line
PARTIAL = b'{"schema":"tracetui/1","command_id":"cut'


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (PARTIAL, PARTIAL + b"\n" + encode_line(RECORD)),
        (PARTIAL + b"\n", PARTIAL + b"\n" + encode_line(RECORD)),
        (b"", encode_line(RECORD)),
    ],
    ids=["cut-line", "whole-lines", "empty"],
)
def test_the_next_record_starts_on_its_own_line(
    tmp_path: Path, before: bytes, after: bytes
) -> None:
    base = tmp_path / "B"
    base.write_bytes(before)
    n = append_record(base, RECORD, 1 << 20, 4)
    assert base.read_bytes() == after
    assert n == len(after) - len(before)


def test_a_cut_line_is_left_as_it_is_when_the_base_rotates(tmp_path: Path) -> None:
    base = tmp_path / "B"
    base.write_bytes(PARTIAL)
    append_record(base, RECORD, len(PARTIAL) + 2, 4)
    assert (tmp_path / "B.1").read_bytes() == PARTIAL
    assert base.read_bytes() == encode_line(RECORD)


def _target(folder: Path, argv: list[str]) -> runner.Target:
    (folder / "B").write_bytes(orjson.dumps(tool("c1", argv=argv, cwd=str(folder))) + b"\n")
    return runner.find_target([build_index(open_paths([str(folder / "B")])[0])], "c1")


def test_the_sidecar_after_a_cut_line_keeps_the_rerun(tmp_path: Path) -> None:
    (tmp_path / "B.reruns.jsonl").write_bytes(PARTIAL)
    target = _target(tmp_path, ["echo", "hi"])
    runner.append_sidecar(target, RECORD)
    assert (tmp_path / "B.reruns.jsonl").read_bytes() == PARTIAL + b"\n" + encode_line(RECORD)


@pytest.mark.parametrize("name", ["B.reruns.jsonl", "B.reruns.jsonl.lock"])
def test_a_rerun_is_refused_before_it_runs(tmp_path: Path, name: str) -> None:
    victim = tmp_path / "victim.rc"
    victim.write_bytes(VICTIM)
    (tmp_path / name).symlink_to(victim)
    target = _target(tmp_path, ["touch", str(tmp_path / "ran")])
    with pytest.raises(UnsafeFile) as caught:
        runner.rerun(target)
    assert str(caught.value) == f"{tmp_path / name}: {LINK}"
    assert not (tmp_path / "ran").exists()
    assert victim.read_bytes() == VICTIM


def test_a_file_swapped_in_during_the_rerun_is_one_sidecar_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "victim.rc"
    victim.write_bytes(VICTIM)
    target = _target(tmp_path, ["echo", "hi"])
    real = runner.run_spooled

    def run_and_plant(*args: Any, **kw: Any) -> runner.Captured:
        (tmp_path / "B.reruns.jsonl.lock").symlink_to(victim)  # after the check, before the write
        return real(*args, **kw)

    monkeypatch.setattr(runner, "run_spooled", run_and_plant)
    with runner.rerun(target) as result:
        assert result.sidecar is None
        assert result.sidecar_error == f"{tmp_path / 'B.reruns.jsonl.lock'}: {LINK}"
    assert victim.read_bytes() == VICTIM


# ------------------------------------------------------------------ outputs the user names
def test_dash_is_stdout(tmp_path: Path) -> None:
    import io

    out = io.BytesIO()
    with output_file("-", out) as fh:
        fh.write(b"doc\n")
    assert out.getvalue() == b"doc\n"


def test_a_fifo_output_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    with output_file(str(fifo)) as fh:
        fh.write(b"through the pipe\n")
    reader.join(20)
    assert got == [b"through the pipe\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.fifo"]


def test_a_regular_output_is_replaced_whole_and_keeps_its_mode(tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    out.write_bytes(b"old")
    os.chmod(out, 0o640)
    old_inode = os.stat(out).st_ino
    with output_file(str(out)) as fh:
        fh.write(b"new ")
        assert out.read_bytes() == b"old"  # a reader meanwhile sees the old file, whole
        fh.write(b"document\n")
    assert out.read_bytes() == b"new document\n"
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640
    assert os.stat(out).st_ino != old_inode  # renamed into place, not rewritten
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.json"]


def test_a_failed_write_leaves_the_old_output_and_no_temp(tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    out.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt), output_file(str(out)) as fh:
        fh.write(b"half")
        raise KeyboardInterrupt
    assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace.json"]


@pytest.mark.parametrize("target_exists", [True, False], ids=["to-a-file", "dangling"])
def test_a_linked_output_is_followed_like_a_shell_would(
    tmp_path: Path, target_exists: bool
) -> None:
    real = tmp_path / "real.json"
    if target_exists:
        real.write_bytes(b"old")
    link = tmp_path / "out.json"
    link.symlink_to(real)
    with output_file(str(link)) as fh:
        fh.write(b"doc\n")
    assert link.is_symlink() and real.read_bytes() == b"doc\n"


def test_a_new_output_gets_the_usual_mode(tmp_path: Path) -> None:
    out = tmp_path / "new.json"
    umask = os.umask(0o022)
    try:
        with output_file(str(out)) as fh:
            fh.write(b"x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o644


@pytest.mark.parametrize("planted", ["file", "link"])
def test_create_new_never_writes_what_is_there(tmp_path: Path, planted: str) -> None:
    victim = tmp_path / "victim.rc"
    victim.write_bytes(VICTIM)
    path = tmp_path / "report.md"
    if planted == "file":
        path.write_bytes(b"mine")
    else:
        path.symlink_to(victim)
    with pytest.raises(FileExistsError):
        create_new(str(path), b"report")
    assert victim.read_bytes() == VICTIM
    assert os.lstat(path).st_size in (4, len(str(victim)))
