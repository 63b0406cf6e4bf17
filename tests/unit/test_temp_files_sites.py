"""Every temp copy the index and the follower make is one of tracetui's named temp files.

A decompressed gzip member (the index's and the live follower's) and a foreign trace followed
live are copied to temp files that a ``kill -9`` leaves behind; made by
``store.temp_files.make_temp`` they sit in this user's private folder, named for the process,
and the next start sweeps them (test_temp_files_sweep.py). Before, each was a bare
``tracetui-XXXX.jsonl`` in the shared temp folder, kept for ever.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import tempfile
from pathlib import Path

import pytest
from records import encode_line, tool

from tracetui.live import watch
from tracetui.store import gz, temp_files
from tracetui.store.live_import import ImportSink
from tracetui.store.runset import Member, Run

NAMED = re.compile(r"[a-z]+-\d+-(?P<pid>\d+)-[a-z0-9_]+\.jsonl")


@pytest.fixture(autouse=True)
def _private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    return temp


def assert_named(path: str) -> None:
    assert os.path.dirname(path) == temp_files.folder_path()
    m = NAMED.fullmatch(os.path.basename(path))
    assert m is not None, path
    assert int(m["pid"]) == os.getpid()


def test_a_gzip_member_copy_is_named(tmp_path: Path) -> None:
    member = tmp_path / "B.jsonl.1.gz"
    member.write_bytes(gzip.compress(encode_line(tool("a"))))
    adopted: list[str] = []
    path, _done = gz.decompressed_copy(str(member), adopted.append)
    assert adopted == [path]
    assert_named(path)
    os.unlink(path)


def test_a_followed_gzip_member_copy_is_named() -> None:
    adopted: list[str] = []
    with watch.spool(io.BytesIO(gzip.compress(b"{}\n")), adopted.append) as fh:
        assert fh.read() == b"{}\n"
    assert_named(adopted[0])
    os.unlink(adopted[0])


def test_a_live_import_copy_is_named(tmp_path: Path) -> None:
    trace = tmp_path / "session.jsonl"
    trace.write_text("")
    sink = ImportSink(Run(base=str(trace), members=[Member(str(trace), 0, False)]))
    try:
        assert_named(sink.temp)
    finally:
        sink.index.close()
    assert not os.path.exists(sink.temp)
