"""The importer registry: every format module's importer is listed once, under a unique name that
docs/importers.md documents; marker families are real; sniffing settles ties and broken sniffers
the way the protocol says."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import tracetui.importers as importers
from tracetui.importers import IMPORTERS, ImportProblem, convert, sniff
from tracetui.importers import sniffing as sniffing_mod
from tracetui.importers._common import Problems
from tracetui.importers.protocol import DOCUMENT_MAX, LINE, NO, Format, Head, Importer
from tracetui.model.markers import find_marker

DOC = Path(__file__).resolve().parents[2] / "docs" / "importers.md"


def defined_importers() -> dict[str, list[Any]]:
    """Module name → the importer objects defined at its top level, for every importers module."""
    found: dict[str, list[Any]] = {}
    for info in pkgutil.iter_modules(importers.__path__):
        module = importlib.import_module(f"tracetui.importers.{info.name}")
        objs = [
            v
            for v in vars(module).values()
            if isinstance(v, Importer) and not isinstance(v, (type, ModuleType))
        ]
        # Re-exported ones (the registry module's imports) are not defined there.
        own = [v for v in objs if getattr(v.convert, "__module__", None) == module.__name__]
        if own:
            found[module.__name__] = own
    return found


def test_every_defined_importer_is_listed() -> None:
    defined = defined_importers()
    assert "tracetui.importers.claude_code" in defined  # the discovery itself works
    listed = {id(imp) for imp in IMPORTERS}
    for module, objs in defined.items():
        assert [o for o in objs if id(o) not in listed] == [], f"{module}: not in IMPORTERS"
    assert len(IMPORTERS) == sum(len(objs) for objs in defined.values())


def test_names_are_unique() -> None:
    names = [imp.name for imp in IMPORTERS]
    assert len(names) == len(set(names))


def documented_formats() -> list[str]:
    """The names in the first column of the formats table of docs/importers.md."""
    return re.findall(r"^\| `([a-z0-9-]+)` \|", DOC.read_text(encoding="utf-8"), re.MULTILINE)


def test_docs_table_lists_exactly_the_registered_formats() -> None:
    assert sorted(documented_formats()) == sorted(imp.name for imp in IMPORTERS)


@pytest.mark.parametrize("imp", IMPORTERS, ids=[i.name for i in IMPORTERS])
def test_importer_follows_the_protocol(imp: Importer) -> None:
    assert isinstance(imp, Importer)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", imp.name)
    assert imp.markers and all(isinstance(m, str) for m in imp.markers)
    # Nothing is no format of any kind: an empty head scores NO everywhere.
    assert imp.sniff(Head(text="", lines=[])) == NO


# One example of each marker family (tracetui.model.markers) and the family it belongs to.
MARKER_EXAMPLES = [
    ("tracetui", "x\n…[truncated 5 bytes]…\n"),
    ("feedback", "...truncated 3 lines..."),
    ("claude-code", "a\n\n... [12 characters truncated] ...\n\nb"),
    ("swe-agent", "Old environment output: (52 lines omitted)"),
    ("mini-swe-agent", "<elided_chars>\n12000 characters elided\n</elided_chars>"),
    ("openhands", "a\n[... Observation truncated due to length ...]\nb"),
    ("inspect-ai", "The output of your call to bash was too long to be displayed."),
    ("generic", "x<response clipped>"),
    ("codex", "a…1200 tokens truncated…b"),
]
OWN_FAMILIES = {"tracetui", "feedback"}  # tracetui's own dialects, not another agent's


@pytest.mark.parametrize(("family", "text"), MARKER_EXAMPLES, ids=[f for f, _ in MARKER_EXAMPLES])
def test_marker_example_is_of_its_family(family: str, text: str) -> None:
    m = find_marker(text)
    assert m is not None and m.family == family


def test_importer_marker_families_are_real_and_cover_every_agent() -> None:
    known = {f for f, _ in MARKER_EXAMPLES}
    declared = {m for imp in IMPORTERS for m in imp.markers}
    assert declared - known == set()
    assert known - OWN_FAMILIES - declared == set()


def lines(*objs: Any) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objs)


CLAUDE = {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"content": "hi"}}
CODEX = {"type": "thread.started", "thread_id": "t"}
PRECEDENCE: list[tuple[str, bytes, str | None]] = [
    # Two line formats on one line: the one listed first in IMPORTERS names it.
    (
        "same-line-claude-before-codex",
        lines({**CLAUDE, "data": {"type": "item.started"}}),
        "claude-code",
    ),
    # Different lines: the earliest recognised line names it, whatever the list order.
    ("codex-line-first", lines({"x": 1}, CODEX, CLAUDE), "codex"),
    ("claude-line-first", lines({"x": 1}, CLAUDE, CODEX), "claude-code"),
    # A recognised line beats whole-document evidence further on.
    ("line-beats-document", lines({"info": {"mini_version": "2"}}, CLAUDE), "claude-code"),
    # Among document formats: a mini-swe-agent 1.x list beats an OpenHands event list.
    (
        "mini-list-beats-openhands-list",
        json.dumps(
            [
                {
                    "id": 0,
                    "source": "agent",
                    "action": "run",
                    "role": "user",
                    "content": "<returncode>0</returncode>",
                }
            ]
        ).encode(),
        "mini-swe-agent",
    ),
    ("nothing-recognised", lines({"x": 1}, {"y": 2}), None),
]


@pytest.mark.parametrize(
    ("data", "want"), [c[1:] for c in PRECEDENCE], ids=[c[0] for c in PRECEDENCE]
)
def test_sniff_precedence(tmp_path: Path, data: bytes, want: str | None) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(data)
    assert sniff(str(path)) == want


def test_confidence_bands_do_not_overlap() -> None:
    head = Head(text="", lines=[{"k": i} for i in range(30)])
    assert head.line_confidence(lambda obj: obj["k"] == 29) > DOCUMENT_MAX
    assert head.line_confidence(lambda obj: obj["k"] == 0) == LINE
    assert head.line_confidence(lambda obj: False) == NO


def _raises(head: Head) -> int:
    raise RuntimeError("a sniffer with a bug")


def _nothing(path: str, problems: Problems) -> Iterator[dict[str, Any]]:
    yield from ()


def test_a_sniffer_that_raises_only_loses_its_vote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = Format(name="broken", sniff=_raises, convert=_nothing, markers=("generic",))
    monkeypatch.setattr(sniffing_mod, "IMPORTERS", (broken, *IMPORTERS))
    path = tmp_path / "trace.jsonl"
    path.write_bytes(lines(CLAUDE))
    assert sniff(str(path)) == "claude-code"


@pytest.mark.parametrize("fmt", ["no-such-format", ""], ids=["unknown-name", "empty-name"])
def test_convert_refuses_an_unknown_format(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(lines(CLAUDE))
    with pytest.raises(ValueError, match="no importer for") as caught:
        list(convert(str(path), fmt))
    assert not isinstance(caught.value, ImportProblem)  # a caller's mistake, not a broken file
