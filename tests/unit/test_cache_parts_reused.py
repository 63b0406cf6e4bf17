"""A member restored whole from the persistent index is written to the new entry as it was
read, not cut from the index again: the entry is the one a build from nothing writes, byte for
byte in every part (only when each part's member was looked at may differ)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cache_runs import append_lines, cold, make_set, private_cache, rotate, state, warm

from tracetui.store import cache, cache_parts
from tracetui.store.runset import open_path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_cache(tmp_path, monkeypatch)


def entry_parts(home: Path, base: Path) -> list[tuple[dict[str, Any], list[bytes]]]:
    """The parts of ``base``'s cache entry: each one's header (without its time and its place
    in the body) and its columns' bytes."""
    run = open_path(str(base))[0]
    loaded = cache._load_entry(str(home / (cache.run_key(run) + ".idx")))
    assert loaded is not None, "an entry was written"
    header, body = loaded
    out = []
    for meta in header["parts"]:
        blobs = [bytes(body[start : start + n]) for start, n in meta["blobs"]]
        kept = {k: v for k, v in meta.items() if k not in ("blobs", "scanned_ns")}
        out.append((kept, blobs))
    return sorted(out, key=lambda part: str(part[0]["id"]))


def _rotate_then_append(b: Path) -> None:
    rotate(b)
    append_lines(b)


CHANGES: list[tuple[str, Callable[[Path], None], int]] = [
    # (change, member parts that must not be cut again)
    ("append to the base", append_lines, 1),
    ("rotate by rename", rotate, 2),
    ("rotate, then write the new base", _rotate_then_append, 2),
]


@pytest.mark.parametrize(
    ("change", "reused"), [c[1:] for c in CHANGES], ids=[c[0] for c in CHANGES]
)
def test_the_entry_after_a_change_is_the_one_a_fresh_build_writes(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    change: Callable[[Path], None],
    reused: int,
) -> None:
    base = make_set(tmp_path / "run")
    warm(base)  # cold: fills the cache
    change(base)
    cuts: list[int] = []
    cut = cache_parts.cut_part

    def counted(*args: Any) -> cache_parts.Part:
        cuts.append(1)
        return cut(*args)

    monkeypatch.setattr(cache, "cut_part", counted)
    got = warm(base)  # restores what it can, reads the rest, writes the entry
    members = len(open_path(str(base))[0].members)
    assert len(cuts) == members - reused
    assert state(got) == state(cold(base))
    after_change = entry_parts(home, base)

    shutil.rmtree(home)
    home.mkdir()
    warm(base)  # from nothing
    assert after_change == entry_parts(home, base)
    assert state(warm(base)) == state(cold(base))  # and the entry restores the same rows
