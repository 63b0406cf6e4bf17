"""What a cold ``summary`` imports before it reads a byte: not the redaction patterns (compiled
at import, ~10 ms, and used by lint's TT015 alone), checked in a fresh interpreter."""

from __future__ import annotations

import subprocess
import sys

import pytest

SUMMARY_IMPORTS = """
import sys
from tracetui import cli
cli.build_parser()
from tracetui.analysis.summary import merge, summarize
from tracetui.analysis.trends import trend_summary
from tracetui.commands import summary_cmd
from tracetui.commands.common import batch_mode, index_runs
from tracetui.store import cache_results
print(",".join(sorted(m for m in sys.modules if m.startswith("tracetui.record"))))
"""


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    return set(out.split(",")) - {""}


@pytest.mark.parametrize(
    "module",
    ["tracetui.record.redact", "tracetui.record.redact_rules"],
    ids=["redact", "redact-rules"],
)
def test_summary_does_not_import_the_redactor(module: str) -> None:
    assert module not in _modules_after(SUMMARY_IMPORTS)


def test_the_late_redactor_is_the_recorders_and_made_once() -> None:
    """TT015's redactor, made on its first use (its findings: tests/unit/test_lint_secrets.py)."""
    from tracetui.analysis import lint_rules
    from tracetui.record.redact import Redactor

    made = lint_rules._redactor()
    assert made is lint_rules._redactor()
    assert made.rules == Redactor().rules and made.extra == []
