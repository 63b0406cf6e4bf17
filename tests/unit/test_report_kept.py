"""The postmortem quotes the kept part the agent never saw (tracetui/export/kept_unseen.py)."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pytest

from tracetui.export.report import render_report
from tracetui.record.recorder import run_with_feedback
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

CODE = (
    "import sys\n"
    "print('\\n'.join(f'test_{n} PASSED' for n in range(300)))\n"
    "print('Traceback (most recent call last):')\n"
    "print('ValueError: the total is off by one cent')\n"
    "sys.exit(1)\n"
)


def tool(tmp_path: Path) -> list[str]:
    """The command, from a file: its argv does not quote what it prints."""
    script = tmp_path / "suite.py"
    script.write_text(CODE)
    return [sys.executable, str(script)]


def report_for(tmp_path: Path, **options: object) -> tuple[str, dict]:
    base = tmp_path / "B"
    rec = run_with_feedback(tool(tmp_path), log=base, cap=500, **options).record  # type: ignore[arg-type]
    index = build_index(open_path(str(base))[0])
    return render_report(index, 0), rec


def test_the_report_quotes_the_kept_failure_without_a_rerun(tmp_path: Path) -> None:
    text, rec = report_for(tmp_path)
    assert (
        "of attempt 1's stdout, where the kept output shows `ValueError: the total is off by one cent`."
        in text
    )
    unseen = rec["stdout_kept"]
    assert (
        f"**stdout the agent never saw, as kept** (bytes 500 to {unseen['unseen_end']:,} of the kept "
        "output, redacted, checked against its hash):"
    ) in text
    assert "- `Traceback (most recent call last):`" in text


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda d: gzip.compress(gzip.decompress(d).replace(b"cent", b"euro")),
            "does not match the hash in its record",
        ),
        (lambda d: b"junk", "is damaged"),
    ],
    ids=["changed", "damaged"],
)
def test_a_changed_kept_file_is_named_not_quoted(tmp_path: Path, change, expected: str) -> None:
    base = tmp_path / "B"
    rec = run_with_feedback(tool(tmp_path), log=base, cap=500).record
    path = tmp_path / "B.kept" / (rec["stdout_kept"]["sha256"] + ".gz")
    path.write_bytes(change(path.read_bytes()))
    text = render_report(build_index(open_path(str(base))[0]), 0)
    assert "**stdout the agent never saw, as kept**: not quoted, `" in text and expected in text
    assert "ValueError" not in text and "euro" not in text


def test_without_kept_output_the_report_is_as_before(tmp_path: Path) -> None:
    text, _rec = report_for(tmp_path, keep_budget=None)
    assert "as kept" not in text and "kept output shows" not in text
    assert "ValueError" not in text
