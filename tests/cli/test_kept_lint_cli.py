"""A warm ``tracetui lint`` through the real entry point (``python -m tracetui``): the findings
an earlier lint kept (tracetui/store/cache_lint.py) are printed as the same bytes, with the same
status and stderr, as a lint with no cache at all, in every format, for one run and for two; a
reader gone leaves lint's verdict as its status, cold or warm."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from records import encode_line, tool

FORMATS = ["text", "json", "sarif"]
OLD = time.time_ns() - 3600 * 10**9
"""An mtime well before any lint (a file changed just before it is read is not trusted)."""

Outcome = tuple[int, bytes, bytes]


def run_records(prefix: str, n: int) -> bytes:
    """``n`` records with errors (ok_preview with exit 1) and warnings (parents not in the
    set), ~560 bytes each: from ~1,900 of them a run is over the size from which the cache
    keeps one (1 MiB)."""
    return b"".join(
        encode_line(
            tool(
                f"{prefix}-{i}",
                exit_code=1 if i % 5 == 0 else 0,
                parent_command_id="gone" if i % 7 == 0 else None,
                note="x" * 300,
            )
        )
        for i in range(n)
    )


def _write_run(base: Path, n: int) -> Path:
    """A run over the size from which the cache keeps one (1 MiB), with errors (a bad line,
    ok_preview with exit 1) and warnings (parents not in the set)."""
    base.parent.mkdir(parents=True, exist_ok=True)
    base.write_bytes(run_records(base.name, n) + b"{not json\n")
    os.utime(base, ns=(OLD, OLD))
    assert base.stat().st_size > 1 << 20
    return base


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("runs")
    return [_write_run(root / "a" / "A.jsonl", 2600), _write_run(root / "b" / "B.jsonl", 2700)]


def _lint(
    args: list[str], tmp_path: Path, *, cache: bool = True, stdout: int = subprocess.PIPE
) -> Outcome:
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "xdg"))
    env.pop("TRACETUI_CACHE_MAX_MB", None)
    env.pop("TRACETUI_DEBUG", None)
    if cache:
        env.pop("TRACETUI_NO_CACHE", None)
    else:
        env["TRACETUI_NO_CACHE"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "tracetui", "lint", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tmp_path,  # SARIF names files relative to the working directory
        check=False,
        timeout=60,
    )
    return done.returncode, done.stdout or b"", done.stderr


def _kept(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "xdg" / "tracetui" / "index").glob("*.lint"))


@pytest.mark.parametrize("strict", [[], ["--strict"]], ids=["plain", "strict"])
@pytest.mark.parametrize("form", FORMATS)
def test_a_warm_lint_prints_what_a_cold_one_does(
    runs: list[Path], tmp_path: Path, form: str, strict: list[str]
) -> None:
    args = ["--format", form, *strict, str(runs[0])]
    want = _lint(args, tmp_path, cache=False)
    assert want[0] == 1 and want[2] == b""
    assert _lint(args, tmp_path) == want  # linted, its findings kept
    assert len(_kept(tmp_path)) == 1
    assert _lint(args, tmp_path) == want  # from the kept findings
    assert _lint(args, tmp_path) == want


def test_two_runs_at_once(runs: list[Path], tmp_path: Path) -> None:
    a, b = map(str, runs)
    for form in FORMATS:
        for paths in ([a, b], [b, a]):
            args = ["--format", form, *paths]
            want = _lint(args, tmp_path, cache=False)
            assert _lint(args, tmp_path) == want
            assert _lint(args, tmp_path) == want
    assert len(_kept(tmp_path)) == 2


@pytest.mark.parametrize("form", FORMATS)
def test_a_reader_gone_keeps_the_status_cold_and_warm(
    runs: list[Path], tmp_path: Path, form: str
) -> None:
    args = ["--format", form, "--strict", str(runs[1])]
    read, write = os.pipe()
    os.close(read)
    try:
        for _ in range(2):  # cold, then from the kept findings
            status, _out, err = _lint(args, tmp_path, stdout=write)
            assert (status, err) == (1, b"")
    finally:
        os.close(write)
    assert len(_kept(tmp_path)) == 1
