"""A followed run's first read through build_index (live/seed.py), in the viewer: the list shows
the whole run at once, the base's unfinished last line is not shown as a bad line, and what is
written afterwards (that line finished, new rows, a rotation) streams in as it does for a run the
follower read itself."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from records import encode_line, tool
from seed_spy import seed_every_run
from test_live import until
from viewer_helpers import settle

from tracetui.live import seed
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp

pytestmark = pytest.mark.skipif(
    not seed.fastindex.available(), reason="seeding needs the C scanner"
)


def line(i: int) -> bytes:
    data: bytes = encode_line(tool(f"c{i:04d}", argv=["echo", str(i)], exit_code=int(i == 7)))
    return data


@pytest.fixture
def seeds(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Seed runs of any size; each seeding's outcome (True: the built index was taken)."""
    return seed_every_run(monkeypatch)


def shown_ids(app: TraceApp) -> list[str | None]:
    index = app.index
    assert index is not None
    return [index.ids[r] for r in range(len(index))]


async def test_a_seeded_view_shows_the_run_then_follows_it(
    tmp_path: Path, seeds: list[bool]
) -> None:
    folder = tmp_path / "run"
    folder.mkdir()
    base = folder / "feedback_record.jsonl"
    (folder / "feedback_record.jsonl.1").write_bytes(b"".join(line(i) for i in range(6)))
    base.write_bytes(b"".join(line(i) for i in range(6, 10)) + line(10)[:20])
    app = TraceApp(open_paths([str(folder)]), follow=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await until(pilot, lambda: app.index is not None and len(app.index) == 10)
        assert seeds == [True]
        assert shown_ids(app) == [f"c{i:04d}" for i in range(10)]
        assert not app.index.bad  # type: ignore[union-attr]  # the unfinished line waits
        assert app.selected_row == 7  # the latest failure, as for any open
        with open(base, "ab") as fh:
            fh.write(line(10)[20:] + line(11))
        await until(pilot, lambda: app.spans.view is not None and len(app.spans.view) == 12)
        os.rename(base, folder / "feedback_record.jsonl.2")  # not how rotation goes: a test
        os.rename(folder / "feedback_record.jsonl.1", folder / "feedback_record.jsonl.3")
        os.rename(folder / "feedback_record.jsonl.2", folder / "feedback_record.jsonl.1")
        base.write_bytes(line(12))
        await until(pilot, lambda: app.spans.view is not None and len(app.spans.view) == 13)
        assert shown_ids(app) == [f"c{i:04d}" for i in range(13)]
        # Rows are read back from the files they moved to.
        index = app.index
        assert index is not None
        assert [index.get(r).command_id for r in (0, 6, 11, 12)] == [  # type: ignore[union-attr]
            "c0000",
            "c0006",
            "c0011",
            "c0012",
        ]
