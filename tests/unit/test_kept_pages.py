"""Paging the unseen part of a kept stream from disk (tracetui/record/kept_pages.py)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

from tracetui.record import kept_pages
from tracetui.record.kept_pages import LINE_LIMIT, UnseenPages
from tracetui.record.kept_read import KeptMismatch, find_kept
from tracetui.record.recorder import run_with_feedback

LINES = [b"line %04d of the unseen part" % n for n in range(300)]
LINES[150] = b"x" * (LINE_LIMIT * 2 + 10)  # one very long line: shown as three
LINES[200] = b"E   AssertionError: Needle here"
DATA = b"\n".join(LINES) + b"\n"


def pages_for(tmp_path: Path, data: bytes = DATA, clip: str = "tail") -> UnseenPages:
    base = tmp_path / "B"
    code = f"import sys; sys.stdout.buffer.write({data!r})"
    rec = run_with_feedback([sys.executable, "-c", code], log=base, cap=1, clip=clip).record
    return UnseenPages.load(find_kept(str(base), rec, "stdout"))


def walk(pages: UnseenPages, rows: int) -> list[tuple[int, list[bytes], int]]:
    out, at = [], 0
    while at < pages.size:
        page = pages.page(at, rows)
        out.append((page.start, page.lines, page.end))
        at = page.end
    return out


@pytest.mark.parametrize("rows", [1, 7, 40, 1000], ids=["1", "7", "40", "all"])
def test_pages_cover_the_unseen_bytes_once(tmp_path: Path, rows: int) -> None:
    pages = pages_for(tmp_path)
    assert pages.size == len(DATA) - 1  # a tail cut of 1 byte: only the last newline was seen
    got = [line for _s, lines, _e in walk(pages, rows) for line in lines]
    want = [p for line in DATA[:-1].split(b"\n") for p in _pieces(line)]
    assert got == want


def _pieces(line: bytes) -> list[bytes]:
    return [line[i : i + LINE_LIMIT] for i in range(0, len(line), LINE_LIMIT)] or [b""]


@pytest.mark.parametrize("rows", [1, 7, 40], ids=["1", "7", "40"])
def test_back_returns_to_the_page_before(tmp_path: Path, rows: int) -> None:
    pages = pages_for(tmp_path)
    walked = walk(pages, rows)
    for (start, _l, _e), (after, _l2, _e2) in itertools.pairwise(walked):
        assert pages.back(after, rows) == start


@pytest.mark.parametrize(
    ("query", "start", "forward", "line"),
    [
        (b"needle", 0, True, 200),
        (b"NEEDLE HERE", 0, True, 200),
        (b"line 0299", 0, True, 299),
        (b"needle", 10**9, False, 200),
        (b"line 0000", 10**9, False, 0),
    ],
    ids=["forward", "case", "last-line", "backward", "backward-first"],
)
def test_find(
    tmp_path: Path, monkeypatch, query: bytes, start: int, forward: bool, line: int
) -> None:
    monkeypatch.setattr(kept_pages, "SEARCH_CHUNK", 1000)  # matches across chunk edges too
    pages = pages_for(tmp_path)
    found = pages.find(query, start, forward=forward)
    assert found is not None
    assert pages.line_start(found) == DATA.index(LINES[line])


def test_find_past_the_last_match_is_none(tmp_path: Path) -> None:
    pages = pages_for(tmp_path)
    hit = pages.find(b"needle", 0)
    assert hit is not None
    assert (
        pages.find(b"needle", hit + 1) is None and pages.find(b"needle", hit, forward=False) is None
    )


def test_a_changed_kept_file_is_not_loaded(tmp_path: Path) -> None:
    base = tmp_path / "B"
    rec = run_with_feedback([sys.executable, "-c", "print('x' * 500)"], log=base, cap=1).record
    (tmp_path / "B.kept" / (rec["stdout_kept"]["sha256"] + ".gz")).write_bytes(b"\x1f\x8bjunk")
    with pytest.raises(KeptMismatch, match="is damaged"):
        UnseenPages.load(find_kept(str(base), rec, "stdout"))
