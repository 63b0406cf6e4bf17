"""Issue 13: a damaged or bomb-like gzip member keeps what decompresses and never takes the run
down, its temp copy never outlives the index, and a build can be cancelled.

Each case states the spans kept, the run note word for word, the size of the decompressed copy,
and that the temp folder (TMPDIR, pointed at the test's own) is empty afterwards.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from pathlib import Path

import pytest
from hostile_helpers import (
    both_paths,
    private_temp,  # noqa: F401 - an autouse fixture, used by being here
    run_cli,
    temps,
)
from records import encode_line, tool

from tracetui.store import gz
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

GOOD = encode_line(tool("good"))
NEWEST = encode_line(tool("newest"))


# ------------------------------------------------------------------------------ gzip members
def lines_of(n: int, width: int = 200) -> bytes:
    return b"".join(encode_line(tool(f"z{i:05d}", preview_stdout="x" * width)) for i in range(n))


def stored(data: bytes) -> bytes:
    """gzip at level 0: stored deflate blocks, so damage placed by offset hits known bytes."""
    return gzip.compress(data, compresslevel=0, mtime=0)


def blocks(blob: bytes) -> list[tuple[int, int]]:
    """``(offset, data length)`` of each stored block: [1 byte, LEN, NLEN, data] after the
    10-byte gzip header."""
    found, at = [], 10
    while at < len(blob) - 8:
        assert blob[at] in (0, 1)  # BTYPE 00: stored
        length = int.from_bytes(blob[at + 1 : at + 3], "little")
        found.append((at, length))
        at += 5 + length
    return found


MEMBER = lines_of(1000)  # about 650 KB
(_, FIRST), (SECOND_BLOCK, SECOND) = blocks(stored(MEMBER))[:2]
KEPT_ONE_BLOCK = MEMBER[:FIRST].count(b"\n")
CUT_AT = SECOND_BLOCK + 5 + SECOND // 2  # within the second block's data
CUT_BYTES = FIRST + SECOND // 2
KEPT_CUT = MEMBER[:CUT_BYTES].count(b"\n")


def nlen_broken(blob: bytes) -> bytes:
    b = bytearray(blob)
    b[SECOND_BLOCK + 3] ^= 0xFF  # NLEN no longer the complement of LEN
    return bytes(b)


def crc_broken(blob: bytes) -> bytes:
    b = bytearray(blob)
    b[-8] ^= 0xFF
    return bytes(b)


GZ_MEMBERS: list[tuple[str, bytes, int, str | None]] = [
    ("sound", stored(MEMBER), 1000, None),
    (
        "corrupt-deflate",  # zlib.error: it took the whole run down
        nlen_broken(stored(MEMBER)),
        KEPT_ONE_BLOCK,
        f"B.jsonl.1.gz: gzip data damaged after {FIRST:,} decompressed bytes (invalid stored "
        f"block lengths); the {KEPT_ONE_BLOCK:,} complete lines before it are read",
    ),
    (
        "cut-short",  # every readable span was dropped with it
        stored(MEMBER)[:CUT_AT],
        KEPT_CUT,
        f"B.jsonl.1.gz: gzip data ends early (cut off) after {CUT_BYTES:,} decompressed "
        f"bytes; the {KEPT_CUT:,} complete lines before it are read",
    ),
    (
        "trailing-garbage",
        stored(MEMBER) + b"garbage",
        1000,
        "B.jsonl.1.gz: 7 bytes after the end of the gzip data, not gzip: ignored",
    ),
    ("zero-padding", stored(MEMBER) + b"\0" * 512, 1000, None),
    ("two-members", gzip.compress(MEMBER[:99_999]) + gzip.compress(MEMBER[99_999:]), 1000, None),
    (
        "checksum",
        crc_broken(stored(MEMBER)),
        1000,
        "B.jsonl.1.gz: gzip checksum does not match (incorrect data check): the data may be "
        "damaged; its 1,000 complete lines are read",
    ),
    (
        "not-gzip",
        b"this is not gzip\n",
        0,
        "B.jsonl.1.gz: not readable as gzip (incorrect header check); nothing read",
    ),
]


@pytest.mark.parametrize(
    ("blob", "spans", "note"), [c[1:] for c in GZ_MEMBERS], ids=[c[0] for c in GZ_MEMBERS]
)
def test_a_damaged_gz_member_keeps_what_decompresses(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    blob: bytes,
    spans: int,
    note: str | None,
) -> None:
    root = tmp_path / "run"
    root.mkdir()
    (root / "B.jsonl.1.gz").write_bytes(blob)
    (root / "B.jsonl").write_bytes(NEWEST)
    run = open_path(str(root / "B.jsonl"))[0]
    ix = build_index(run)
    assert (ix.stats.spans, ix.stats.bad_lines) == (spans + 1, 0)
    assert run.notes == ([note] if note else [])
    assert ix.ids[-1] == "newest"
    ix.close()
    assert temps(tmp_path) == []
    both_paths(root / "B.jsonl", monkeypatch)
    rc, out, err = run_cli(capsys, "summary", "--json", str(root))
    assert rc == 0 and json.loads(out)["spans"] == spans + 1
    assert err == (f"tracetui: run/B.jsonl: {note}\n" if note else "")
    assert temps(tmp_path) == []


def test_the_live_follower_keeps_what_decompresses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tail`` reads gz members through the same bounded decompressor (live/watch.spool)."""
    root = tmp_path / "run"
    root.mkdir()
    (root / "B.jsonl.1.gz").write_bytes(nlen_broken(stored(MEMBER)))
    (root / "B.jsonl").write_bytes(NEWEST)
    rc, out, err = run_cli(capsys, "tail", "--once", "--from-start", "--json", str(root))
    assert rc == 0 and "internal error" not in err
    assert len(out.splitlines()) == KEPT_ONE_BLOCK + 1
    assert temps(tmp_path) == []


