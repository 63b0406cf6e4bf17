"""docs/architecture.md is the map of the code: its package list and the dependencies it allows
are checked against the packages that exist and the imports they make."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_import_hygiene import PACKAGE_DIR, import_graph

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
LINE = re.compile(r"^  (?P<pkg>[a-z_]+)/\s+-> (?P<deps>.+?)(?:\s{2,}|$)")


def documented() -> dict[str, set[str] | None]:
    """Package → the packages it may import (None: any), from the doc's package block."""
    text = DOC.read_text(encoding="utf-8")
    block = text.split("## Packages", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    allowed: dict[str, set[str] | None] = {}
    for line in block.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        deps = m["deps"].strip()
        if deps == "everything":
            allowed[m["pkg"]] = None
        elif deps == "(nothing)":
            allowed[m["pkg"]] = set()
        else:
            allowed[m["pkg"]] = {d.strip() for d in deps.split(",")}
    return allowed


def package_of(module: str) -> str | None:
    """``tracetui.store.index`` → ``store``; top-level modules (cli, errors…) → None."""
    parts = module.split(".")
    if len(parts) < 2 or not (PACKAGE_DIR / parts[1]).is_dir():
        return None
    return parts[1]


def test_the_doc_lists_every_package_and_no_other() -> None:
    actual = {p.name for p in PACKAGE_DIR.iterdir() if (p / "__init__.py").exists()}
    assert set(documented()) == actual


def test_the_doc_block_is_parsed() -> None:
    allowed = documented()
    assert allowed["model"] == set()
    assert allowed["commands"] is None
    assert allowed["live"] == {"model", "store"}


def _edges() -> list[tuple[str, str, str, str]]:
    out = []
    for module, deps in import_graph().items():
        src = package_of(module)
        for dep in deps:
            dst = package_of(dep) or dep.split(".")[-1]
            if src is not None and dst != src:
                out.append((src, dst, module, dep))
    return out


@pytest.mark.parametrize("package", sorted(documented()))
def test_a_package_imports_only_what_the_doc_allows(package: str) -> None:
    allowed = documented()[package]
    if allowed is None:
        return  # commands/: the composition root may use everything
    # Top-level helpers every layer may use: errors (UsageError) and crash reports.
    allowed = allowed | {"errors", "crash", "tracetui"}
    wrong = [f"{m} imports {d}" for s, t, m, d in _edges() if s == package and t not in allowed]
    assert wrong == []
