"""Lint's chosen reading trusts the row marks of the bytes indexed; when a member is no longer
the file it indexed (rewritten, replaced, truncated), it takes the full reading instead, and an
append (a live run growing) keeps the chosen one. Both with the persistent cache and without."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool

from tracetui.analysis import lint as lint_module
from tracetui.analysis.lint import lint_index
from tracetui.store import fastindex, identity
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="C scanner not built")


@pytest.fixture(params=["no-cache", "cache"])
def cache_mode(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> str:
    if request.param == "no-cache":
        monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    else:
        monkeypatch.delenv("TRACETUI_NO_CACHE", raising=False)
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return str(request.param)


def failed_cut(i: int, note: str) -> dict[str, Any]:
    return tool(
        f"c{i}",
        exit_code=1,
        stdout_bytes=9000,
        stdout_truncated=True,
        stdout_clip="head",
        stdout_sha256=None,
        ok_preview=False,
        preview_stdout="x" * 40,
        agent_note=note,
    )


def run_of(tmp_path: Path, note: str = "expect green", n: int = 300) -> Path:
    path = tmp_path / "B.jsonl"
    path.write_bytes(b"".join(encode_line(failed_cut(i, note)) for i in range(n)))
    return path


def full_readings(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records each call of lint_index's every_row (the full reading's) from here on."""
    calls: list[bool] = []
    real = lint_module.lint_index

    def spy(index: Any, *, every_row: bool = False) -> Any:
        calls.append(every_row)
        return real(index, every_row=every_row)

    monkeypatch.setattr(lint_module, "lint_index", spy)
    return calls


def test_an_append_keeps_the_chosen_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache_mode: str
) -> None:
    path = run_of(tmp_path)
    ix = build_index(open_path(str(path))[0])
    with open(path, "ab") as fh:  # the agent goes on writing
        fh.write(encode_line(failed_cut(999, "should pass")))
    assert not identity.changed_since_built(ix)
    calls = full_readings(monkeypatch)
    found = lint_index(ix)
    assert calls == [] and len(found) == 600  # TT019 and TT022 on each indexed row


def test_an_unfinished_last_line_finished_keeps_the_chosen_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache_mode: str
) -> None:
    """The writer was halfway through a line when lint indexed the run: the bytes indexed of
    it are still there once it is finished, so the chosen reading holds."""
    path = run_of(tmp_path)
    last = encode_line(failed_cut(999, "should pass"))
    with open(path, "ab") as fh:
        fh.write(last[:30])
    ix = build_index(open_path(str(path))[0])
    with open(path, "ab") as fh:
        fh.write(last[30:])
    assert not identity.changed_since_built(ix)
    calls = full_readings(monkeypatch)
    found = lint_index(ix)
    assert calls == [] and found == lint_index(ix, every_row=True)


@pytest.mark.parametrize("how", ["same-size", "mtime-put-back", "truncated", "replaced", "gone"])
def test_a_member_changed_since_indexing_gets_the_full_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cache_mode: str, how: str
) -> None:
    path = run_of(tmp_path)
    ix = build_index(open_path(str(path))[0])
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    if how in ("same-size", "mtime-put-back"):
        path.write_text(text.replace("expect green", "pwd=hunter2x"), encoding="utf-8")
        if how == "mtime-put-back":
            os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert path.stat().st_size == before.st_size
    elif how == "truncated":
        with open(path, "r+b") as fh:
            fh.truncate(before.st_size // 2)
    elif how == "replaced":
        other = tmp_path / "other"
        other.write_text(text, encoding="utf-8")
        other.replace(path)  # the same bytes, another file: its rows may be anything
    else:
        path.unlink()
    assert identity.changed_since_built(ix)
    found = lint_index(ix)
    assert found == lint_index(ix, every_row=True)
    if how in ("same-size", "mtime-put-back"):
        assert {i.code for i in found} >= {"TT015"}  # the secret written since is seen
