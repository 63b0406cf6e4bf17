"""Shared by the hostile-input tests: the temp folder, the CLI in-process, both index paths."""

from __future__ import annotations

import gc
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tracetui import cli
from tracetui.store import fastindex
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path


@pytest.fixture(autouse=True)  # imported by each hostile test module, so autouse there
def private_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """TMPDIR (and tempfile's cached choice) pointed at an empty folder of this test's own."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # crash reports, if any
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    yield tmp


def temps(tmp_path: Path) -> list[str]:
    """Files left in the temp folder, those in tracetui's private temp folder included (the
    folder itself is kept for the next process; store/temp_files.py)."""
    tmp = tmp_path / "tmp"
    private = f"tracetui-{os.getuid()}"
    left = [n for n in os.listdir(tmp) if n != private]
    if (tmp / private).is_dir():
        left += [f"{private}/{n}" for n in os.listdir(tmp / private)]
    return sorted(left)


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``tracetui ARGS`` in this process: exit status, stdout, stderr."""
    capsys.readouterr()
    try:
        rc = cli.main(list(args))
    finally:
        gc.enable()  # batch commands switch the collector off for their short life
        gc.collect()  # what the end of the process does: the command's objects are gone
    out, err = capsys.readouterr()
    return rc, out, err


def facts(ix: RunIndex) -> tuple[Any, ...]:
    """Everything the index decided, row by row: both paths must agree on all of it."""
    n = len(ix)
    return (
        n,
        ix.stats.spans,
        ix.stats.bad_lines,
        ix.stats.truncated,
        ix.stats.hidden_bytes,
        ix.stats.failed,
        list(ix.flags[:n]),
        list(ix.exit[:n]),
        list(ix.hidden[:n]),
        ix.ids[:n],
        sorted((r, b.reason) for r, b in ix.bad.items()),
    )


def both_paths(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[RunIndex, RunIndex]:
    """The run indexed by the C scanner and by the Python path (same facts, or the test fails)."""
    assert fastindex.available(), "the C scanner is built in this environment"
    with_c = build_index(open_path(str(path))[0])
    monkeypatch.setenv("TRACETUI_NO_C", "1")
    without_c = build_index(open_path(str(path))[0])
    monkeypatch.delenv("TRACETUI_NO_C")
    assert facts(with_c) == facts(without_c)
    return with_c, without_c
