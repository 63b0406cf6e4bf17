"""Review (session 8): a command line with an option before its command's name is parsed by
the whole parser, not by the one command's (``cli.build_parser(only)``).

``tracetui -h summary`` printed the top-level help with one command in its list, and
``tracetui - lint`` said "invalid choice: '-' (choose from 'lint')": argparse judges what comes
before the command's name with the top-level parser, whose help and errors list its commands."""

from __future__ import annotations

from typing import Any

import pytest

from tracetui import cli

ARGVS: list[list[str]] = [
    *(["-h", name] for name in cli.COMMANDS),
    ["--help", "summary", "x"],
    ["--he", "lint"],
    ["-", "summary"],
    ["--", "lint", "x"],
    [],
]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    got = capsys.readouterr()
    return code, got.out, got.err


@pytest.mark.parametrize("argv", ARGVS, ids=[" ".join(a) for a in ARGVS])
def test_an_option_before_the_command_reads_as_with_the_whole_parser(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    one = _run(argv, capsys)
    whole_parser = cli.build_parser

    def whole(*_: Any) -> Any:
        return whole_parser(None)

    monkeypatch.setattr(cli, "build_parser", whole)
    assert one == _run(argv, capsys)


def test_the_whole_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["-h", "summary"]) == 0
    out = capsys.readouterr().out
    assert all(f"    {name} " in out for name in cli.COMMANDS), out
