"""The id table built over whole columns at C speed (tracetui/store/ids.py) shows every id as
the id-by-id way did: same keys, same displayed forms, in one go or in steps."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from tracetui.store.ids import MIN_SHOWN, IdTable, _common_prefix, _stamp_suffix, plain


class OneByOne(IdTable):
    """The reference: every id taken in by itself (the table as it was before the bulk path)."""

    def extend(self, ids: Sequence[str | None]) -> None:
        self.rows += len(ids)
        fresh = {cid for cid in ids if cid} - set(self._seen)
        self._seen.update(dict.fromkeys(fresh))
        new_keys: list[str] = []
        new_others: list[str] = []
        for cid in fresh:
            text = plain(cid)
            suffix = _stamp_suffix(text)
            if suffix is not None:
                new_keys.append(suffix)
            else:
                new_others.append(text)
        self._stamp_keys.extend(new_keys)
        if new_others:
            self._others.extend(new_others)
            low, high = min(new_others), max(new_others)
            if self._low is not None and self._high is not None:
                low, high = min(low, self._low), max(high, self._high)
            self._low, self._high = low, high
            shared = _common_prefix(low, high)
            ending = new_others[0] if self._ending is None else self._ending
            for text in new_others:
                while not text.endswith(ending):
                    ending = ending[1:]
            self._ending = ending
            tail = len(ending) if len(self._others) > 1 else 0
            if (shared, tail) != (self._shared, self._tail) or len(self._others) == len(new_others):
                self._shared, self._tail = shared, tail
                self._keys = sorted(
                    [*self._stamp_keys, *(self._key_of_other(t) for t in self._others)]
                )
                return
            new_keys.extend(self._key_of_other(t) for t in new_others)
        self._keys = sorted([*self._keys, *new_keys])


def column(shape: str, n: int, rnd: random.Random) -> list[str | None]:
    hexes = [f"{rnd.getrandbits(32):08x}" for _ in range(n)]
    if shape == "recorder":
        return [f"20261129T2311{i % 60:02d}.8486{i:02d}Z-{h}" for i, h in enumerate(hexes)]
    if shape == "recorder-ragged":  # suffixes of several lengths
        return [f"20261129T231150.{i:06d}Z-{h[: 5 + i % 4]}" for i, h in enumerate(hexes)]
    if shape == "sequential":
        return [f"c{i:08d}" for i in range(n)]
    if shape == "tool-use":
        return [f"toolu_01{h}{h[:4]}" for h in hexes]
    if shape == "shared-ending":
        return [f"c{i:04d}-long-id" for i in range(n)]
    if shape == "short":
        return [rnd.choice(["a", "ab", "abc", "x1", None, ""]) for _ in range(n)]
    if shape == "control-chars":
        return [f"id\x1b[{i}m\u202e{i}" for i in range(n)]
    if shape == "dashes":  # a dash, but no recorder id
        return [f"run-{i}" for i in range(n)]
    pool = [  # "mixed": every kind, repeats and gaps
        *column("recorder", n // 4, rnd),
        *column("sequential", n // 4, rnd),
        *column("short", n // 8, rnd),
        *column("control-chars", n // 8, rnd),
        *column("dashes", n // 8, rnd),
    ]
    return [rnd.choice(pool) for _ in range(n)]


SHAPES = [
    "recorder",
    "recorder-ragged",
    "sequential",
    "tool-use",
    "shared-ending",
    "short",
    "control-chars",
    "dashes",
    "mixed",
]


@pytest.mark.parametrize("steps", [1, 3, 40], ids=["at-once", "three-steps", "forty-steps"])
@pytest.mark.parametrize("shape", SHAPES)
def test_the_bulk_table_shows_every_id_as_one_by_one(shape: str, steps: int) -> None:
    rnd = random.Random(f"{shape}{steps}")
    ids = column(shape, 400, rnd)
    bulk, ref = IdTable(), OneByOne()
    size = -(-len(ids) // steps)
    for at in range(0, len(ids), size):
        bulk.extend(ids[at : at + size])
        ref.extend(ids[at : at + size])
        assert bulk._keys == ref._keys
    probes = [*ids, "c00000001", "nope", None]
    assert [bulk.shown(c) for c in probes] == [ref.shown(c) for c in probes]
    assert bulk.rows == ref.rows == len(ids)
    assert all(len(bulk.shown(c)) >= min(MIN_SHOWN, len(plain(c))) for c in ids if c)
