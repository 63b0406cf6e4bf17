"""The C scanner's word searches, word by word and place by place, against a plain model of them.

The scanner looks for the marker hints (``markers._HINTS``, which send a preview's line to
Python) and the secret words (``marks.secret_words()``, behind the SECRET mark) without reading
every byte (tracetui/store/_scan_words.h: a walk over every few byte pairs, each seen pair
naming the one start to check exactly). Whatever the walk, the answer must be the plain one:

- a hint: one of the words in the string as written (between its quotes, escapes and all), or a
  ``\\u00XX`` escape of a byte some hint word holds;
- a secret: what ``marks.line_may_hold_secret`` says of the value as written.

Each word goes at every offset 0..40 of a text, before texts ending at the 16- and 32-byte
edges, in every case, escaped, in keys rather than values, and beside bytes that are not UTF-8;
and every line also goes through the whole index on both paths (``TRACETUI_NO_C``), which must
agree. ``TRACETUI_SCAN_BASELINE`` (a path to another build of ``_scan``, e.g. the one before a
change) adds a comparison with it on the same lines.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import random
from array import array
from pathlib import Path
from typing import Any

import pytest
from test_scan import both

from tracetui.model import markers, marks
from tracetui.store import fastindex

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="no C scanner")

SCAN: Any = getattr(fastindex, "_scan", None)
HINTS = [h.encode() for h in markers._HINTS]
SECRETS = [w.decode() for w in marks.secret_words()]
HINT_BYTES = {b for h in HINTS for b in h if b < 128}
FILLER = "lorem ipsum, dolor sit amet; consectetur adipiscing elit sed do eiusmod"
HINT_FIELDS = ["preview_stdout", "preview_stderr", "stdout_tail", "stderr_tail"]
"""Where a hint counts: a tracetui/1 preview, or the tail of a line in the feedback dialect."""
SECRET_FIELDS = ["tool_name", "agent_note", "error", "preview_stdout", "stdout_tail"]
SUFFIXES = [0, 1, 2, 15, 16, 17, 31, 32, 33]
"""Text after the word: the text then ends on, just before or just past a 16- or 32-byte edge."""

BASE = (
    '{"schema":"tracetui/1","span_type":"tool","command_id":"c1","exit_code":0,'
    '"stdout_bytes":5,"stdout_cap":100000,"stdout_truncated":false,'
    '"stderr_bytes":0,"stderr_cap":100000,"stderr_truncated":false,'
)
FEEDBACK = '{"command":["make"],"exit_code":0,'
"""A line of the feedback dialect, whose tails (not previews) carry its markers."""


def _line(fields: str, base: str = BASE) -> bytes:
    return (base + fields + "}\n").encode()


def _base(field: str) -> str:
    return FEEDBACK if field.endswith("_tail") else BASE


def _escapes(content: bytes) -> tuple[bool, bool]:
    """(a ``\\u00XX`` escape spells a byte of some hint word, a ``\\uD800``-``\\uDFFF`` escape
    is there) of a string's content as written: the first sends a preview to Python, the second
    any line (only Python judges surrogates)."""
    letter = surrogate = False
    i = 0
    while i < len(content):
        if content[i : i + 1] != b"\\":
            i += 1
            continue
        if content[i + 1 : i + 2] == b"u":
            code = int(content[i + 2 : i + 6], 16)
            letter |= code < 128 and code in HINT_BYTES
            surrogate |= 0xD800 <= code <= 0xDFFF
            i += 6
        else:
            i += 2
    return letter, surrogate


def _expected_hint(raw: bytes) -> bool:
    content = raw[1:-1]
    return _escapes(content)[0] or any(h in content for h in HINTS)


def _scan_rows(lines: list[bytes], scanner: Any = None) -> list[tuple[int, bool]]:
    """(SECRET bit, slow) of each line, scanned as one buffer."""
    res = (scanner or SCAN).scan(b"".join(lines), 0, 1)
    slow = set(array("i", res[8]))
    return [(res[16][i] & marks.SECRET, i in slow) for i in range(len(lines))]


def _variants(word: str) -> list[str]:
    return sorted({word, word.upper(), word.title(), word.swapcase(), word[:1].upper() + word[1:]})


def _placed(word: str) -> list[str]:
    """The word at every offset 0..40, then before each suffix length."""
    texts = [FILLER[:a] + word + FILLER[:3] for a in range(41)]
    texts += [FILLER[:5] + word + FILLER[:b] for b in SUFFIXES]
    texts += [FILLER[:a] + word for a in (0, 15, 16, 17, 31, 32)]
    return texts


def _hint_lines() -> list[tuple[bytes, bool, bool | None]]:
    """(line, slow, SECRET bit or None for "whatever a slow row gets") for hint words."""
    out: list[tuple[bytes, bool, bool | None]] = []
    for hint in markers._HINTS:
        for field in HINT_FIELDS:
            for text in [*_placed(hint), hint[:-1], hint[1:], hint[:-1] + " " + hint[-1]]:
                raw = json.dumps(text, ensure_ascii=False).encode()
                slow = _expected_hint(raw)
                out.append((_line(f'"{field}":' + raw.decode(), _base(field)), slow, None))
    return out


def _secret_lines() -> list[tuple[bytes, bool, bool | None]]:
    out: list[tuple[bytes, bool, bool | None]] = []
    for word in SECRETS:
        for variant in _variants(word):
            for field in SECRET_FIELDS:
                for text in [*_placed(variant), variant[:-1], variant[1:]]:
                    raw = json.dumps(text, ensure_ascii=False).encode()
                    if field in HINT_FIELDS and _expected_hint(raw):
                        continue  # a slow row: its marks are every mark
                    secret = marks.line_may_hold_secret(raw)
                    out.append((_line(f'"{field}":' + raw.decode(), _base(field)), False, secret))
    return out


# Hand-picked places: (id, the fields added to the base line, slow, SECRET bit or None).
CASES: list[tuple[str, str, bool, bool | None]] = [
    ("hint-in-key", '"truncated_preview":"x"', False, False),
    ("secret-in-key", '"api_key":"x","token":"y"', False, False),
    ("hint-in-untracked-value", '"note":"truncated"', False, False),
    ("secret-in-untracked-value", '"note":"password"', False, False),
    ("hint-u-escaped-letter", '"preview_stdout":"tr\\u0075ncated"', True, None),
    ("hint-u-escaped-space", '"preview_stdout":"too\\u0020long"', True, None),
    ("u-escape-of-non-hint-byte", '"preview_stdout":"\\u007a"', False, True),
    ("hint-escaped-quote-before", '"preview_stdout":"\\"truncated\\""', True, None),
    ("hint-escaped-backslash-t", '"preview_stdout":"\\\\too long"', True, None),
    ("hint-tab-escape-hides-t", '"preview_stdout":"\\too long"', True, None),
    ("hint-split-by-newline", '"preview_stdout":"too\\nlong"', False, False),
    ("secret-escaped-slash", '"tool_name":"https:\\/\\/x"', False, True),
    ("secret-escaped-newline-inside", '"tool_name":"pass\\nword"', False, False),
    ("secret-in-argv-array", '"argv":["ls","--api-key=1"]', False, True),
    ("secret-argv-element-edge", '"argv":["' + "x" * 29 + '","Bearer"]', False, True),
    ("secret-in-command", '"command":["echo","' + "y" * 40 + 'SECRET"]', False, True),
    ("no-secret-anywhere", '"tool_name":"' + FILLER + '"', False, False),
    ("secret-at-string-start", '"agent_note":"token' + "z" * 40 + '"', False, True),
    ("secret-at-string-end", '"agent_note":"' + "z" * 40 + 'xox"', False, True),
    ("secret-after-e-acute", '"error":"é://"', False, True),
    ("secret-after-emoji", '"error":"😀😀😀😀😀😀😀😀sk-"', False, True),
    ("speller-dotless-i", '"error":"\u0131"', False, True),
    ("hint-after-multibyte", '"preview_stdout":"ééééééééééééééé too long"', True, None),
]
BAD_BYTES = [
    ("hint-after-invalid-utf8", b'"preview_stdout":"\xff truncated"'),
    ("secret-after-invalid-utf8", b'"tool_name":"\xc3 password"'),
    ("secret-before-lone-continuation", b'"tool_name":"password \x80"'),
    ("hint-before-overlong", b'"preview_stdout":"truncated \xc0\xaf"'),
    ("secret-beside-surrogate-bytes", b'"error":"\xed\xa0\x80token"'),
]


@pytest.mark.parametrize(("name", "fields", "slow", "secret"), CASES, ids=[c[0] for c in CASES])
def test_hand_picked_places(name: str, fields: str, slow: bool, secret: bool | None) -> None:
    [(got_secret, got_slow)] = _scan_rows([_line(fields)])
    assert got_slow == slow, name
    if secret is not None:
        assert bool(got_secret) == secret, name


@pytest.mark.parametrize(("name", "fields"), BAD_BYTES, ids=[c[0] for c in BAD_BYTES])
def test_words_beside_bad_utf8_go_to_python(name: str, fields: bytes) -> None:
    line = BASE.encode() + fields + b"}\n"
    [(got_secret, got_slow)] = _scan_rows([line])
    assert got_slow and got_secret, name  # a bad line is Python's, marked every mark


GROUPS = [("hint-words", _hint_lines), ("secret-words", _secret_lines)]


@pytest.mark.parametrize("make", [g[1] for g in GROUPS], ids=[g[0] for g in GROUPS])
def test_every_place_matches_the_plain_search(make: Any) -> None:
    cases = make()
    got = _scan_rows([c[0] for c in cases])
    for (line, slow, secret), (got_secret, got_slow) in zip(cases, got, strict=True):
        assert got_slow == slow, line
        if secret is not None:
            assert bool(got_secret) == secret, line


def _random_lines(n: int) -> list[bytes]:
    """Lines whose texts mix filler, words in any case, escapes and non-ASCII letters."""
    rng = random.Random(18)
    pieces = [
        *SECRETS,
        *markers._HINTS,
        *(w.upper() for w in SECRETS),
        FILLER,
        " ",
        "é",
        "\u0131",
        "😀",
        "\n",
        '"',
        "\\",
        "/",
        "\u2126",
    ]
    out = []
    for i in range(n):
        base = FEEDBACK if i % 4 == 0 else BASE
        shown = ["stdout_tail", "stderr_tail"] if base == FEEDBACK else HINT_FIELDS[:2]
        fields = [*shown, "tool_name", "agent_note", "error"]
        parts = {}
        for field in rng.sample(fields, rng.randint(1, 3)):
            text = "".join(
                rng.choice(pieces)[: rng.randint(1, 40)] for _ in range(rng.randint(1, 9))
            )
            parts[field] = text
        body = json.dumps(parts, ensure_ascii=rng.random() < 0.2, separators=(",", ":"))[1:-1]
        out.append(_line(body, base))
    return out


def test_random_texts_match_the_plain_search() -> None:
    lines = _random_lines(4000)
    for line, (got_secret, got_slow) in zip(lines, _scan_rows(lines), strict=True):
        texts = ("tool_name", "agent_note", "error", *HINT_FIELDS)
        raws = {k: _raw_value(line, k) for k in texts if f'"{k}":'.encode() in line}
        slow = any(_expected_hint(raws[k]) for k in HINT_FIELDS if k in raws)
        slow |= any(_escapes(raw[1:-1])[1] for raw in raws.values())
        assert got_slow == slow, line
        if not slow:
            secret = any(marks.line_may_hold_secret(raw) for raw in raws.values())
            assert bool(got_secret) == secret, line


def _raw_value(line: bytes, key: str) -> bytes:
    """The string value of ``key`` as written in the line (our lines hold each key once)."""
    start = line.index(b'"' + key.encode() + b'":') + len(key) + 3
    i = start + 1
    while line[i : i + 1] != b'"':
        i += 2 if line[i : i + 1] == b"\\" else 1
    return line[start : i + 1]


def test_both_paths_build_the_same_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [c[0] for c in _hint_lines()[::7]] + [c[0] for c in _secret_lines()[::29]]
    lines += _random_lines(600)
    (tmp_path / "B.jsonl").write_bytes(b"".join(lines))
    fast, slow = both(str(tmp_path / "B.jsonl"), monkeypatch)
    for key in slow:
        assert fast[key] == slow[key], key


def _baseline() -> Any:
    path = os.environ.get("TRACETUI_SCAN_BASELINE", "")
    if not path or not os.path.exists(path):
        return None
    # The init function is named after the last part of the name: keep it ``_scan``.
    loader = importlib.machinery.ExtensionFileLoader("tracetui_scan_baseline._scan", path)
    spec = importlib.util.spec_from_file_location(loader.name, path, loader=loader)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    mod.set_hints(HINTS)
    mod.set_secret_hints(marks.secret_words())
    return mod


def test_same_answers_as_a_baseline_build() -> None:
    old = _baseline()
    if old is None:
        pytest.skip("TRACETUI_SCAN_BASELINE names no baseline build of _scan")
    lines = [c[0] for c in _hint_lines()] + [c[0] for c in _secret_lines()]
    lines += _random_lines(4000)
    data = b"".join(lines)
    assert SCAN.scan(data, 0, 1) == old.scan(data, 0, 1)
