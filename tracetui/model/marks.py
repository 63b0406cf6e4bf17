"""Row marks: which lint rules may need to read a row, as the C scanner saw it (one byte a row).

The index keeps them beside the row flags (``RunIndex.marks``). A mark says a rule *may* fire on
the row, never that it does: lint (:mod:`tracetui.analysis.lint`) parses in full only the rows
whose marks, flags or exit say a rule could fire, and ``summary``'s suspicion count reads only
the rows an incident rule could fire on. A row the scanner did not judge (the Python path, the
scanner's "slow" lines, re-runs, rows restored without marks) is marked :data:`ALL`: everything
is read. Defined here once; ``tracetui/store/_scan.c`` sets the same bits and a test checks that
its values equal these.
"""

from __future__ import annotations

SECRET = 1
"""A previewed text, the argv, the tool's name, the note or the error holds one of the
:data:`SECRET_HINTS` words (any case), or an escape or letter that could spell one once read:
TT015 may fire."""
CONTRACT = 2
"""A contract field may be broken: a tool span lacking a contract key (TT001), bytes over the
cap without the flag or the flag under the cap (TT002, TT003), a full hash on a flagged stream
(TT004), ``ok_preview`` true with a flag or without exit 0 (TT005, TT006), no exit and no error
(TT007), a preview longer as written than its cap or byte count (TT008, TT009), a marker word
in a preview flagged not cut (TT017)."""
TYPES = 4
"""A field the span reads holds a value of a kind it may note as a problem (TT014), a float or
a large number included."""
IMPORTED = 8
"""An ``import/`` record: the imported-format rules (TT023–TT025) judge it."""
NOTE = 16
"""The record carries an agent note (TT022 asks it when the row failed or was cut)."""
UNSIZED = 32
"""A stream cut (by its flag) without a byte count, and no marker stating its bytes: TT020
fires."""
HEAD_CUT = 64
"""On a row that exited nonzero with a code: a stream cut by its flag or byte counts kept its
head, as its own ``{s}_clip`` says, with no marker word in its preview (TT019 fires). Not set on
an imported record; a failed row whose cut preview may hold a marker is marked :data:`ALL`."""
SAYS_PASS = 128
"""On a row that exited nonzero with a code or was cut: its note predicts success (TT022 fires,
unless TT001 stops the record). Not set on an imported record; a note the scanner cannot read
makes the row :data:`ALL`. With HEAD_CUT these two are what ``summary``'s suspicion count reads
instead of the line (tracetui/analysis/suspicion_scan.py)."""
ALL = 255
"""Not judged by the scanner: every rule may need the row."""

FULL_READ = SECRET | CONTRACT | TYPES | IMPORTED | UNSIZED
"""Marks that send a row to lint's full reading."""

SECRET_HINTS: dict[str, tuple[str, ...]] = {
    "private-key": ("-----begin",),
    "bearer": ("bearer",),
    "basic-auth": ("authorization",),
    "password": ("passw", "passp", "pwd"),
    "api-key": ("apikey", "api_key", "api-key"),
    "secret-flag": ("passw", "passp", "apikey", "api_key", "api-key", "token", "secret"),
    "secret-key": ("secret", "token"),
    "aws-secret": ("secret",),
    "url-credentials": ("://",),
    "aws-key": ("akia", "asia"),
    "slack-token": ("xox",),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "sk-key": ("sk-",),
    "stripe-key": ("k_live_", "k_test_"),
    "jwt": ("eyj",),
}
"""Redaction rule name (the default rules of ``tracetui.record.redact.Redactor``) → the words,
lower case, one of which every match of the rule holds whatever its case. The one list: the
redaction rules take their ``hints`` from it (record/redact_rules.py). A rule not named here
makes lint give TT015 every row (it checks the names when it starts); tests/unit/test_lint_fast.py
holds each rule to its words."""


def secret_words() -> list[bytes]:
    """Every hint word once, for the scanner (``_scan.set_secret_hints``)."""
    words = dict.fromkeys(w for ws in SECRET_HINTS.values() for w in ws)
    return [w.encode() for w in words]


_SPELLERS = (b"\\u", b"\\/", b"\xc4\xb0", b"\xc4\xb1", b"\xc5\xbf", b"\xe2\x84")
"""What could spell a hint word once read: a ``\\u`` or ``\\/`` escape, or (as UTF-8) a letter
Python's case-insensitive match takes for an ASCII one: U+0130, U+0131, U+017F and U+212A
(the scanner, like this, takes all of U+2100–U+213F for the last)."""


_WORDS = secret_words()


def line_may_hold_secret(data: bytes) -> bool:
    """The SECRET mark of a whole raw line, for a row the scanner did not mark: the scanner's
    search, over every byte of the line rather than only the texts TT015 reads (so never less)."""
    if any(s in data for s in _SPELLERS):
        return True
    low = data.lower()  # ASCII letters only, as the scanner compares them
    return any(w in low for w in _WORDS)