# (id, decompressed content, limits set for the test, bytes kept, the note)
BOMBS: list[tuple[str, bytes, dict[str, int], int, str]] = [
    (
        "no-line-break-in-first-mib",  # 8 MiB of NULs: 4 MB of them made 4.3 GB and took 81 s
        b"\0" * (8 << 20),
        {},
        0,
        "B.jsonl.1.gz: no line break in the first 1 MiB of its decompressed data: not a JSON "
        "Lines trace (a gzip bomb?); not read",
    ),
    (
        "ratio",  # judged past RATIO_AFTER (1 MiB here): the second MiB stops it
        GOOD * 40_000,
        {"RATIO_AFTER": 1 << 20, "MAX_RATIO": 10},
        (2 << 20) // len(GOOD) * len(GOOD),
        "B.jsonl.1.gz: decompresses to over 10 times its size (a gzip bomb?), stopped after "
        "2,097,152 bytes; the {lines:,} complete lines before it are read",
    ),
]


@pytest.mark.parametrize(
    ("content", "limits", "kept", "note"), [c[1:] for c in BOMBS], ids=[c[0] for c in BOMBS]
)
def test_a_gzip_bomb_is_stopped_early_and_what_came_before_kept(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    content: bytes,
    limits: dict[str, int],
    kept: int,
    note: str,
) -> None:
    for name, value in limits.items():
        monkeypatch.setattr(gz, name, value)
    root = tmp_path / "run"
    root.mkdir()
    (root / "B.jsonl.1.gz").write_bytes(gzip.compress(content, 9))
    (root / "B.jsonl").write_bytes(NEWEST)
    run = open_path(str(root / "B.jsonl"))[0]
    ix = build_index(run)
    lines = kept // len(GOOD)
    assert os.path.getsize(ix.members[0].readable) == kept
    assert run.notes == [note.format(lines=lines)]
    assert (ix.stats.spans, ix.stats.bad_lines) == (lines + 1, 0)
    ix.close()
    assert temps(tmp_path) == []


def test_the_size_cap_comes_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(gz.MAX_OUTPUT_ENV, "1")
    out = io.BytesIO()
    got = gz.gunzip_to(io.BytesIO(gzip.compress(GOOD * 5000)), out, "B.jsonl.1.gz")
    lines = (1 << 20) // len(GOOD)
    assert got == gz.Gunzipped(
        lines * len(GOOD),
        lines,
        "B.jsonl.1.gz: over the 1 MiB limit for one member (TRACETUI_GUNZIP_MAX_MIB); "
        f"the {lines:,} complete lines before it are read",
    )
    assert out.getvalue() == GOOD * lines


# ------------------------------------------------------------------------------ temp copies
class Interrupting(io.RawIOBase):
    """A .gz source that raises ``exc`` on its third read (Ctrl-C mid-decompression)."""

    def __init__(self, path: str, exc: BaseException) -> None:
        self.fh = open(path, "rb")  # noqa: SIM115 - closed in close()
        self.exc, self.reads = exc, 0

    def read(self, n: int = -1) -> bytes:
        self.reads += 1
        if self.reads == 3:
            raise self.exc
        return self.fh.read(min(n, 4096))

    def close(self) -> None:
        self.fh.close()
        super().close()


@pytest.mark.parametrize(
    "exc",
    [KeyboardInterrupt(), OSError(28, "No space left on device")],
    ids=["ctrl-c", "disk-full"],
)
def test_no_temp_copy_outlives_a_failed_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exc: BaseException
) -> None:
    root = tmp_path / "run"
    root.mkdir()
    (root / "B.jsonl.1.gz").write_bytes(gzip.compress(MEMBER))
    (root / "B.jsonl").write_bytes(NEWEST)
    monkeypatch.setattr(gz, "open_regular", lambda path: Interrupting(path, exc))
    run = open_path(str(root / "B.jsonl"))[0]
    if isinstance(exc, KeyboardInterrupt):
        with pytest.raises(KeyboardInterrupt) as caught:
            build_index(run)
        assert temps(tmp_path) == []  # while the traceback still holds the index
        del caught
    else:
        ix = build_index(run)  # a member that cannot be read is a note, the rest is read
        assert run.notes == ["B.jsonl.1.gz: cannot read: No space left on device"]
        assert ix.ids == ["newest"]
        ix.close()
        assert temps(tmp_path) == []


def test_a_cancelled_build_stops_and_cleans_up(tmp_path: Path) -> None:
    root = tmp_path / "run"
    root.mkdir()
    (root / "B.jsonl.1.gz").write_bytes(gzip.compress(MEMBER))
    (root / "B.jsonl").write_bytes(NEWEST * 10)
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return True

    with pytest.raises(gz.Cancelled):
        build_index(open_path(str(root / "B.jsonl"))[0], cancelled=cancelled)
    assert asked == [1] and temps(tmp_path) == []
