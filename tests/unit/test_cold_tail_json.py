"""dump_json looks for characters to escape in the bytes from 0x7F up only: the same output as
searching the whole text (the code before), on a table of values and on random strings."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from tracetui.model import text
from tracetui.model.text import dump_json


def _reference(obj: Any, *, indent: bool = False) -> bytes:
    """dump_json as it was: the escape pattern searched over the whole decoded text."""
    option = orjson.OPT_INDENT_2 if indent else 0
    data = orjson.dumps(obj, option=option, default=str)
    decoded = data.decode("utf-8")
    if text._JSON_UNSAFE.search(decoded) is None:
        return data
    return text._JSON_UNSAFE.sub(text._json_escape, decoded).encode("utf-8")


SPARK = "▁▂▃▄▅▆▇█"
CASES = [
    pytest.param({"a": "plain"}, id="ascii"),
    pytest.param({"a": "x\x7fy"}, id="del"),
    pytest.param({"a": "\x85"}, id="c1-nel"),
    pytest.param({"a": "\x9b[31m"}, id="c1-csi"),
    pytest.param({"a": "bars " + SPARK}, id="sparkline-only"),
    pytest.param({"s": SPARK, "id": "a\u202eb"}, id="sparkline-and-bidi"),
    pytest.param({"id": "a\u200bb"}, id="zero-width"),
    pytest.param({"id": "\ufeffbom"}, id="bom"),
    pytest.param({"id": "x\u2028y\u2029"}, id="line-separators"),
    pytest.param({"id": "\u061c\u180e"}, id="arabic-mongolian"),
    pytest.param({"id": "tag\U000e0041"}, id="tag-character"),
    pytest.param({"id": "emoji 😀 é ü 中文"}, id="harmless-non-ascii"),
    pytest.param({"k\u202e": "key unsafe"}, id="unsafe-key"),
    pytest.param(["\x7f", "é", "\x9f", "ÿ", "Ā"], id="edges"),
    pytest.param({"n": [1, 2.5, None, True], "s": "\x00\x1f"}, id="c0-orjson-escapes"),
]


@pytest.mark.parametrize("obj", CASES)
@pytest.mark.parametrize("indent", [False, True], ids=["compact", "indent"])
def test_table_matches_the_whole_text_search(obj: Any, indent: bool) -> None:
    assert dump_json(obj, indent=indent) == _reference(obj, indent=indent)


def _random_text(rng: random.Random) -> str:
    pools = [
        [chr(c) for c in range(0x20, 0x7F)],
        [chr(c) for c in range(0x7F, 0x100)],
        [*SPARK, "\u200b", "\u200e", "\u202a", "\u2066", "\u2028", "\ufeff", "\u00ad"],
        ["é", "中", "😀", "\U000e0020", "\U0010fffd", "\u0600"],
    ]
    return "".join(rng.choice(rng.choice(pools)) for _ in range(rng.randrange(0, 40)))


@pytest.mark.parametrize("seed", range(4))
def test_random_strings_match_the_whole_text_search(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(500):
        obj = {_random_text(rng): [_random_text(rng) for _ in range(rng.randrange(4))]}
        indent = rng.random() < 0.5
        assert dump_json(obj, indent=indent) == _reference(obj, indent=indent)


def test_a_long_ascii_output_with_bars_is_not_escaped() -> None:
    """The summary's shape: megabytes of ids, then a sparkline: written as orjson writes it."""
    obj = {"chains": [f"id-{i}" for i in range(50_000)], "spark": SPARK}
    assert dump_json(obj, indent=True) == orjson.dumps(obj, option=orjson.OPT_INDENT_2)
