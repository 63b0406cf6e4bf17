"""The index cache's folder and files under hostile XDG_CACHE_HOME values (store/cache_files.py).

Probed for issue 13's standard, all held: a cache folder that is a link, a file, writable by
others or someone else's turns the cache off for the process (nothing read, nothing written,
no message: the cache is only a speed-up); a relative XDG_CACHE_HOME is ignored, as the XDG
spec says; an entry that is someone else's, a link or a FIFO is not read. These pin it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tracetui.store import cache_files


@pytest.fixture(autouse=True)
def fresh_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_files, "_folders", {})


def private(base: Path) -> None:
    (base / "tracetui" / "index").mkdir(parents=True, mode=0o700)
    os.chmod(base / "tracetui", 0o700)


def world_writable_root(base: Path) -> None:
    private(base)
    os.chmod(base / "tracetui", 0o777)


def group_writable_index(base: Path) -> None:
    private(base)
    os.chmod(base / "tracetui" / "index", 0o770)


def linked_index(base: Path) -> None:
    private(base)
    os.rmdir(base / "tracetui" / "index")
    (base / "elsewhere").mkdir(mode=0o700)
    (base / "tracetui" / "index").symlink_to(base / "elsewhere")


def a_file(base: Path) -> None:
    base.mkdir(parents=True, exist_ok=True)
    (base / "tracetui").write_text("x")


def someone_elses(base: Path) -> None:
    private(base)
    os.chown(base / "tracetui", 65534, 65534)


FOLDERS: list[tuple[str, Callable[[Path], None], bool]] = [
    ("private", private, True),
    ("made-when-missing", lambda base: base.mkdir(), True),
    ("world-writable-root", world_writable_root, False),
    ("group-writable-index", group_writable_index, False),
    ("index-a-link", linked_index, False),
    ("root-a-file", a_file, False),
    ("someone-elses", someone_elses, False),
]


@pytest.mark.parametrize(("plant", "used"), [f[1:] for f in FOLDERS], ids=[f[0] for f in FOLDERS])
def test_only_a_private_folder_of_this_user_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, plant: Callable[[Path], None], used: bool
) -> None:
    if plant is someone_elses and os.geteuid() != 0:
        pytest.skip("chown to another user needs root")
    base = tmp_path / "cache"
    plant(base)
    monkeypatch.setenv("XDG_CACHE_HOME", str(base))
    expected = str(base / "tracetui" / "index") if used else None
    assert cache_files.cache_folder() == expected


def test_a_relative_cache_home_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.chdir(tmp_path)
    assert cache_files.cache_folder() == str(tmp_path / "home" / ".cache" / "tracetui" / "index")
    assert not (tmp_path / "relative").exists()


def entry_someone_elses(path: Path) -> None:
    path.write_bytes(b"entry")
    os.chown(path, 65534, 65534)


def entry_a_link(path: Path) -> None:
    (path.parent / "target").write_bytes(b"entry")
    path.symlink_to(path.parent / "target")


def entry_a_fifo(path: Path) -> None:
    os.mkfifo(path)


ENTRIES: list[tuple[str, Callable[[Path], object], bytes | None]] = [
    ("ours", lambda p: p.write_bytes(b"entry"), b"entry"),
    ("someone-elses", entry_someone_elses, None),
    ("a-link", entry_a_link, None),
    ("a-fifo", entry_a_fifo, None),
    ("over-the-cap", lambda p: p.write_bytes(b"x" * 101), None),
]


@pytest.mark.parametrize(("plant", "got"), [e[1:] for e in ENTRIES], ids=[e[0] for e in ENTRIES])
def test_an_entry_is_read_only_when_it_is_a_regular_file_of_ours(
    tmp_path: Path, plant: Callable[[Path], object], got: bytes | None
) -> None:
    if plant is entry_someone_elses and os.geteuid() != 0:
        pytest.skip("chown to another user needs root")
    path = tmp_path / "run.idx"
    plant(path)
    assert cache_files.read_bounded(str(path), 100) == got
