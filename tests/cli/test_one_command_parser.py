"""A command line naming a command is parsed by a parser holding that command alone
(``cli.build_parser(only=…)``: a cold summary does not import the other nine command modules).
Its help, its errors and what it parses are the whole parser's: checked for every command
through the real entry point, against ``main`` given the whole parser."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tracetui import cli

SAMPLE = Path(__file__).resolve().parents[2] / "sample_runs" / "flaky-billing"

ARGVS: list[list[str]] = [
    *([name, "--help"] for name in cli.COMMANDS),
    *([name, "--no-such-option"] for name in cli.COMMANDS),
    ["summary"],
    ["lint", "--format", "nope", "x"],
    ["export"],
    ["show"],
    ["--no-follow", "--help"],
    ["no-such-file", "--help"],
    ["--latest", "--help"],
    ["--help"],
    ["-h"],
    ["--version"],
    ["--bogus"],
    ["summary", "--json", "--no-cache", "--help"],
]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    got = capsys.readouterr()
    return code, got.out, got.err


@pytest.mark.parametrize("argv", ARGVS, ids=[" ".join(a) for a in ARGVS])
def test_same_as_the_whole_parser(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    one = _run(argv, capsys)
    whole_parser = cli.build_parser

    def whole(*_: Any) -> Any:
        return whole_parser(None)

    monkeypatch.setattr(cli, "build_parser", whole)
    assert one == _run(argv, capsys)


def test_the_namespace_is_the_whole_parsers() -> None:
    for argv in (["summary", "--json", "--no-cache", "a", "b"], ["lint", "--format", "json", "a"]):
        one = vars(cli.build_parser(argv[0]).parse_args(argv))
        whole = vars(cli.build_parser().parse_args(argv))
        assert one == whole


def test_a_summary_imports_no_other_command() -> None:
    code = (
        "import sys; from tracetui import cli; cli.main(['summary', '--json', sys.argv[1]]);"
        " print(sorted(m for m in sys.modules if m.startswith('tracetui.commands.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(SAMPLE)],
        capture_output=True,
        text=True,
        check=True,
    )
    shown = out.stdout.strip().splitlines()[-1]
    assert shown == str(
        [
            "tracetui.commands.common",
            "tracetui.commands.latest",
            "tracetui.commands.run_notes",
            "tracetui.commands.summary_cmd",
        ]
    )
