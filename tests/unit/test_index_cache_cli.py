"""The persistent index seen from the command line: --no-cache and TRACETUI_NO_CACHE, a warm
summary that indexes nothing, and a kept summary never shown for files that changed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cache_runs import (
    append_lines,
    big_set,
    lines,
    make_set,
    private_cache,
    rewrite_same_size,
    rotate,
    write,
)

from tracetui import cli
from tracetui.commands import common
from tracetui.store import build, cache
from tracetui.store.index import RunIndex


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_cache(tmp_path, monkeypatch)


def _summary(base: Path, *extra: str, env: dict[str, str] | None = None) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "tracetui", "summary", *extra, "--json", str(base)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=True,
    )
    return out.stdout


SWITCHES = [
    ("--no-cache", ("--no-cache",), {}),
    ("TRACETUI_NO_CACHE=1", (), {"TRACETUI_NO_CACHE": "1"}),
]


@pytest.mark.parametrize(("extra", "env"), [s[1:] for s in SWITCHES], ids=[s[0] for s in SWITCHES])
def test_the_cache_can_be_switched_off(
    home: Path, tmp_path: Path, extra: tuple[str, ...], env: dict[str, str]
) -> None:
    base = big_set(tmp_path / "run")
    off = _summary(base, *extra, env=env)
    assert not home.exists() or list(home.iterdir()) == []
    on = _summary(base)
    assert sorted(p.suffix for p in home.iterdir()) == [".idx", ".json", ".out"]
    assert on == off


@pytest.mark.parametrize("named", ["base-file", "folder"])
def test_a_warm_summary_is_the_cold_one_without_indexing(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    named: str,
) -> None:
    """Named by its base file or by the folder holding it (a folder of one run is that run:
    before, only a file's summary was taken from the cache, a folder's was indexed again)."""
    base = make_set(tmp_path / "run")
    path = str(base if named == "base-file" else base.parent)
    assert cli.main(["summary", "--json", path]) == 0
    first = capsysbinary.readouterr().out

    def no_build(*_a: Any, **_k: Any) -> RunIndex:
        raise AssertionError("indexed again")

    monkeypatch.setattr(build, "build_index", no_build)
    monkeypatch.setattr(common, "build_index", no_build)
    assert cli.main(["summary", "--json", path]) == 0
    assert capsysbinary.readouterr().out == first


KEPT_CHANGES = [
    ("append", append_lines),
    ("rotate", rotate),
    ("rewrite-same-size", rewrite_same_size),
    ("re-run-added", lambda b: write(Path(f"{b}.reruns.jsonl"), lines(50, 1, parent_of=3))),
]


@pytest.mark.parametrize("change", [c[1] for c in KEPT_CHANGES], ids=[c[0] for c in KEPT_CHANGES])
@pytest.mark.parametrize("form", [["--json"], []], ids=["json", "text"])
def test_a_kept_summary_is_never_shown_for_changed_files(
    home: Path,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    change: Callable[[Path], None],
    form: list[str],
) -> None:
    base = make_set(tmp_path / "run")
    assert cli.main(["summary", *form, str(base)]) == 0
    first = capsysbinary.readouterr().out
    assert cli.main(["summary", *form, str(base)]) == 0  # from what was kept
    assert capsysbinary.readouterr().out == first
    change(base)
    assert cli.main(["summary", *form, str(base)]) == 0
    changed = capsysbinary.readouterr().out
    cache._off = True
    try:
        assert cli.main(["summary", *form, str(base)]) == 0
    finally:
        cache._off = False
    assert changed == capsysbinary.readouterr().out
    assert changed != b"" and first != b""


def _lint(base: Path, out: Path) -> list[str]:
    return ["lint", "--format", "json", str(base)]


def _export(base: Path, out: Path) -> list[str]:
    return ["export", str(base), "--otlp-json", str(out)]


def _report(base: Path, out: Path) -> list[str]:
    return ["report", str(base), "--id", "c0003", "-o", str(out)]


COMMANDS = [
    ("lint", _lint, (0, 1), [".idx", ".lint"]),  # lint keeps its findings (store/cache_lint.py)
    ("export", _export, (0,), [".idx"]),
    ("report", _report, (0,), [".idx"]),
]


@pytest.mark.parametrize(
    ("argv", "codes", "kept"), [c[1:] for c in COMMANDS], ids=[c[0] for c in COMMANDS]
)
def test_every_indexing_command_takes_no_cache(
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: Callable[[Path, Path], list[str]],
    codes: tuple[int, ...],
    kept: list[str],
) -> None:
    base = make_set(tmp_path / "run")
    words = argv(base, tmp_path / "out")
    try:
        assert cli.main([words[0], "--no-cache", *words[1:]]) in codes
        assert not home.exists() or list(home.iterdir()) == []
    finally:
        cache._off = False
    assert cli.main(words) in codes
    assert sorted(p.suffix for p in home.iterdir()) == kept
    capsys.readouterr()
