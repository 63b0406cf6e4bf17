"""The layering the architecture promises (docs/architecture.md), checked on the source itself.

* Only ``tracetui.ui`` imports Textual: every other module, found by walking every package
  recursively, is imported in a fresh interpreter (a child forked from one that imported
  nothing of tracetui) and must leave ``textual`` out of sys.modules.
* No import cycles of any length between tracetui's modules, counting every import statement
  (module level, inside functions, and under ``TYPE_CHECKING``).
"""

from __future__ import annotations

import ast
import functools
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import tracetui

PACKAGE_DIR = Path(tracetui.__file__).parent


def all_modules() -> list[str]:
    """Every module of the package, sub-packages included (pkgutil.walk_packages recurses)."""
    found = ["tracetui"]
    for info in pkgutil.walk_packages(tracetui.__path__, prefix="tracetui."):
        found.append(info.name)
    return sorted(found)


MODULES = all_modules()
NON_UI = [
    m
    for m in MODULES
    # __main__ runs the CLI when imported; it is only `from tracetui.cli import main`.
    if not (m == "tracetui.ui" or m.startswith("tracetui.ui.") or m == "tracetui.__main__")
]


def test_the_walk_reaches_nested_packages() -> None:
    # A walk that stops at the top level would let a nested module import Textual unchecked.
    assert "tracetui.importers.claude_code" in MODULES
    assert "tracetui.ui.widgets.span_list" in MODULES
    assert "tracetui.store.index" in NON_UI


FORKS = """\
import importlib, json, os, sys
for name in json.loads(sys.argv[2]):  # the standard library's modules tracetui imports
    try:
        importlib.import_module(name)
    except ImportError:
        pass  # another platform's (tracetui imports it under a guard)
assert "textual" not in sys.modules
found = {}
for name in json.loads(sys.argv[1]):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: this interpreter as it started, plus one import
        os.close(r)
        try:
            importlib.import_module(name)
            bad = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
            said = "imported " + ",".join(bad)
        except BaseException as exc:
            said = f"failed: {exc!r}"
        os.write(w, said.encode())
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        found[name] = fh.read().decode()
    os.waitpid(pid, 0)
print(json.dumps(found))
"""
"""Imports each module in a child forked from one fresh interpreter that has imported nothing of
tracetui, only the standard library's modules tracetui imports (argv[2]): what importing the
module adds to ``sys.modules`` is what it would add in a fresh ``python -c`` (Textual is no
part of the standard library), without 150 interpreter starts and 150 loads of the same
standard modules (the check took ~12 s, then 8.4 s forked, 5.4 s so)."""


@functools.cache
def stdlib_imports() -> tuple[str, ...]:
    """The standard library's top-level modules named by an import statement in tracetui."""
    found: set[str] = set()
    for path in PACKAGE_DIR.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.add(node.module.split(".")[0])
    return tuple(sorted(found & set(sys.stdlib_module_names) - {"__future__"}))


def forked(modules: list[str]) -> dict[str, str]:
    out = subprocess.run(
        [sys.executable, "-c", FORKS, json.dumps(modules), json.dumps(list(stdlib_imports()))],
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, str] = json.loads(out.stdout)
    return found


@functools.cache
def textual_imports() -> dict[str, str]:
    """Module → ``"imported <textual modules, comma-separated>"`` or ``"failed: <error>"``."""
    return forked(NON_UI)


@pytest.mark.parametrize("module", NON_UI, ids=NON_UI)
def test_module_outside_ui_does_not_import_textual(module: str) -> None:
    assert textual_imports()[module] == "imported ", f"{module}: {textual_imports()[module]}"


def test_the_forked_check_sees_an_import_of_textual() -> None:
    # The check above finds Textual when a module imports it (a ui module does, at once).
    found = forked(["tracetui.ui.app", "tracetui.no_such"])
    assert found["tracetui.ui.app"].startswith("imported textual")
    assert found["tracetui.no_such"].startswith("failed: ModuleNotFoundError")
    # What the parent loads first is the standard library only, and what tracetui uses of it.
    assert {"json", "threading"} <= set(stdlib_imports())
    assert not any(m.startswith(("tracetui", "textual", "rich")) for m in stdlib_imports())


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE_DIR.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph() -> dict[str, set[str]]:
    """Module → the tracetui modules it imports, from every import statement in its source.

    Parsed once a session (each caller gets its own copy): 16 tests ask, 1 s a parse."""
    return {name: set(deps) for name, deps in _parsed_graph().items()}


@functools.cache
def _parsed_graph() -> dict[str, frozenset[str]]:
    known = set(MODULES)
    graph: dict[str, frozenset[str]] = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        name = _module_name(path)
        is_pkg = path.name == "__init__.py"
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
            for t in targets:
                if t in known:
                    deps.add(t)
        # A module importing its own package's __init__ (or a package re-exporting a child) is
        # not a cycle of ideas; only edges between distinct modules count.
        deps.discard(name)
        graph[name] = frozenset(d for d in deps if not name.startswith(d + ".") and d != "tracetui")
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a list of modules, or None (iterative DFS, three colours)."""
    state: dict[str, int] = {}
    for start in sorted(graph):
        if state.get(start):
            continue
        stack: list[tuple[str, list[str]]] = [(start, sorted(graph[start]))]
        path = [start]
        state[start] = 1
        while stack:
            node, todo = stack[-1]
            if not todo:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            nxt = todo.pop()
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if not state.get(nxt):
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, sorted(graph.get(nxt, ()))))
    return None


def test_no_import_cycles() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_cycle_finder_finds_a_planted_cycle() -> None:
    planted = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycle(planted) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_graph_sees_imports_inside_functions_and_type_checking() -> None:
    graph = import_graph()
    # tracetui.__getattr__ imports the recorder lazily, inside a function.
    assert "tracetui.record.recorder" in graph["tracetui"] or any(
        d.startswith("tracetui.record") for d in graph["tracetui"]
    )
