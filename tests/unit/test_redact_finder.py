"""The one-pass hint finder (record/_hints.c) reports exactly the words a text holds, and the
redactor finds the same secrets with it as with its pure-Python word search."""

from __future__ import annotations

import random

import pytest
from secret_shapes import NEAR_MISSES, SHAPES

from tracetui.record import redact
from tracetui.record.redact import Redactor
from tracetui.record.redact_rules import DEFAULT_RULES, Rule
from tracetui.record.redact_stream import StreamRedactor

_hints = pytest.importorskip("tracetui.record._hints")

WORDS = list(redact._WORD_BITS)


def python_bits(text: str) -> int:
    low = text.lower()
    return sum(bit for word, bit in redact._WORD_BITS.items() if word in low)


FOUND_CASES = [
    ("empty", "", 0),
    ("one-byte", "p", 0),
    ("prefix-only", "pas", 0),
    ("word-at-end", "xx PASSW", redact._WORD_BITS["passw"]),
    ("mixed-case", "Bearer eYj", redact._WORD_BITS["bearer"] | redact._WORD_BITS["eyj"]),
    ("punctuation", "a://b", redact._WORD_BITS["://"]),
    ("non-ascii-is-none", "é password", None),
    ("long-s-is-none", "pa\u017fsword", None),
]


@pytest.mark.parametrize(
    ("text", "want"), [c[1:] for c in FOUND_CASES], ids=[c[0] for c in FOUND_CASES]
)
def test_found_cases(text: str, want: int | None) -> None:
    assert _hints.found(text) == want


def test_found_equals_python_on_random_ascii() -> None:
    rng = random.Random(15)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-:/ .\n"
    for _ in range(2000):
        parts = [
            rng.choice(WORDS) if rng.random() < 0.3 else "".join(rng.choices(alphabet, k=5))
            for _ in range(rng.randrange(0, 8))
        ]
        text = "".join(p.upper() if rng.random() < 0.3 else p for p in parts)
        assert _hints.found(text) == python_bits(text), text


def test_every_default_rule_is_looked_for_by_the_finder() -> None:
    assert all(r.hints for r in DEFAULT_RULES)
    assert all(redact._mask(r.hints) for r in DEFAULT_RULES)


def _texts() -> list[str]:
    base = [case[1] for case in SHAPES] + [case[1] for case in NEAR_MISSES]
    rng = random.Random(7)
    mixed = []
    for n in range(200):
        lines = rng.sample(base, 5) + [f"INFO request handled id={n}"] * 3
        mixed.append("\n".join(rng.sample(lines, len(lines))))
    return base + mixed


def test_same_spans_with_and_without_the_finder(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts()
    with_c = [Redactor().spans(t) for t in texts]
    monkeypatch.setattr(redact, "_found", None)
    assert [Redactor().spans(t) for t in texts] == with_c


def test_same_stream_with_and_without_the_finder(monkeypatch: pytest.MonkeyPatch) -> None:
    data = "\n".join(_texts()).encode()

    def kept(chunk: int) -> bytes:
        s = StreamRedactor(Redactor(), hold=64)
        out = [s.feed(data[i : i + chunk]) for i in range(0, len(data), chunk)]
        return b"".join(out) + s.finish()

    with_c = kept(997)
    assert with_c == Redactor().redact_bytes(data)[0]
    monkeypatch.setattr(redact, "_found", None)
    assert kept(997) == with_c


KEEP_CASES = [
    ("basic-auth", "Authorization: Basic dXNlcjpwYXNzd29yZA=="),
    ("password", "DB_PASSWORD=hunter2x"),
    ("bearer", "Bearer abcdefgh12345678"),
    ("api-key", '"api_key": "abc123def456"'),
    ("url-credentials", "postgres://billing:s3cret@db:5432"),  # a look-behind before `://`
    ("aws-key", "AKIAIOSFODNN7EXAMPLE"),
]


@pytest.mark.parametrize("secret", [c[1] for c in KEEP_CASES], ids=[c[0] for c in KEEP_CASES])
def test_stream_never_emits_the_kept_prefix_of_a_match_alone(secret: str) -> None:
    """The point up to which the stream redactor emits may fall inside the part of a match it
    keeps (``Authorization: Ba|sic …``) or just before one whose look-behind reads the text
    there (``postgres|://``): the whole match must still be seen, as in the whole output."""
    data = ("x" * 50 + " " + secret + " " + "y" * 50).encode()
    whole = Redactor().redact_bytes(data)[0]
    assert b"[REDACTED]" in whole
    for hold in (len(secret) + 1, 2 * len(secret), 64):
        for chunk in (1, 3, 7, 64):
            s = StreamRedactor(Redactor(), hold=hold)
            out = b"".join(s.feed(data[i : i + chunk]) for i in range(0, len(data), chunk))
            assert out + s.finish() == whole, (hold, chunk)


OFFSET_RULES = [r for r in DEFAULT_RULES if r.hint_offset is not None]


@pytest.mark.parametrize("rule", OFFSET_RULES, ids=[f"{r.name}-{r.hints[0]}" for r in OFFSET_RULES])
def test_a_rule_tried_at_its_words_finds_what_its_search_finds(rule: Rule) -> None:
    """hint_offset claims every match begins that far before one of the rule's words: trying
    the rule only there gives exactly the matches of searching the whole text."""
    texts = [t for t in _texts() if t.isascii()]
    texts += [t.upper() for t in texts] + [" ".join(texts)]
    for text in texts:
        for pos in (0, 5):
            want = [(m.start(), m.end()) for m in rule.pattern.finditer(text, pos)]
            tried = redact._at_words(rule, text, text.lower(), pos, {})
            assert [(m.start(), m.end()) for m in tried] == want, text
