"""TT015 sees what redaction would catch: the recorder's patterns, in previews, argv, notes, errors.

One firing case and a quiet near-miss twin per shape the redactor learned in issue 13, each
with the exact finding; then the whole shape table: a raw secret fires, its redacted form is
quiet (the replacement is never a finding).
"""

from __future__ import annotations

from typing import Any

import pytest
from records import tool
from secret_shapes import AWS_SECRET, GH_BODY, JWT, NEAR_MISSES, OPENAI_PROJECT, SHAPES, R

from tracetui.analysis.lint import lint_index
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

FEED = {"stdout_tail": "", "stderr_tail": "", "exit_code": 0}


def findings(make_run: Any, rec: dict[str, Any]) -> list[tuple[str, str]]:
    root = make_run({"B.jsonl": [rec]})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    return [(i.code, i.message) for i in lint_index(ix)]


def in_preview(text: str) -> dict[str, Any]:
    return tool("a", preview_stdout=text, stdout_bytes=len(text.encode()))


# (rule, text that fires it alone, its near-miss twin)
PAIRS = [
    ("password", "DB_PASSWORD=hunter2", "password_hint=the dog"),
    ("password", '{"password": "correct horse"}', '{"password": null}'),
    ("api-key", "OPENAI_API_KEY=abc123", "api_key_id=42"),
    ("secret-flag", "mysql --password hunter2", "mysql --password-file /run/db"),
    ("secret-key", "GITHUB_TOKEN=abc123def456", "max_tokens=4096"),
    ("bearer", "Authorization: BEARER abcdefgh12345678", "the bearer of bad news"),
    ("basic-auth", "Authorization: Basic dXNlcjpwYXNz", 'WWW-Authenticate: Basic realm="x"'),
    ("url-credentials", "https://ann:hunter2@host/x", "https://host:8443/x"),
    ("aws-secret", f"SecretAccessKey {AWS_SECRET}", f"SecretAccessKey {AWS_SECRET[:39]}"),
    ("github-token", f"ghp_{GH_BODY}", "ghp_example"),
    ("sk-key", OPENAI_PROJECT, "a risk-free plan"),
    ("stripe-key", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "pk_live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("jwt", JWT, "eyJ"),
]
PAIR_IDS = [f"{p[0]}-{n}" for n, p in enumerate(PAIRS)]


@pytest.mark.parametrize(("rule", "text", "twin"), PAIRS, ids=PAIR_IDS)
def test_new_shape_fires_in_a_preview(make_run: Any, rule: str, text: str, twin: str) -> None:
    expected = [("TT015", f"preview_stdout holds secret-looking text ({rule})")]
    assert findings(make_run, in_preview(text)) == expected


@pytest.mark.parametrize(("rule", "text", "twin"), PAIRS, ids=PAIR_IDS)
def test_near_miss_twin_is_quiet(make_run: Any, rule: str, text: str, twin: str) -> None:
    assert findings(make_run, in_preview(twin)) == []


# (id, record, exact findings): the other fields the recorder redacts.
FIELDS = [
    (
        "argv-flag-and-value-apart",
        tool("a", argv=["mysql", "--password", "hunter2"]),
        [("TT015", "argv holds secret-looking text (secret-flag)")],
    ),
    ("argv-redacted-is-quiet", tool("a", argv=["mysql", "--password", R], argv_redacted=1), []),
    ("argv-flag-then-flag", tool("a", argv=["mysql", "--password", "--host", "db"]), []),
    (
        "feedback-command",
        {"command": ["curl", "https://ann:pw@host/"], **FEED},
        [("TT015", "command holds secret-looking text (url-credentials)")],
    ),
    (
        "agent-note",
        tool("a", agent_note=f"try with ghp_{GH_BODY}"),
        [("TT015", "agent_note holds secret-looking text (github-token)")],
    ),
    ("agent-note-redacted", tool("a", agent_note=f"try with {R}"), []),
    (
        "error",
        tool("a", exit_code=None, ok_preview=False, error="command not found: DB_PASSWORD=hunter2"),
        [("TT015", "error holds secret-looking text (password)")],
    ),
    (
        "tool-name",
        tool("a", tool_name="sk_live_4eC39HqLyjWDarjtT1zdp7dc"),
        [("TT015", "tool_name holds secret-looking text (stripe-key)")],
    ),
    (
        "two-rules-in-one-preview",
        in_preview(f"token ghp_{GH_BODY} and {JWT}"),
        [("TT015", "preview_stdout holds secret-looking text (github-token, jwt)")],
    ),
]


@pytest.mark.parametrize(("rec", "expected"), [c[1:] for c in FIELDS], ids=[c[0] for c in FIELDS])
def test_fields_beyond_the_previews(make_run: Any, rec: dict[str, Any], expected: Any) -> None:
    assert findings(make_run, rec) == expected


@pytest.mark.parametrize(("text", "redacted"), [c[1:] for c in SHAPES], ids=[c[0] for c in SHAPES])
def test_lint_sees_every_shape_and_not_its_redaction(
    make_run: Any, text: str, redacted: str
) -> None:
    raw = findings(make_run, in_preview(text))
    assert [code for code, _ in raw] == ["TT015"]
    assert findings(make_run, in_preview(redacted) | {"redacted": 1}) == []


@pytest.mark.parametrize("text", [c[1] for c in NEAR_MISSES], ids=[c[0] for c in NEAR_MISSES])
def test_lint_is_quiet_on_every_near_miss(make_run: Any, text: str) -> None:
    assert findings(make_run, in_preview(text)) == []
