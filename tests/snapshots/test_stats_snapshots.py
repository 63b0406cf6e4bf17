"""Snapshot tests of the trends screen (``s``) on a run built here, whose truncation creeps up.

Regenerate after a deliberate change: ``pytest tests/snapshots/test_stats_snapshots.py
--snapshot-update``, then look at the SVGs in ``__snapshots__``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from records import encode_line, tool

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp

SIZES = [(80, 24), (160, 48)]
SIZE_IDS = ["80x24", "160x48"]
CAP = 4096
SPANS = 120


def creep_run(root: Path) -> Path:
    """120 spans, a minute apart: responses grow past the cap, so the hidden share climbs from
    nothing to most of each response, and failures come more often late in the run. Formulae,
    not random numbers, so every snapshot is the same."""
    lines = []
    for i in range(SPANS):
        size = 600 + i * 90 + (i * 37 % 11) * 150
        cut = size > CAP
        code = 1 if i % 9 == 4 or (i > 80 and i % 5 == 0) else 0
        lines.append(
            tool(
                f"cmd_{i:04d}",
                started_at=f"2026-11-02T{9 + i // 60:02d}:{i % 60:02d}:00Z",
                exit_code=code,
                ok_preview=code == 0 and not cut,
                argv=["pytest", f"tests/t{i}"],
                stdout_bytes=size,
                stdout_cap=CAP,
                stdout_truncated=cut,
                stdout_clip="head" if cut else None,
                stdout_sha256=None if cut else "ab" * 32,
                preview_stdout="ok\n" + (f"…[truncated {size - CAP} bytes]…" if cut else ""),
            )
        )
    root.mkdir(parents=True)
    (root / "feedback_record.jsonl").write_bytes(b"".join(encode_line(x) for x in lines))
    return root


def app_for(tmp_path: Path) -> TraceApp:
    return TraceApp(open_paths([str(creep_run(tmp_path / "creep"))]), follow=False)


def open_stats(theme: str | None = None):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        if theme:
            pilot.app.theme = theme
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("s")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()

    return run_before


class TestStats:
    @pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
    def test_creeping_truncation(self, snap_compare, size, tmp_path) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(app_for(tmp_path), terminal_size=size, run_before=open_stats())

    @pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
    def test_light_theme(self, snap_compare, size, tmp_path) -> None:  # type: ignore[no-untyped-def]
        assert snap_compare(
            app_for(tmp_path), terminal_size=size, run_before=open_stats("textual-light")
        )
