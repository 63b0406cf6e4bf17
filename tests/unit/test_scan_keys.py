"""The C scanner knows its keys exactly: each of them, and nothing one byte away from one.

The scanner finds a top-level key among the ones it keeps by one probe of a hash table over
the key's first and last eight bytes and its length (``key_index`` in
tracetui/store/_scan_json.h), a short key read in one load where eight bytes are there. These
tests put every key it keeps, and every key one byte away from one (a byte changed at each
place, one dropped or added at either end), into a line, with a value that changes the line's
verdict when the key is taken for one of ours: the known key must change it, the near one not.
A key ending near the end of its line takes the byte-wise road (fewer than eight bytes left).
"""

from __future__ import annotations

from typing import Any

import pytest

from tracetui.store import fastindex

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="no C scanner")

SCAN: Any = getattr(fastindex, "_scan", None)

KEYS = [
    "schema", "span_type", "exit_code", "returncode", "command_id", "parent_command_id", "argv",
    "command", "stdout_tail", "stderr_tail", "stdout_bytes", "stdout_cap", "stdout_truncated",
    "preview_stdout", "stdout_head_bytes", "stdout_tail_bytes", "stderr_bytes", "stderr_cap",
    "stderr_truncated", "preview_stderr", "stderr_head_bytes", "stderr_tail_bytes", "error",
    "tool_name", "cwd", "started_at", "agent_note", "encoding", "duration_ms", "ok_preview",
    "redacted", "stdout_clip", "stdout_sha256", "stdout_full_sha256", "stdout_head_sha256",
    "stdout_tail_sha256", "stdout_items", "preview_stdout_items", "stderr_clip", "stderr_sha256",
    "stderr_full_sha256", "stderr_head_sha256", "stderr_tail_sha256", "stderr_items",
    "preview_stderr_items", "stdout_kept", "stderr_kept",
]  # fmt: skip
"""The keys the scanner keeps (KEY_NAMES in tracetui/store/_scan.c)."""

BASE = (
    '{"schema":"tracetui/1","span_type":"tool","command_id":"c1","exit_code":0,'
    '"stdout_bytes":5,"stdout_cap":100000,"stdout_truncated":false,'
    '"stderr_bytes":0,"stderr_cap":100000,"stderr_truncated":false'
)
ODD = '{"a":[1]}'
"""A value no key of ours takes as it is: an object where a string, number or flag belongs."""
TELLING = {"schema": '"import/x"', "span_type": '"t\\u006fol"'}
"""Where an object is not telling: an importer's schema (a mark of its own), an escaped span
type (only Python reads it)."""


def _verdict(extra: str) -> tuple[Any, ...]:
    """Everything the scanner says of the base line with ``extra`` fields appended."""
    res = SCAN.scan((BASE + extra + "}\n").encode(), 0, 1)
    return (res[4], res[5], res[6], res[7], res[8], res[9], res[10], res[16])


def _near(key: str) -> list[str]:
    """Keys one byte away from ``key`` (none of them a key of ours)."""
    out = {key[:-1], key[1:], key + "x", "x" + key}
    for i, ch in enumerate(key):
        for sub in ("q" if ch != "q" else "z", ch.upper()):
            out.add(key[:i] + sub + key[i + 1 :])
    return sorted(k for k in out if k and k not in KEYS)


def test_every_key_of_ours_changes_the_verdict() -> None:
    base = _verdict("")
    for key in KEYS:
        assert _verdict(f',"{key}":{TELLING.get(key, ODD)}') != base, key


@pytest.mark.parametrize("key", KEYS)
def test_keys_one_byte_away_are_not_ours(key: str) -> None:
    base = _verdict("")
    for near in _near(key):
        for value in (ODD, "0", '"x"', TELLING.get(key, "null")):
            assert _verdict(f',"{near}":{value}') == base, (near, value)


SHORT = [
    ("one", "x"),
    ("two", "ab"),
    ("cwd-near", "cwe"),
    ("cwd-short", "cw"),
    ("seven", "abcdefg"),
]


@pytest.mark.parametrize(("name", "key"), SHORT, ids=[s[0] for s in SHORT])
def test_a_short_key_at_the_end_of_its_line(name: str, key: str) -> None:
    """Fewer than eight bytes from the key to the line's end: read byte by byte, same verdict."""
    assert _verdict(f',"{key}":0') == _verdict(f',"{key}":0,"zz":0') == _verdict(""), name


def test_a_known_short_key_at_the_end_of_its_line() -> None:
    assert _verdict(',"cwd":0') == _verdict(',"cwd":0,"zz":0') != _verdict(""), "cwd"
