"""The "new since the last re-read" marks of a whole-document trace belong to one index: when
the document is rebuilt, the new index's marks are not drawn on the old rows while the old index
is still shown, nor the old index's marks on the new one (before, the first read's marks showed
on the rebuilt list until the next update)."""

from __future__ import annotations

import json
from pathlib import Path

from test_view_foreign_live import _traj, start, until

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp


def underlined(app: TraceApp, y: int) -> bool:
    return any(s.style is not None and s.style.underline for s in app.spans.render_line(y))


async def test_marks_are_drawn_only_on_the_index_they_name(tmp_path: Path) -> None:
    path = tmp_path / "run.traj"
    path.write_bytes(_traj(3))
    app = TraceApp(open_paths([str(path)]), follow=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await start(pilot)
        spans = app.spans
        path.write_bytes(_traj(5))  # two calls added: marked on this index
        await until(pilot, lambda: spans.fresh == frozenset({3, 4}))
        first = app.index
        assert spans.fresh_of is first and underlined(app, 3) and underlined(app, 4)
        # Marks named for another index (a rebuilt one not shown yet) are not drawn here.
        spans.set_running(spans.running, frozenset({0, 1}), object())
        assert not any(underlined(app, y) for y in range(5))
        # A rebuild: an earlier call changed, so the list is made again in a new index.
        doc = json.loads(_traj(5))
        doc["trajectory"][0]["action"] = "ls -la"
        path.write_bytes(json.dumps(doc).encode())
        await until(pilot, lambda: app.index is not first and spans.fresh_of is app.index)
        marked = [y for y in range(5) if underlined(app, y)]
        assert marked == sorted(spans.fresh) and 0 in marked
