"""The viewer's parts never import the app, and no import cycle runs through ``tracetui.ui``.

Only the commands that start the viewer (tracetui/commands/view_cmd.py, the demo) import the
app. The import graph is the one tests/unit/test_import_hygiene.py builds from the source (every
import statement, function-level and ``TYPE_CHECKING`` ones included). The live follower and
the re-run flow are handed the app as a ``ViewerHost`` (ui/host.py); widgets post messages.
"""

from __future__ import annotations

import pytest
from unit.test_import_hygiene import import_graph

GRAPH = import_graph()
UI = sorted(m for m in GRAPH if m.startswith("tracetui.ui."))
STARTERS = {"tracetui.ui.demo"}
"""Modules that start the viewer rather than being part of it (demo.py subclasses the app)."""
PARTS = [m for m in UI if m != "tracetui.ui.app" and m not in STARTERS]


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> bool:
    """Whether ``goal`` can be reached from ``start`` along one or more imports."""
    seen: set[str] = set()
    todo = list(graph.get(start, ()))
    while todo:
        node = todo.pop()
        if node == goal:
            return True
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return False


def test_the_ui_package_is_in_the_graph() -> None:
    # An empty list would make the tests below pass without checking anything.
    assert {"tracetui.ui.app", "tracetui.ui.live", "tracetui.ui.widgets.rerun_pane"} <= set(UI)


@pytest.mark.parametrize("module", PARTS, ids=PARTS)
def test_a_part_of_the_viewer_does_not_import_the_app(module: str) -> None:
    assert "tracetui.ui.app" not in GRAPH[module]


@pytest.mark.parametrize("module", UI, ids=UI)
def test_no_import_cycle_runs_through(module: str) -> None:
    assert not reaches(GRAPH, module, module)


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, True),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, True),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, False),
        ({"a": {"b"}, "b": {"b"}}, False),  # a cycle elsewhere is not one through "a"
    ],
    ids=["two", "three", "none", "elsewhere"],
)
def test_reaches_finds_a_way_back(graph: dict[str, set[str]], expected: bool) -> None:
    assert reaches(graph, "a", "a") is expected
