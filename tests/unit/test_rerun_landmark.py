"""tracetui.rerun.landmark: the first failure line of a re-run's never-seen output."""

from __future__ import annotations

import hashlib

import pytest

from tracetui.rerun import landmark
from tracetui.rerun.diff import Windows


class Bytes:
    """An Output over bytes in memory."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    @property
    def total(self) -> int:
        return len(self.data)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def read(self, start: int, size: int) -> bytes:
        return self.data[start : start + size]


def unseen_from(data: bytes, start: int) -> tuple[Bytes, Windows]:
    windows = Windows("head", "seen", None, start, 0, start, len(data) - start)
    return Bytes(data), windows


PASSING = b"".join(b"tests/test_%03d.py::test_ok PASSED\n" % i for i in range(50))

CASES = [
    (
        "assertion",
        PASSING + b"    assert total == 10\nE   AssertionError: 9 != 10\n",
        b"E   AssertionError",
    ),
    ("traceback", PASSING + b"Traceback (most recent call last):\n  File x\n", b"Traceback"),
    ("pytest-failed", PASSING + b"FAILED tests/test_x.py::test_total\n", b"FAILED tests"),
    ("compiler", PASSING + b"main.c:3:1: error: expected ';'\n", b"main.c:3:1"),
    ("rust-panic", PASSING + b"thread 'main' panicked at src/main.rs:2\n", b"thread 'main'"),
    (
        "the-error-over-an-earlier-verdict",
        PASSING + b"t.py::test_x FAILED\n" + PASSING + b"E   ZeroDivisionError\n",
        b"E   ZeroDivisionError",
    ),
    ("no-failure", PASSING + b"50 passed in 0.1s\n", None),
    ("words-are-not-failures", PASSING + b"0 errors, no failures, terror\n", None),
]


@pytest.mark.parametrize(("data", "line"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_first_failure_line(data: bytes, line: bytes | None) -> None:
    new, windows = unseen_from(b"seen\n" + data, 5)
    at = landmark.first_failure(new, windows)
    if line is None:
        assert at is None
    else:
        assert at is not None and data[at:].startswith(line)
        assert at == 0 or data[at - 1 : at] == b"\n"  # the start of a line


def test_assertion_e_line_is_found_before_its_message_line() -> None:
    # pytest prints the failing source line, then `E   AssertionError`: the E line is first.
    data = PASSING + b"E       assert 9 == 10\nE   AssertionError\n"
    new, windows = unseen_from(data, 0)
    at = landmark.first_failure(new, windows)
    assert at == len(PASSING)


def test_a_failure_across_piece_boundaries_and_past_the_scan() -> None:
    filler = b"ok\n" * ((landmark.PIECE // 3) + 7)  # the line straddles the first piece's end
    data = filler + b"RuntimeError: boom\n"
    new, windows = unseen_from(data, 0)
    assert landmark.first_failure(new, windows) == len(filler)
    assert landmark.first_failure(new, windows, scan=len(filler) // 2) is None


def test_one_endless_line() -> None:
    data = b"x" * (3 * landmark.PIECE) + b" ValueError: at the end"
    new, windows = unseen_from(data, 0)
    assert landmark.first_failure(new, windows) == 0
