"""The viewer links a run's retry chains on its indexing thread, not on the UI thread.

For a million-row run the first chain drawn used to link every parent link on the UI thread
(0.3-0.8 s with the screen frozen). The index worker (and the live worker) now hands the app a
:class:`ChainIndex` already linked; the UI thread only ever tops it up with new rows.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool
from viewer_helpers import settle

from tracetui.analysis.chains import ChainIndex
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp


def chain_run(tmp_path: Path) -> str:
    path = tmp_path / "B.jsonl"
    lines = [tool("a", exit_code=1), tool("b", exit_code=1, parent_command_id="a")]
    lines += [tool(f"x{i}") for i in range(40)]
    path.write_bytes(b"".join(encode_line(x) for x in lines))
    return str(path)


@pytest.mark.parametrize("follow", [False, True], ids=["frozen", "following"])
async def test_chains_are_linked_before_the_ui_sees_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, follow: bool
) -> None:
    linked_on: list[str] = []
    real = ChainIndex._refresh

    def noted(self: ChainIndex) -> None:
        if self._seen != self.index.generation:  # real linking work, not a no-op call
            linked_on.append(threading.current_thread().name)
        real(self)

    monkeypatch.setattr(ChainIndex, "_refresh", noted)
    app = TraceApp(open_paths([chain_run(tmp_path)]), follow=follow)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert app.selected_row == 1  # the latest failure, a retry: its chain is drawn
        assert app.chains is not None and app.chains.groups() == {0: [0, 1]}
    main = threading.main_thread().name
    assert linked_on, "the chains were never linked"
    assert linked_on[0] != main


def test_prepare_links_every_committed_row(make_run: Any) -> None:
    from tracetui.store.build import build_index
    from tracetui.store.runset import open_path

    root = make_run({"B.jsonl": [tool("a"), tool("b", parent_command_id="a")]})
    index = build_index(open_path(str(root / "B.jsonl"))[0])
    chains = ChainIndex(index)
    assert chains.prepare() is chains
    assert chains._seen == index.generation
    assert chains.parent_row(1) == 0
