"""The cached columns' bounds check: the C helper (``store/_bounds.c``) and the Python path
answer alike on every shape of column a hostile cache file can hold."""

from __future__ import annotations

import random
import sys
from array import array

import pytest

from tracetui.store import cache_parts

BOUNDS = getattr(cache_parts, "_bounds", None)

I64_MAX = (1 << 63) - 1
I64_MIN = -(1 << 63)

CASES = [
    ("empty", [], 0),
    ("empty, negative top", [], -1),
    ("zero at top zero", [0], 0),
    ("one over", [1], 0),
    ("at the top", [0, 5, 10], 10),
    ("one past the top", [0, 5, 11], 10),
    ("negative one", [3, -1, 4], 10),
    ("most negative", [I64_MIN], I64_MAX),
    ("largest", [I64_MAX], I64_MAX),
    ("largest, top one less", [I64_MAX], I64_MAX - 1),
    ("top negative", [0], -1),
    ("over in the last value of a block", [*range(4096), 9_999], 5_000),
    ("over in the first value after a block", [*([1] * 4096), 2], 1),
    ("long and within", list(range(10_000)), 9_999),
    ("long, one over at the end", [*range(10_000), 10_000], 9_999),
]


def _take(road: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Send the checks down ``road``: the C helper, or the Python path (``TRACETUI_NO_C``)."""
    if road == "c":
        if BOUNDS is None:
            pytest.skip("built without a C compiler")
        monkeypatch.delenv("TRACETUI_NO_C", raising=False)
    else:
        monkeypatch.setenv("TRACETUI_NO_C", "1")


def _python_within(blob: memoryview, top: int) -> bool:
    """The Python road as cache_parts had it alone (its own copy: the test keeps it fixed)."""
    values = array("q")
    values.frombytes(blob)
    high = bytes(blob[7::8] if sys.byteorder == "little" else blob[0::8])
    return not high.translate(None, bytes(range(0x80))) and max(values, default=-1) <= top


@pytest.mark.parametrize(("values", "top"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("road", ["c", "python"])
def test_both_roads_agree(
    values: list[int], top: int, road: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _take(road, monkeypatch)
    blob = memoryview(array("q", values).tobytes())
    want = all(0 <= v <= top for v in values)
    if values:  # the Python road needs a value (check_part never asks for an empty column)
        assert _python_within(blob, top) == want
        assert cache_parts._within(blob, top) == want
    elif road == "c":
        assert cache_parts._within(blob, top) is want


def test_random_columns_agree() -> None:
    if BOUNDS is None:
        pytest.skip("built without a C compiler")
    rng = random.Random(18)
    for _ in range(300):
        n = rng.randrange(1, 3000)
        values = [rng.randrange(0, 1 << 20) for _ in range(n)]
        if rng.random() < 0.5:
            values[rng.randrange(n)] = rng.choice([-1, I64_MIN, 1 << 21, I64_MAX])
        top = rng.randrange(0, 1 << 21)
        blob = memoryview(array("q", values).tobytes())
        assert BOUNDS.within(blob, top) == _python_within(blob, top)


def test_an_unaligned_view_and_a_ragged_length() -> None:
    if BOUNDS is None:
        pytest.skip("built without a C compiler")
    raw = b"\x00" + array("q", [1, 2, 3]).tobytes()
    assert BOUNDS.within(memoryview(raw)[1:], 3) is True
    assert BOUNDS.within(memoryview(raw)[1:], 2) is False
    with pytest.raises(ValueError, match="int64"):
        BOUNDS.within(raw[:7], 10)


class _Str(str):
    """A str subclass: JSON never gives one, so the check refuses it as it refuses an int."""


TYPE_CASES = [
    ("empty", [], True, True),
    ("text", ["a", "b"], True, True),
    ("text and None", ["a", None], True, False),
    ("only None", [None, None], True, False),
    ("an int", ["a", 1], False, False),
    ("a bool", [True], False, False),
    ("a float", [1.5], False, False),
    ("a list", [["a"]], False, False),
    ("a dict", [{"a": 1}], False, False),
    ("bytes", [b"a"], False, False),
    ("a str subclass", [_Str("a")], False, False),
    ("the last of many", [*(["x"] * 5000), 7], False, False),
]


@pytest.mark.parametrize(
    ("items", "with_none", "without_none"),
    [c[1:] for c in TYPE_CASES],
    ids=[c[0] for c in TYPE_CASES],
)
@pytest.mark.parametrize("road", ["c", "python"])
def test_the_type_check_agrees(
    items: list[object],
    with_none: bool,
    without_none: bool,
    road: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _take(road, monkeypatch)
    assert cache_parts._only_text(items, none_too=True) is with_none
    assert cache_parts._only_text(items, none_too=False) is without_none
