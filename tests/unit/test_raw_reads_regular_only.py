"""The passes that read rows' raw bytes by path after indexing (the suspicion count and lint's row
choice through analysis/raw_lines.py, the viewer's search through analysis/search.py) open
regular files only: a member swapped for a FIFO after the index was built must not hang them
(opening a FIFO for reading blocks until a writer comes). The raw pass reads such a row as
nothing; the search then reads it through the index's own pinned descriptor of the member
(store/linefiles.py), so the row is still found: nothing hangs and no row goes missing."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from records import tool

from tracetui.analysis.raw_lines import RawLines
from tracetui.analysis.search import row_matcher
from tracetui.store.build import build_index
from tracetui.store.runset import open_path


def _raw_locate(ix: Any) -> object:
    with RawLines(ix) as raw:
        return raw.locate(0)


def _search(ix: Any) -> object:
    return row_matcher(ix, "pytest")(0)


PASSES: list[tuple[str, Callable[[Any], object], object]] = [
    ("raw-lines", _raw_locate, None),
    ("search", _search, True),
]


@pytest.mark.parametrize(("name", "read", "expected"), PASSES, ids=[p[0] for p in PASSES])
def test_a_member_swapped_for_a_fifo_reads_as_nothing(
    make_run: Callable[..., Path],
    tmp_path: Path,
    name: str,
    read: Callable[[Any], object],
    expected: object,
) -> None:
    folder = make_run({"run.jsonl": [tool(exit_code=1, stdout_preview="pytest failed")]})
    base = folder / "run.jsonl"
    ix = build_index(open_path(str(base))[0])
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    os.replace(fifo, base)  # the member's name now names a FIFO nobody writes to
    result: list[object] = []
    worker = threading.Thread(target=lambda: result.append(read(ix)), daemon=True)
    worker.start()
    worker.join(20)
    if worker.is_alive():  # unblock the open so the thread can end, then fail
        with open(base, "wb"):
            pass
        pytest.fail(f"{name}: blocked opening a FIFO")
    assert result == [expected]
