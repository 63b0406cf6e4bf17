"""Import problems quote trace text (member names, tool_use_ids, exception messages): the note
they become is one neutralised, bounded line, whoever prints or shows it later."""

from __future__ import annotations

import pytest

from tracetui.importers._common import PROBLEM_CHARS, ImportProblem, Problems


@pytest.mark.parametrize(
    ("problem", "shown"),
    [
        ("samples/a\x1b]0;x\x07.json: unreadable", "samples/a␛]0;x␇.json: unreadable"),
        (
            "line 3: result for a call not in the file (t\x9b\u202e)",
            "line 3: result for a call not in the file (t\\x9b\\u202e)",
        ),
        ("line 1: skipped (ValueError: a\nb)", "line 1: skipped (ValueError: a⏎b)"),
        ("x" * 1000, "x" * (PROBLEM_CHARS - 1) + "…"),
        ("[/] [bold]markup", "[/] [bold]markup"),
    ],
    ids=["eval-member", "tool-use-id", "newline-in-exception", "huge-id", "markup-kept-literal"],
)
def test_problem_note_is_one_safe_line(problem: str, shown: str) -> None:
    problems = Problems()
    problems.add(problem)
    with pytest.raises(ImportProblem) as err:
        problems.raise_if_any(2)
    assert str(err.value) == f"2 tool call(s) imported; 1 problem(s): {shown}"
