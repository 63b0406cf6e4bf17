"""The redaction rules: one table of secret patterns for the recorder, re-runs and lint.

Each :class:`Rule` is a plain regex whose match is replaced by :data:`REPLACEMENT` (its ``keep``
group, such as ``password=``, stays in front so a reader still knows what was there), plus the
shapes a cap may leave of it at a window's edge and the words every match contains. Applying them
is :mod:`tracetui.record.redact`; ``docs/recording.md`` lists the rules for users.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tracetui.model.marks import SECRET_HINTS

REPLACEMENT = "[REDACTED]"

ARG_SEP = "\x00"
"""Joins neighbouring argv items when they are redacted together. No argv item can hold a NUL
(execve cannot pass one), so it never occurs inside an item; only the flag rule accepts it as
the gap between a flag and its value (``--password``, ``hunter2``)."""


@dataclass(frozen=True, slots=True)
class Rule:
    """One redaction pattern."""

    name: str
    """Short name reported by lint (``bearer``, ``aws-key``…)."""
    pattern: re.Pattern[str]
    """What to find. Group ``keep``, when present, is kept in front of the replacement."""
    partial_end: re.Pattern[str] | None = None
    """A visible start of this secret at the end of a window cut there; None: no such shape."""
    partial_start: re.Pattern[str] | None = None
    """A visible end of this secret at the start of a window cut there; None: no such shape."""
    closing: re.Pattern[str] | None = None
    """What ends this secret when a stream holds it open too long (a key block's END line);
    None: such a match is cut through (see :class:`~tracetui.record.redact_stream.StreamRedactor`)."""
    hints: tuple[str, ...] = ()
    """Case-folded words one of which every match contains (``bearer`` for ``Bearer …``; the
    default rules take theirs from :data:`tracetui.model.marks.SECRET_HINTS`, the one list, which
    lint's secret mark reads too): a
    text holding none of them is not searched. A case-insensitive keyword gives the regex engine
    no literal to scan for, so a rule costs ~5 ms per 256 KiB; a whole output (kept streams)
    mostly holds none of the words. Empty: always searched (a user's ``--redact`` pattern).
    Every default rule has them: looked for in one pass (:mod:`tracetui.record._hints`), they
    cost less than a single search."""
    hint_offset: int | None = None
    """Every match begins this many characters before one of its hint words (0: at the word):
    in an ASCII text the rule is then tried only there, not searched for along the whole text
    (a keyword rule run over 256 KiB of a log holding its word costs ~5 ms; tried at the word,
    microseconds). None: a match may begin anywhere."""


def make_rule(
    name: str,
    regex: str,
    flags: int = 0,
    *,
    end: str = "",
    start: str = "",
    closing: str = "",
    hints: tuple[str, ...] = (),
    hint_offset: int | None = None,
) -> Rule:
    """A :class:`Rule` from regex source: ``end``/``start``/``closing`` empty mean none."""
    return Rule(
        name,
        re.compile(regex, flags),
        re.compile(end) if end else None,
        re.compile(start) if start else None,
        re.compile(closing) if closing else None,
        hints,
        hint_offset,
    )


# Building blocks of the keyword rules (`password=…`, `"api_key": "…"`, `--password …`).
_FRESH = r"(?!\[REDACTED\])"  # never match our own replacement: redacting twice changes nothing
_BARE_CHAR = r"[^\s\x00\"'&,;]"
_QUOTED = r"(?:(?!(?P=q))(?:\\.|[^\\\n]))+"  # up to the opening quote's twin, escapes skipped
# `null`, `true`, `****`…: a setting or a mask, nothing to hide (`{"password": null}`,
# `f(pwd=None)`).
_UNSET = r"(?!(?:null|None|true|false|True|False|\*+)(?![^\s\x00\"'&,;)\]}]))"
_SEP = (
    r"\\?[\"']?[ \t]*(?:=>|[=:](?!>))[ \t]*(?P<q>\\?[\"'])?"  # `=`, `: `, `": "`, `\": \"`, ` => '`
)


def _value(bare: str = _BARE_CHAR + "+", quoted: str = _QUOTED) -> str:
    """The value after a keyword: quoted (``q`` matched) up to its closing quote, or bare."""
    return rf"(?(q){_FRESH}{quoted}|(?!\\?[\"']){_FRESH}{_UNSET}{bare})"


def _alone(width: int, chars: str = "A-Za-z0-9_") -> str:
    """After a literal of ``width`` characters: it does not follow one of ``chars`` (a word
    start). Written after the literal, not before it, so the regex engine can scan for the
    literal, which is many times faster than testing a look-behind at every position."""
    return rf"(?<![{chars}].{{{width}}})"


_PASSWORD_WORD = (
    r"(?i:p(?:assw(?:or)?d|assphrase"
    r"|wd(?:" + _alone(3, "A-Za-z0-9") + r"(?-i:(?<!PWD))"  # `pwd=`, not the shell's `PWD=/home/me`
    r"|(?<=[A-Za-z0-9][_.-]...))))"  # `DB_PWD=` (`OLDPWD=` is the shell's too)
)
_TOKEN_CHARS = r"[A-Za-z0-9_\-+/=.~]"
_TOKENISH = rf"(?={_TOKEN_CHARS}*[0-9]){_TOKEN_CHARS}{{8,}}"
"""A generated secret: 8+ token characters with a digit (so `unexpected token: IDENT` and
`token = make_token(x)` in source code stay readable)."""

_KEY_KIND = r"(?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?"

# The partial shapes (`end=`, `start=`) are what is still recognisable when a cap cuts the secret
# and no withheld context is at hand: a key-id prefix, a token prefix, a key block's last lines.
# Every rule starts with a literal where it can (see _alone).
DEFAULT_RULES: tuple[Rule, ...] = (
    make_rule(
        "private-key",
        rf"-----BEGIN {_KEY_KIND}-----"
        # An unterminated block hides the rest, up to an argv item's end (ARG_SEP).
        rf"(?:.*?-----END {_KEY_KIND}-----|[^\x00]*\Z)",
        re.S,
        start=rf"\A[A-Za-z0-9+/=\s]*-----END {_KEY_KIND}-----",
        closing=rf"-----END {_KEY_KIND}-----",
        hints=SECRET_HINTS["private-key"],
    ),
    make_rule(
        "bearer",
        rf"(?P<keep>(?i:bearer){_alone(6)}\s+)[A-Za-z0-9\-._~+/]{{8,}}=*",
        end=r"(?P<keep>\b(?i:bearer)\s+)[A-Za-z0-9\-._~+/]+=*\Z",
        hints=SECRET_HINTS["bearer"],
        hint_offset=0,
    ),
    make_rule(
        "basic-auth",
        r"(?P<keep>(?i:authorization)\\?[\"']?[ \t]*[:=][ \t]*\\?[\"']?(?i:basic)[ \t]+)"
        r"[A-Za-z0-9+/]{4,}={0,2}",
        hints=SECRET_HINTS["basic-auth"],
        hint_offset=0,
    ),
    # Keywords end the key's name (`DB_PASSWORD=`, `MYSQL_ROOT_PASSWORD:`) whatever comes
    # before them; `password_hint=` ends in another word and is left alone.
    make_rule(
        "password",
        rf"(?P<keep>{_PASSWORD_WORD}(?i:[_-]?confirm(?:ation)?)?{_SEP}){_value()}",
        hints=SECRET_HINTS["password"],
        hint_offset=0,
    ),
    make_rule(
        "api-key",
        rf"(?P<keep>(?i:api[_-]?key){_SEP}){_value()}",
        hints=SECRET_HINTS["api-key"],
        hint_offset=0,
    ),
    # `--password hunter2`, `--db-password=…`, `--api-key …`, `--token …`; in an argv the flag and
    # its value are two items, joined by ARG_SEP. A value that starts with `-` is the next flag.
    make_rule(
        "secret-flag",
        r"(?P<keep>-(?<![\w-]-)-?(?:[A-Za-z0-9]+[-_])*"
        r"(?i:passw(?:or)?d|passphrase|api[-_]?key|token|secret)(?:[ \t]+|=|\x00)(?P<q>[\"'])?)"
        + _value(r"(?!-)" + _BARE_CHAR + "+"),
        hints=SECRET_HINTS["secret-flag"],
    ),
    # `GITHUB_TOKEN=…`, `client_secret: …`, `"SecretAccessKey": "…"`: generated values only.
    # Two regexes, one name: each starts with its own literal (see _alone), twice as fast.
    *(
        make_rule(
            "secret-key",
            rf"(?P<keep>{word}{_SEP})"
            + _value(rf"{_TOKENISH}(?!{_TOKEN_CHARS}|[(\[])", rf"{_TOKENISH}(?=(?P=q))"),
            hints=(hint,),
            hint_offset=0,
        )
        for word, hint in zip(
            (r"(?i:secret(?:[_-]?(?:access[_-]?)?key)?)", r"(?i:token)"),
            SECRET_HINTS["secret-key"],  # ("secret", "token"): one word to each regex
            strict=True,
        )
    ),
    # `SecretAccessKey   wJalr…` (a table, prose): exactly 40 base64 characters after the name.
    make_rule(
        "aws-secret",
        r"(?P<keep>(?i:secret[_-]?(?:access[_-]?)?key)\\?[\"']?[ \t]*(?:(?:=>|[=:])[ \t]*)?"
        r"\\?[\"']?)(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
        hints=SECRET_HINTS["aws-secret"],
        hint_offset=0,
    ),
    make_rule(
        "url-credentials",
        r"(?P<keep>://(?<=[A-Za-z0-9+.-]://)[^\s\x00/?#@:]*:)(?!\[REDACTED\]@)[^\s\x00/?#]+(?=@)",
        hints=SECRET_HINTS["url-credentials"],
    ),
    make_rule(
        "aws-key",
        rf"A[KS]IA{_alone(4)}[0-9A-Z]{{16}}\b",
        end=r"\b(?:AKIA|ASIA)[0-9A-Z]{0,16}\Z",
        hints=SECRET_HINTS["aws-key"],
    ),
    make_rule(
        "slack-token",
        rf"xox[abposr]-{_alone(5)}[0-9A-Za-z-]{{10,}}",
        end=r"\bxox[abposr]-[0-9A-Za-z-]*\Z",
        hints=SECRET_HINTS["slack-token"],
    ),
    make_rule(
        "github-token",
        r"g(?<![A-Za-z0-9]g)(?:h[pousr]_[A-Za-z0-9]{36,}|ithub_pat_[A-Za-z0-9_]{22,})",
        end=r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]*|github_pat_[A-Za-z0-9_]*)\Z",
        hints=SECRET_HINTS["github-token"],
    ),
    # OpenAI (`sk-…`, `sk-proj-…`) and Anthropic (`sk-ant-…`) keys: random, so they hold a digit;
    # `risk-free` and `sk-some-branch-name` do not match.
    make_rule(
        "sk-key",
        rf"sk-{_alone(3, 'A-Za-z0-9_-')}(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{{20,}}",
        end=r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]*\Z",
        hints=SECRET_HINTS["sk-key"],
    ),
    make_rule(
        "stripe-key",
        rf"[sr]k_{_alone(3, 'A-Za-z0-9')}(?:live|test)_[A-Za-z0-9]{{16,}}",
        end=r"(?<![A-Za-z0-9])[sr]k_(?:live|test)_[A-Za-z0-9]*\Z",
        hints=SECRET_HINTS["stripe-key"],
        hint_offset=1,
    ),
    make_rule(
        "jwt",
        rf"eyJ{_alone(3, 'A-Za-z0-9_-')}[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]{{8,}}\.[A-Za-z0-9_-]*",
        end=r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]*)?\Z",
        hints=SECRET_HINTS["jwt"],
    ),
)
