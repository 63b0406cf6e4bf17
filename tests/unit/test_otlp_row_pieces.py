"""The C span writer's pieces on their own (export/_otlp_row.c): its flag copies, sha256 ids,
times and string escaping against the Python functions they stand for.

The whole documents it writes are compared with the reference's in test_otlp_row.py and
test_otlp_row_hostile.py.
"""

from __future__ import annotations

import hashlib
import random

import pytest
from otlp_row_helpers import TEXTS

from tracetui.export import otlp, otlp_fast
from tracetui.model.flags import BAD, SIDECAR, TRUNC_UNKNOWN, TRUNCATED
from tracetui.model.text import dump_json

pytestmark = pytest.mark.skipif(otlp_fast._otlp_row is None, reason="C span writer not built")


def test_flag_copies_equal_the_model() -> None:
    row = otlp_fast._otlp_row
    assert (row.SKIP_FLAGS, row.MAY_MARK_FLAGS) == (BAD | SIDECAR, TRUNCATED | TRUNC_UNKNOWN)


@pytest.mark.parametrize("chars", [16, 32], ids=["span", "trace"])
def test_ids_equal_hashlib(chars: int) -> None:
    """Texts of every length around sha256's block boundaries (55, 56, 64, 119, 128 bytes)."""
    rng = random.Random(chars)
    for size in range(0, 200):
        prefix = bytes(rng.randrange(256) for _ in range(rng.randrange(30)))
        text = bytes(rng.randrange(256) for _ in range(size))
        want = hashlib.sha256(prefix + text).hexdigest()[:chars]
        assert otlp_fast._otlp_row.hex_id(prefix, text, chars) == want


STAMPS = [
    "2026-11-02T09:00:00Z",
    "2026-11-02T09:00:59.123456789Z",
    "2026-11-02T09:00:59.1234567891234Z",
    "2026-11-02T09:00:60Z",
    "2026-11-02 09:00:00.5+05:30",
    "2026-11-02T09:00:00.1234567891-0800",
    "2026-11-02t09:00:00z",
    "2026-11-02T09:00:00",
    "2026-11-02T09:00:00.Z",
    "2026-11-02T09:00:00Zx",
    "2026-11-02T09:00:00+0560",
    "2026-11-02T09:00:00+23:59",
    "2026-11-02T09:00:00+24:00",
    "2026-11-02T09:00:00+05:3",
    "2026-02-29T00:00:00Z",
    "2024-02-29T00:00:00Z",
    "2000-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2026-04-31T00:00:00Z",
    "2026-13-01T00:00:00Z",
    "2026-00-01T00:00:00Z",
    "2026-01-00T00:00:00Z",
    "2026-11-02T24:00:00Z",
    "2026-11-02T23:60:00Z",
    "0000-01-01T00:00:00Z",
    "0001-01-01T00:00:00Z",
    "1677-09-21T00:12:43.145224192Z",
    "1677-09-21T00:12:43.145224191Z",
    "2262-04-11T23:47:16.854775807Z",
    "2262-04-11T23:47:16.854775808Z",
    "9999-12-31T23:59:59.999999999-23:59",
    "1969-12-31T23:59:59.999Z",
    "2026-11-02X09:00:00Z",
    "2026-11-02T09:00:00 Z",
    " 2026-11-02T09:00:00Z",
    "\t\x1c2026-11-02T09:00:00.5Z\r\n\x0b\x0c\x1f ",
    "2026-11-02T09:00:00Z\x1b",
    " \n ",
    "yesterday",
    "",
]


@pytest.mark.parametrize("stamp", STAMPS, ids=[s or "empty" for s in STAMPS])
def test_times_equal_unix_nanos(stamp: str) -> None:
    got = otlp_fast._otlp_row.nanos(stamp.encode())
    want = otlp.unix_nanos(stamp)
    if got == "python":  # undecided (outside 64 bits): the row goes to Python
        assert want is not None and not -(2**63) <= want < 2**63
    else:
        assert got == want


@pytest.mark.parametrize(
    "stamp", ["٢٠٢٦-11-02T09:00:00Z", "2026-11-02T09:00:00Z\u2003", "\xa02026-11-02T09:00:00Z"]
)
def test_times_c_does_not_judge(stamp: str) -> None:
    """Unicode digits and whitespace are Python's to read (\\d, strip())."""
    assert otlp_fast._otlp_row.nanos(stamp.encode()) == "python"


def test_random_times_equal_unix_nanos() -> None:
    rng = random.Random(3)
    parts = ["2026", "-", "11", "02", "T", "t", " ", ":", "09", "60", "99", ".", "5", "123456789"]
    parts += ["Z", "z", "+", "-", "05:30", "0800", "1", "0"]
    for _ in range(3000):
        stamp = "".join(rng.choice(parts) for _ in range(rng.randrange(4, 14)))
        if rng.random() < 0.5:
            stamp = f"20{rng.randrange(100):02}-{rng.randrange(14):02}-{rng.randrange(33):02}T"
            stamp += f"{rng.randrange(25):02}:{rng.randrange(61):02}:{rng.randrange(62):02}"
            stamp += rng.choice(["", ".", ".1", ".000000001999"]) + rng.choice(["", "Z", "+01:00"])
        got = otlp_fast._otlp_row.nanos(stamp.encode())
        assert got == "python" or got == otlp.unix_nanos(stamp), stamp


@pytest.mark.parametrize("text", TEXTS, ids=[f"t{n}" for n in range(len(TEXTS))])
def test_strings_escape_as_dump_json(text: str) -> None:
    assert otlp_fast._otlp_row.text_json(text.encode()) == dump_json(text)


def test_every_code_point_escapes_as_dump_json() -> None:
    points = [*range(0, 0x3000), *range(0xE000, 0x10000), *range(0xE0000, 0xE0100), 0x10FFFF]
    text = "".join(chr(c) for c in points if not 0xD800 <= c <= 0xDFFF)
    assert otlp_fast._otlp_row.text_json(text.encode()) == dump_json(text)
