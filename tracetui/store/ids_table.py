"""The id table: the displayed form of every id of one run (the rule is described in
:mod:`tracetui.store.ids`, which keeps one table per index).

Speed: a run can have a million ids. The keys are sorted once; an id's abbreviation is found by
bisecting to its key and comparing with its two neighbours, so showing a screenful costs a few
``log n`` look-ups. New rows are merged in (Timsort on a sorted list plus a short tail is
linear); only a change of the shared prefix rebuilds.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Sequence
from itertools import islice, repeat
from operator import eq, itemgetter, sub
from typing import cast

from tracetui.model.text import neutralize_line

MIN_SHOWN = 4
"""Shortest abbreviation shown (shorter ids are shown whole)."""


def plain(cid: str) -> str:
    """The id as shown and matched: neutralised (printable ASCII is returned as is, quickly)."""
    return cid if cid.isascii() and cid.isprintable() else neutralize_line(cid)


def _stamp_suffix(text: str) -> str | None:
    """The random suffix of a recorder id (timestamp, ``-``, suffix), or None for other ids."""
    cut = text.rfind("-")
    if cut >= 8 and len(text) - cut > MIN_SHOWN and text[:8].isdigit():
        return text[cut + 1 :]
    return None


def _common_prefix(a: str, b: str) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def _common_suffix(texts: list[str]) -> str:
    """The longest ending every one of ``texts`` (at least one) shares: the common prefix of
    the first and last of them reversed, in sorted order."""
    if "" in texts:
        return ""
    if len(set(map(itemgetter(-1), texts))) > 1:
        return ""  # they do not even end with the same character (sequential ids)
    backwards: list[str] = list(map(itemgetter(slice(None, None, -1)), texts))
    low, high = min(backwards), max(backwards)
    n = _common_prefix(low, high)
    return low[:n][::-1]


def _split(fresh: list[str]) -> tuple[list[str], list[str]]:
    """``(keys of the recorder ids, plain forms of the others)`` of ``fresh`` ids.

    A million ids are one kind or the other all through: each check runs over all of them at C
    speed, and only a mix of kinds (or of texts to neutralise) goes id by id."""
    texts = fresh
    if not (all(map(str.isascii, texts)) and all(map(str.isprintable, texts))):
        texts = [plain(cid) for cid in fresh]
    if not texts or "-" not in "".join(texts):
        return [], list(texts)  # no '-': no recorder id
    cuts = list(map(str.rfind, texts, repeat("-")))
    if min(cuts) >= 8:
        after = list(map(sub, map(len, texts), cuts))  # the '-' and the suffix
        shortest = min(after)
        if (
            shortest > MIN_SHOWN
            and max(after) == shortest
            and all(map(str.isdigit, map(itemgetter(slice(0, 8)), texts)))
        ):
            # Every one a recorder id with a suffix of one length: one slice takes them all.
            return list(map(itemgetter(slice(1 - shortest, None)), texts)), []
    keys: list[str] = []
    others: list[str] = []
    for text in texts:
        suffix = _stamp_suffix(text)
        if suffix is not None:
            keys.append(suffix)
        else:
            others.append(text)
    return keys, others


class IdTable:
    """The displayed form of every id of one run (see the module docstring)."""

    def __init__(self, ids: Sequence[str | None] = ()) -> None:
        self.rows = 0
        """Rows taken in so far (the table is brought up to date from here)."""
        self._seen: dict[str, None] = {}
        self._stamp_keys: list[str] = []
        """Keys (random suffixes) of the recorder ids."""
        self._others: list[str] = []
        """Plain forms of the other ids (keyed after the shared prefix)."""
        self._low: str | None = None
        self._high: str | None = None
        self._shared = 0
        """Length of the prefix every id in ``_others`` shares."""
        self._ending: str | None = None
        self._tail = 0
        """Length of the ending every id in ``_others`` shares (0 while there is only one)."""
        self._keys: list[str] = []
        """Sorted keys, one per distinct id (equal keys of different ids stay side by side)."""
        self._distinct: tuple[tuple[int, int], bool] | None = None
        """:meth:`keys_distinct` for ``(rows, number of keys)``."""
        self.extend(ids)

    # ------------------------------------------------------------------ building
    def extend(self, ids: Sequence[str | None]) -> None:
        """Take in the ids of more rows (None and repeats of a known id count as rows only)."""
        self.rows += len(ids)
        raw = dict.fromkeys(ids)  # in row order: keys of sequential ids then sort in one pass
        raw.pop(None, None)
        raw.pop("", None)
        known = cast("dict[str, None]", raw)  # None is gone
        if self._seen:
            fresh = [cid for cid in known if cid not in self._seen]
            self._seen.update(dict.fromkeys(fresh))
        else:
            fresh = list(known)
            self._seen = known
        self._take(fresh)

    def _take(self, fresh: list[str]) -> None:
        """Add the keys of ``fresh`` ids (distinct, none of them known yet)."""
        new_keys, new_others = _split(fresh)
        self._stamp_keys.extend(new_keys)
        if new_others:
            self._others.extend(new_others)
            low, high = min(new_others), max(new_others)
            if self._low is not None and self._high is not None:
                low, high = min(low, self._low), max(high, self._high)
            self._low, self._high = low, high
            shared = _common_prefix(low, high)
            ending = _common_suffix(new_others + ([] if self._ending is None else [self._ending]))
            self._ending = ending
            tail = len(ending) if self._others_count() > 1 else 0
            if (shared, tail) != (self._shared, self._tail) or self._others_count() == len(
                new_others
            ):
                self._shared, self._tail = shared, tail
                self._rebuild()
                return
            new_keys.extend(self._keys_of_others(new_others))
        if len(new_keys) <= 64:  # a follower's few new rows: insert, no pass over every key
            for key in new_keys:
                insort(self._keys, key)
        else:
            self._keys.extend(new_keys)
            self._keys.sort()

    def _key_of_other(self, text: str) -> str:
        return _other_key(text, self._shared, self._tail)

    def _keys_of_others(self, texts: list[str]) -> list[str]:
        """:meth:`_key_of_other` of each of ``texts``: one slice for all when every one is long
        enough to keep what lies between the shared prefix and ending (at C speed)."""
        shared, tail = self._shared, self._tail
        if texts and min(map(len, texts)) >= shared + tail + MIN_SHOWN:
            return list(map(itemgetter(slice(shared, -tail if tail else None)), texts))
        return [self._key_of_other(t) for t in texts]

    def _rebuild(self) -> None:
        stamp_keys, others = self._parts()
        keys = list(stamp_keys)
        keys.extend(self._keys_of_others(others))
        keys.sort()
        self._keys = keys

    def _parts(self) -> tuple[list[str], list[str]]:
        """``(keys of the recorder ids, plain forms of the others)`` of every id taken in."""
        return self._stamp_keys, self._others

    def _others_count(self) -> int:
        return len(self._others)

    def _has(self, cid: str) -> bool:
        """Whether ``cid`` is the id of a row taken in."""
        return cid in self._seen

    # ------------------------------------------------------------------ reading
    def key(self, cid: str) -> str:
        """The distinguishing part of ``cid`` (its plain form, shortened)."""
        text = plain(cid)
        suffix = _stamp_suffix(text)
        return suffix if suffix is not None else self._key_of_other(text)

    def shown(self, cid: str | None) -> str:
        """The displayed form of ``cid``: ``-`` for no id, the id whole if its key is shared."""
        if not cid:
            return "-"
        text = plain(cid)
        if not self._has(cid):
            return text  # not of this run: nothing to abbreviate against
        key = self.key(cid)
        i = bisect_left(self._keys, key)  # the key itself: its neighbours are i - 1 and i + 1
        return _abbreviated(self._keys, key, i - 1, i + 1, text)

    def cell(self, cid: str | None, width: int = 8) -> str:
        """:meth:`shown` in at most ``width`` columns: a longer form is clipped with ``…``."""
        return _clip(self.shown(cid), width)

    def shown_new(self, cid: str | None) -> str:
        """The displayed form ``cid`` will have once it is a row of this run (it may not be one
        yet: a followed call still running). Without this a running row showed its id whole,
        then abbreviated when it completed. Exact unless its arrival moves the prefix or the
        ending the run's other ids share (then only the neighbours it is compared with differ)."""
        if not cid or self._has(cid):
            return self.shown(cid)
        text = plain(cid)
        key = _stamp_suffix(text)
        if key is None:  # an id of the other kind: keyed as the table will key it after extend
            low = text if self._low is None else min(self._low, text)
            high = text if self._high is None else max(self._high, text)
            ending = _common_suffix([text] + ([] if self._ending is None else [self._ending]))
            tail = len(ending) if self._others_count() else 0
            key = _other_key(text, _common_prefix(low, high), tail)
        i = bisect_left(self._keys, key)  # where the key would go: its neighbours i - 1 and i
        return _abbreviated(self._keys, key, i - 1, i, text)

    def cell_new(self, cid: str | None, width: int = 8) -> str:
        """:meth:`shown_new` in at most ``width`` columns."""
        return _clip(self.shown_new(cid), width)

    # ------------------------------------------------------------------ for resolving
    def keys_of(self, texts: list[str]) -> list[str]:
        """The key of each of ``texts`` (plain forms of ids of this table), in order: at C speed
        when they are all of one kind, as :meth:`_take` keys them."""
        stamp_keys, others = _split(texts)
        if not others:
            return stamp_keys
        if not stamp_keys:
            return self._keys_of_others(others)
        return [_stamp_suffix(t) or self._key_of_other(t) for t in texts]

    def shown_as_key(self, query: str) -> str | None:
        """With no ``…`` in any id and no id whose plain form is ``query``: None when no id is
        shown as ``query``, else a key every id shown so contains.

        An id shown as ``query`` has a key starting with it (its shown form is its key's start).
        When two keys or more start with ``query`` each is shown longer (its neighbour shares
        all of ``query``), unless it is ``query`` itself."""
        keys = self._keys
        lo = bisect_left(keys, query)
        if lo == len(keys) or not keys[lo].startswith(query):
            return None
        if keys[lo] == query or lo + 1 == len(keys) or not keys[lo + 1].startswith(query):
            return keys[lo]
        return None

    def keys_distinct(self) -> bool:
        """Whether no two ids share a key (each id's shown form is then its key's start, and
        their order is their keys' order)."""
        keys = self._keys
        if self._distinct is None or self._distinct[0] != (self.rows, len(keys)):
            distinct = not any(map(eq, keys, islice(keys, 1, None)))
            self._distinct = ((self.rows, len(keys)), distinct)
        return self._distinct[1]


def _abbreviated(keys: list[str], key: str, before: int, after: int, whole: str) -> str:
    """``key`` cut to the shortest start (at least :data:`MIN_SHOWN`) that tells it from the
    sorted ``keys`` at ``before`` and ``after`` (its neighbours); ``whole`` when the key after it
    is the same key (another id's: only the whole id tells them apart)."""
    if after < len(keys) and keys[after] == key:
        return whole
    need = MIN_SHOWN
    if before >= 0:
        need = max(need, _common_prefix(keys[before], key) + 1)
    if after < len(keys):
        need = max(need, _common_prefix(keys[after], key) + 1)
    return key[:need]


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _other_key(text: str, shared: int, tail: int) -> str:
    """The key of an id that is not a recorder id, given the run's shared prefix and ending."""
    n = len(text)
    start = min(shared, n)
    end = max(start, n - tail)
    if end - start < MIN_SHOWN:  # too little differs: take characters before it, then after
        start = max(0, end - MIN_SHOWN)
        end = min(n, start + MIN_SHOWN)
    return text[start:end]
