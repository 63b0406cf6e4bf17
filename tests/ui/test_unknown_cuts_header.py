"""The header never says "0 trunc · 0B hidden" for spans whose truncation cannot be told.

Codex's `exec --json` stream carries no byte counts and no marker: its rows show `?` in the ✂
column, and before, the header said `0 trunc · 0B hidden` beside them. It now says how many
spans are unknown and that what was hidden is unknown.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from viewer_helpers import settle

from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.run_header import RunHeader

AGENTS = Path(__file__).resolve().parents[1] / "data" / "agents"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"

CASES = [
    (
        "codex-exec-full",
        AGENTS / "codex_exec.jsonl",
        200,
        " · 0 truncated · 3 truncation unknown · ? hidden · ",
    ),
    ("codex-exec-short", AGENTS / "codex_exec.jsonl", 80, " · 1 exit ? · 3 trunc ? · ? hidden"),
    # Cuts of known size beside feedback records that carry no counts: the known sum stays.
    (
        "rotated-full",
        SAMPLES / "rotated",
        200,
        " · 54 truncated · 7 truncation unknown · 107,669 B hidden · ",
    ),
    # Nothing unknown: the header reads as it did.
    ("billing-full", SAMPLES / "flaky-billing", 200, " · 3 truncated · 46,281 B hidden · "),
]


@pytest.mark.parametrize(("name", "path", "width", "said"), CASES, ids=[c[0] for c in CASES])
async def test_the_header_counts_truncation_unknown(
    name: str, path: Path, width: int, said: str
) -> None:
    app = TraceApp(open_paths([str(path)]), follow=False)
    async with app.run_test(size=(width, 30)) as pilot:
        await settle(pilot)
        shown = app.query_one(RunHeader).content.plain  # type: ignore[union-attr]
        assert said in shown, shown
        if name.startswith("codex"):
            assert "0B hidden" not in shown and "0 B hidden" not in shown
