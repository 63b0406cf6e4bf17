"""The core must run without the UI: importing any core module must not import Textual."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import tracetui.core

CORE_MODULES = sorted(
    f"tracetui.core.{m.name}" for m in pkgutil.iter_modules(tracetui.core.__path__)
) + ["tracetui.cli", "tracetui.commands.lint_cmd", "tracetui.commands.summary_cmd"]


@pytest.mark.parametrize("module", CORE_MODULES, ids=CORE_MODULES)
def test_core_module_does_not_import_textual(module: str) -> None:
    code = (
        "import sys, importlib\n"
        f"importlib.import_module({module!r})\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imported {out.stdout.strip()}"
