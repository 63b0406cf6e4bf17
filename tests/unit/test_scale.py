"""No quadratic corners (issue 13): work counted in calls, not timed, at two sizes.

A directory of many runs is opened with one name parse per file; a retry chain of thousands
of spans is walked once however many of its rows ask for their root. Each test counts the calls
of the inner step with a wrapper and asserts the count stays under a small multiple of the
input at 1,000 and 4,000: a quadratic walk would make millions of calls and fail at both.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from records import encode_line, tool

from tracetui.store import runset

SIZES = [pytest.param(1000, id="1k"), pytest.param(4000, id="4k")]


def counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Replace ``owner.name`` by a wrapper that counts its calls; returns the one-item counter."""
    calls = [0]
    real: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)
    return calls


# ------------------------------------------------------------------ a directory of many runs
def make_dir(root: Path, n: int) -> int:
    """``n`` one-span runs, every tenth rotated once and every twentieth with a sidecar."""
    root.mkdir()
    line = encode_line(tool("c"))
    files = 0
    for i in range(n):
        base = root / f"run{i:05d}.jsonl"
        base.write_bytes(line)
        files += 1
        if i % 10 == 0:
            (root / f"run{i:05d}.jsonl.1").write_bytes(line)
            files += 1
        if i % 20 == 0:
            (root / f"run{i:05d}.jsonl.reruns.jsonl").write_bytes(b"")
            files += 1
    return files


@pytest.mark.parametrize("n", SIZES)
def test_a_directory_is_opened_with_one_parse_per_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int
) -> None:
    files = make_dir(tmp_path / "runs", n)
    calls = counting(monkeypatch, runset, "split_member_name")
    runs = runset.open_path(str(tmp_path / "runs"))
    assert calls[0] <= files  # one parse per name (it was one per name per run: n² calls)
    assert len(runs) == n
    assert [len(r.members) for r in runs[:11]] == [2] + [1] * 9 + [2]
    assert [r.sidecar is not None for r in runs[:21]] == [True] + [False] * 19 + [True]
    assert runs[0].members[0].path.endswith("run00000.jsonl.1")
