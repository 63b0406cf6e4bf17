"""Review of the kept ``summary --json`` output (``tracetui/store/cache_output.py``): a cache
file is hostile input, and its body is written to the terminal as it is. A body whose first
line names the right version, files and notes but which holds raw terminal controls (or is not
UTF-8) must never be printed: the summary is made again instead."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from cache_runs import make_set, private_cache

from tracetui import cli


def _run(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> bytes:
    assert cli.main(argv) == 0
    return capsysbinary.readouterr().out


def _spoil_body(change: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    def spoil(data: bytes) -> bytes:
        head, _, body = data.partition(b"\n")
        return head + b"\n" + change(body)

    return spoil


SPOILT: list[tuple[str, Callable[[bytes], bytes]]] = [
    ("escape-sequence", _spoil_body(lambda b: b"\x1b]0;owned\x07\x1b[2J" + b)),
    ("carriage-return", _spoil_body(lambda b: b.replace(b"{", b"{\r", 1))),
    ("delete", _spoil_body(lambda b: b + b"\x7f")),
    ("c1-csi", _spoil_body(lambda b: b + "\u009b2J".encode())),
    ("bidi-override", _spoil_body(lambda b: b + "\u202e".encode())),
    ("not-utf8", _spoil_body(lambda b: b + b"\xff\xfe")),
    ("nul", _spoil_body(lambda b: b[:10] + b"\x00" + b[10:])),
]


@pytest.mark.parametrize("spoil", [s[1] for s in SPOILT], ids=[s[0] for s in SPOILT])
def test_a_kept_output_with_raw_controls_is_never_printed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    spoil: Callable[[bytes], bytes],
) -> None:
    home = private_cache(tmp_path, monkeypatch)
    base = make_set(tmp_path / "run")
    cold = _run(["summary", "--json", str(base)], capsysbinary)
    (kept,) = home.glob("*.out")
    kept.write_bytes(spoil(kept.read_bytes()))
    assert _run(["summary", "--json", str(base)], capsysbinary) == cold
    (kept,) = home.glob("*.out")  # written again, as printed
    assert kept.read_bytes().partition(b"\n")[2] + b"\n" == cold


def test_a_kept_output_with_text_beyond_ascii_is_printed(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """Printable characters past ASCII (a summary's sparkline bars) are what a cold summary
    prints: a body holding them is still given back."""
    home = private_cache(tmp_path, monkeypatch)
    base = make_set(tmp_path / "run")
    _run(["summary", "--json", str(base)], capsysbinary)
    (kept,) = home.glob("*.out")
    head, _, body = kept.read_bytes().partition(b"\n")
    planted = body.replace(b"{", '{"bars": "\u2581\u2588", '.encode(), 1)
    kept.write_bytes(head + b"\n" + planted)
    assert _run(["summary", "--json", str(base)], capsysbinary) == planted + b"\n"
