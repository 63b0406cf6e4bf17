"""A big member is scanned as two pieces on two threads (store/build.py ``_pieces``), the later
piece's line numbers counted on from the earlier's: every index equals the one built with each
member scanned whole, member by member and row by row, wherever the cut falls (blank lines, a
line without its newline at the end, over-long lines, bad lines, CRLF, gzip'd members, an
appended member read from the cache); a member that changes under the cut starts the build over.
"""

from __future__ import annotations

import gzip
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from cache_runs import OLD, private_cache, state
from test_lint_fast import hostile_line

from tracetui.store import build, fastindex
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="C scanner not built")

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"


def full_state(ix: RunIndex) -> tuple[Any, ...]:
    return (*state(ix), [(im.size, im.lines) for im in ix.members], ix.run.notes)


CUTS: list[int] = []
"""The ends of the first pieces scanned by the last build (``built``)."""


def built(base: Path, monkeypatch: pytest.MonkeyPatch, piece_bytes: int) -> RunIndex:
    scan = fastindex.scan_member

    def spy(*args: Any, end: int | None = None, **kw: Any) -> Any:
        if end is not None:
            CUTS.append(end)
        return scan(*args, end=end, **kw)

    CUTS.clear()
    with monkeypatch.context() as m:
        m.setattr(build, "PIECE_BYTES", piece_bytes)
        m.setattr(fastindex, "scan_member", spy)
        return build_index(open_path(str(base))[0])


def record(i: int) -> bytes:
    rec = {"schema": "tracetui/1", "span_type": "tool", "command_id": f"c{i}", "argv": ["t"]}
    rec["exit_code"] = 1 if i % 7 == 0 else 0
    return json.dumps(rec).encode()


def member(lines: list[bytes], newline: bytes = b"\n") -> bytes:
    return b"".join(x + newline for x in lines)


def body(kind: str, seed: int) -> bytes:
    rng = random.Random(seed)
    plain = [record(seed * 1000 + i) for i in range(200)]
    if kind == "plain":
        return member(plain)
    if kind == "blank-runs":  # runs of blank lines wherever the middle falls
        return member([x for r in plain for x in ([r] + [b""] * rng.randrange(4))])
    if kind == "blank-middle":  # the middle falls in blank lines: the first piece ends on some
        return member(plain[:100] + [b""] * 600 + plain[100:])
    if kind == "no-final-newline":
        return member(plain)[:-1]
    if kind == "crlf":
        return member(plain, b"\r\n")
    if kind == "bad-lines":
        return member([x if rng.random() > 0.2 else b'{"argv": ["oops"' for x in plain])
    if kind == "hostile":
        return b"".join(hostile_line(rng, seed * 1000 + i) for i in range(300))
    if kind == "long-lines":  # lines over the scanner's limit around the middle
        lines = list(plain)
        lines[95:105] = [b'{"x": "' + b"y" * 3000 + b'"}'] * 10
        return member(lines)
    raise AssertionError(kind)


KINDS = [
    "plain",
    "blank-runs",
    "blank-middle",
    "no-final-newline",
    "crlf",
    "bad-lines",
    "hostile",
    "long-lines",
]


@pytest.fixture(autouse=True)
def _cold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("piece_bytes", [1, 97, 4096], ids=["tiny", "odd", "page"])
def test_pieces_index_what_whole_members_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, piece_bytes: int
) -> None:
    names = ["B.jsonl.2", "B.jsonl.1", "B.jsonl"]
    for k, name in enumerate(names):
        (tmp_path / name).write_bytes(body(kind, k))
    if kind == "long-lines":
        monkeypatch.setattr(fastindex, "MAX_LINE", 2000)
    base = tmp_path / "B.jsonl"
    whole = built(base, monkeypatch, 1 << 40)
    assert CUTS == []
    cut = built(base, monkeypatch, piece_bytes)
    assert len(CUTS) == 3  # every member cut in two
    assert full_state(cut) == full_state(whole)
    assert len(whole) > 100


def test_a_gzip_member_and_the_samples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "B.jsonl.2.gz").write_bytes(gzip.compress(body("blank-runs", 2)))
    (tmp_path / "B.jsonl.1").write_bytes(body("hostile", 1))
    (tmp_path / "B.jsonl").write_bytes(body("plain", 0))
    for base in [tmp_path / "B.jsonl", SAMPLES / "rotated"]:
        assert full_state(built(base, monkeypatch, 64)) == full_state(
            built(base, monkeypatch, 1 << 40)
        )


def test_an_appended_member_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the new bytes of an appended member are scanned: in pieces too, numbered on from
    the cached lines."""
    private_cache(tmp_path, monkeypatch)
    run = tmp_path / "run"
    run.mkdir()
    for k, name in enumerate(["B.jsonl.1", "B.jsonl"]):
        (run / name).write_bytes(body("blank-runs", k))
        os.utime(run / name, ns=(OLD, OLD))
    base = run / "B.jsonl"
    built(base, monkeypatch, 1 << 40)  # fills the cache
    for name in ["B.jsonl.1", "B.jsonl"]:
        with open(run / name, "ab") as fh:
            fh.write(body("bad-lines", 5))
        os.utime(run / name, ns=(OLD + 10**9, OLD + 10**9))
    warm = built(base, monkeypatch, 64)
    assert len(CUTS) == 2  # the new bytes of each member, in two pieces
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    assert full_state(warm) == full_state(built(base, monkeypatch, 1 << 40))


def test_a_member_changed_under_the_cut_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cut that is no longer a line's end (the file was rewritten after it was chosen): the
    build starts over member by member and says so; no row is lost or doubled."""
    for k, name in enumerate(["B.jsonl.1", "B.jsonl"]):
        (tmp_path / name).write_bytes(body("plain", k))
    base = tmp_path / "B.jsonl"
    whole = built(base, monkeypatch, 1 << 40)
    real = build._pieces

    def shifted(index: RunIndex, job: Any) -> list[Any]:
        got = real(index, job)
        if len(got) == 2:  # the cut moved into the middle of a line
            got[0].end, got[1].start = got[0].end + 5, got[1].start + 5
        return got

    monkeypatch.setattr(build, "_pieces", shifted)
    again = built(base, monkeypatch, 64)
    assert any("parallel scan stopped" in n for n in again.run.notes)
    assert state(again) == state(whole)
