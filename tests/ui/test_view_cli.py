"""`tracetui view` from the command line: bad paths fail before the app starts; the UI is
imported only by `view`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tracetui.cli import main

FLAKY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "flaky")

BAD_PATHS = [
    ("missing", ["view", "/no/such/run.jsonl"], "no such file or directory"),
    ("bare-missing", ["/no/such/run.jsonl"], "no such file or directory"),
    ("bare-with-option", ["--no-follow", "/no/such/run.jsonl"], "no such file or directory"),
    ("empty-dir", ["view", "{tmp}"], "no run files"),
]


@pytest.mark.parametrize(
    ("argv", "message"), [c[1:] for c in BAD_PATHS], ids=[c[0] for c in BAD_PATHS]
)
def test_bad_paths_exit_2_with_a_message(tmp_path, capsys, argv, message) -> None:  # type: ignore[no-untyped-def]
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_unreadable_file_exits_2(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    p = tmp_path / "run.jsonl"
    p.write_text("{}\n")
    p.chmod(0)
    assert main(["view", str(p)]) == 2
    assert "permission denied" in capsys.readouterr().err


def test_no_follow_is_accepted() -> None:
    from tracetui.cli import build_parser

    args = build_parser().parse_args(["view", "--no-follow", FLAKY])
    assert args.no_follow is True and args.paths == [FLAKY]


COMMANDS = [("summary", ["summary", FLAKY, "--json"]), ("missing-view-path", ["view", "/no/such"])]


@pytest.mark.parametrize("argv", [c[1] for c in COMMANDS], ids=[c[0] for c in COMMANDS])
def test_ui_is_only_imported_by_view(argv: list[str]) -> None:
    code = (
        "import sys\n"
        "from tracetui.cli import main\n"
        f"main({argv!r})\n"
        "print('LOADED=' + ','.join(sorted(m for m in sys.modules if m.startswith(('tracetui.ui', 'textual')))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "LOADED="
