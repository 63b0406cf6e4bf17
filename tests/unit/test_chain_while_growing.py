"""``ChainIndex.chain(row)`` holds ``row`` even when a follower commits the row's parent between
the chain's refresh of its links and its walk up to the root (a retry whose parent arrives after
it). Before, the walk found the new parent as the root while the children map, linked before the
commit, did not reach the row: the stress test saw "the chain of row 82 does not hold it: [85]"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool

from tracetui.analysis.chains import ChainIndex
from tracetui.store.build import build_index
from tracetui.store.runset import open_path


def test_a_parent_committed_during_the_walk_is_in_the_tree(
    make_run: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    retry = tool("retry", argv=["make"], parent_command_id="first")
    root: Path = make_run({"B.jsonl": [tool("other"), retry]})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    chains = ChainIndex(ix)
    chains.chain(1)  # linked once: the retry waits for its parent
    walk = ChainIndex.root_of

    def follower_commits_first(self: ChainIndex, row: int) -> tuple[int, bool]:
        with open(root / "B.jsonl", "ab") as fh:
            fh.write(encode_line(tool("first", argv=["make"])))
        ix.index_member(0)  # the parent arrives, after the refresh, before the walk
        monkeypatch.setattr(ChainIndex, "root_of", walk)
        return walk(self, row)

    monkeypatch.setattr(ChainIndex, "root_of", follower_commits_first)
    got = chains.chain(1)
    assert got.root.row == 2 and 1 in got.rows()
