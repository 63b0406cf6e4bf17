"""Claude Code's persisted output states the whole size; what the model was not shown is that size
less the preview. Claude Code closes the preview with "\\n...\\n" when it cut (a bare "\\n" when
it did not): those bytes are its punctuation, not output the model saw."""

from __future__ import annotations

import pytest

from tracetui.model.markers import find_marker


def persisted(stated: str, preview: str, ending: str) -> str:
    return (
        f"<persisted-output>\nOutput too large ({stated}). Full output saved to: /x/t.txt\n\n"
        f"Preview (first 2KB):\n{preview}{ending}</persisted-output>"
    )


@pytest.mark.parametrize(
    ("stated", "preview", "ending", "withheld"),
    [
        ("85.4KB", "p" * 1999, "\n...\n", int(85.4 * 1024) - 1999),
        ("1.0KB", "p" * 24, "\n", 1024 - 24),
        ("2.0KB", "line\n" * 10, "\n...\n", 2048 - 50),
        ("1.0MB", "é" * 100, "\n...\n", 1024 * 1024 - 200),
        ("1.0KB", "p" * 24 + "\n...", "", 1024 - 28),
        ("1.0KB", "p" * 2000, "\n...\n", 0),
    ],
    ids=["cut-ellipsis", "bare-newline", "preview-of-lines", "multibyte", "no-ending", "over"],
)
def test_the_withheld_count_leaves_out_claude_codes_ending(
    stated: str, preview: str, ending: str, withheld: int
) -> None:
    marker = find_marker(persisted(stated, preview, ending))
    assert marker is not None
    assert (marker.family, marker.clip, marker.unit) == ("claude-code", "head", "bytes")
    assert marker.count == withheld
