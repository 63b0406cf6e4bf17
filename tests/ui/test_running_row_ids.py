"""A running call's ID cell is the one its row gets when it completes (it showed the whole id).

The run's ids are abbreviated against each other (store/ids.py); a call still running is not one
of them yet, so the table showed its id whole (clipped to ``abcdefg…``) and then, once the row
came, the short form: the same call under two names. Each case builds the run with and without
the call and compares the running row's cell with the completed row's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from records import tool

from tracetui.model.spans import normalize
from tracetui.store.build import build_index
from tracetui.store.ids import cell_id
from tracetui.store.index import RunIndex
from tracetui.store.live_import import RunningCall
from tracetui.store.runset import open_paths
from tracetui.ui.widgets.running import running_cells

STAMP = "20261129T231150.848677Z-"
CASES = [
    ("recorder-ids", [STAMP + "1b5a45f2", STAMP + "9c0d11aa"], STAMP + "77e3b2c1"),
    ("recorder-id-near-another", [STAMP + "1b5a45f2", STAMP + "9c0d11aa"], STAMP + "1b5a99ff"),
    ("imported-ids", ["toolu_01AbCdEf", "toolu_01XyZw12"], "toolu_01Qq7788"),
    ("imported-shared-ending", ["c0001-long-id", "c0002-long-id"], "c0003-long-id"),
    ("first-call-of-the-run", [], "toolu_01AbCdEfGhIj"),
    ("first-imported-after-recorder", [STAMP + "1b5a45f2"], "call_7788aabbccdd"),
]


def _index(folder: Path, ids: list[str]) -> RunIndex:
    folder.mkdir()
    path = folder / "run.jsonl"
    path.write_text("".join(json.dumps(tool(cid)) + "\n" for cid in ids))
    return build_index(open_paths([str(path)])[0])


@pytest.mark.parametrize(("name", "ids", "new"), CASES, ids=[c[0] for c in CASES])
def test_the_running_row_shows_the_id_its_row_will_show(
    tmp_path: Path, name: str, ids: list[str], new: str
) -> None:
    before = _index(tmp_path / "before", ids)
    after = _index(tmp_path / "after", [*ids, new])
    call = RunningCall(normalize(tool(new)), True, None, 0.0)
    running = running_cells(before, call, now=0.0)[1].text
    assert running == cell_id(after, new)
