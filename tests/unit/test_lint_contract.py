"""The minimal contract rules (TT002–TT006) at their edges: each case asserts the exact findings,
and every firing case has a quiet twin that differs in one field.

TT002 reads "the flag is not ``true``": a null flag, or one of the wrong type (the string
``"true"``, ``0``, ``1``), over the cap is a clip the flag does not own up to. A check written as
``flag is False`` (or ``not flag``, or ``flag != True``) would let one of those through; the
cases below are chosen so that each of those variants fails at least one of them.
"""

from __future__ import annotations

from typing import Any

import pytest
from records import tool

from tracetui.analysis.lint import lint_index
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

OVER = 9000  # bytes over the default cap of 8192
CAP = 8192


def over(s: str, flag: Any, **more: Any) -> dict[str, Any]:
    """A record whose stream ``s`` holds more bytes than its cap, flagged ``flag``."""
    return tool("a", **{f"{s}_bytes": OVER, f"{s}_truncated": flag, "ok_preview": False, **more})


def clipped(s: str, **more: Any) -> dict[str, Any]:
    """Stream ``s`` properly clipped: over the cap, flagged, no full-stream hash."""
    fields = {f"{s}_bytes": OVER, f"{s}_truncated": True, f"{s}_sha256": None}
    return tool("a", **{"ok_preview": False, **fields, **more})


def tt002(s: str, shown: str) -> tuple[str, str]:
    return (
        "TT002",
        f"{s} clipped without flag ({s}_bytes {OVER} > {s}_cap {CAP}, {s}_truncated {shown})",
    )


def tt014(field: str, want: str, got: str) -> tuple[str, str]:
    return "TT014", f"wrong field type: {field}: expected {want}, got {got}"


FLAG_TYPE = "true or false"

# (case id, the record, the exact findings [(code, message)] in output order)
CASES: list[tuple[str, dict[str, Any], list[tuple[str, str]]]] = []
for s in ("stdout", "stderr"):
    CASES += [
        # TT002 fires for every flag that is not exactly true.
        (f"TT002-{s}-null-flag", over(s, None), [tt002(s, "null")]),
        (f"TT002-{s}-false-flag", over(s, False), [tt002(s, "false")]),
        (
            f"TT002-{s}-string-true",
            over(s, "true"),
            [tt002(s, "'true'"), tt014(f"{s}_truncated", FLAG_TYPE, "str")],
        ),
        (
            f"TT002-{s}-zero",
            over(s, 0),
            [tt002(s, "0"), tt014(f"{s}_truncated", FLAG_TYPE, "int")],
        ),
        (
            f"TT002-{s}-one",
            over(s, 1),
            [tt002(s, "1"), tt014(f"{s}_truncated", FLAG_TYPE, "int")],
        ),
        # Its quiet twins: flagged over the cap, or at/under the cap with no flag.
        (f"TT002-{s}-true-flag-over-cap-is-fine", clipped(s), []),
        (f"TT002-{s}-null-flag-under-cap-is-fine", tool("a", **{f"{s}_truncated": None}), []),
        (
            f"TT002-{s}-null-flag-at-cap-is-fine",
            tool("a", **{f"{s}_bytes": CAP, f"{s}_truncated": None}),
            [],
        ),
        (
            f"TT002-{s}-uncapped-is-fine",
            over(s, None, **{f"{s}_cap": None}),
            [],
        ),
        (
            f"TT002-{s}-bytes-not-a-number",
            over(s, None, **{f"{s}_bytes": "9000"}),
            [tt014(f"{s}_bytes", "an integer", "str")],
        ),
        (
            f"TT002-{s}-missing-flag-is-TT001-only",
            {k: v for k, v in over(s, None).items() if k != f"{s}_truncated"},
            [("TT001", f"missing required field(s): {s}_truncated")],
        ),
        # TT003: flag set under the cap (at the cap counts: nothing was withheld).
        (
            f"TT003-{s}-under-cap",
            tool("a", **{f"{s}_truncated": True, f"{s}_sha256": None, "ok_preview": False}),
            [
                (
                    "TT003",
                    f"{s} flag set under cap ({s}_bytes {3 if s == 'stdout' else 0} <= {s}_cap {CAP})",
                )
            ],
        ),
        (
            f"TT003-{s}-at-cap",
            clipped(s, **{f"{s}_bytes": CAP}),
            [("TT003", f"{s} flag set under cap ({s}_bytes {CAP} <= {s}_cap {CAP})")],
        ),
        (f"TT003-{s}-flag-over-cap-is-fine", clipped(s, **{f"{s}_bytes": CAP + 1}), []),
        (
            f"TT003-{s}-string-flag-is-no-flag",
            tool("a", **{f"{s}_truncated": "true", "ok_preview": False}),
            [tt014(f"{s}_truncated", FLAG_TYPE, "str")],
        ),
        # TT004: a full-stream hash on a clipped stream.
        (
            f"TT004-{s}-hash-on-clipped",
            clipped(s, **{f"{s}_sha256": "ab" * 32}),
            [
                (
                    "TT004",
                    f"full hash on a clipped stream ({s}_sha256 set while {s}_truncated is true)",
                )
            ],
        ),
        (f"TT004-{s}-empty-hash-is-fine", clipped(s, **{f"{s}_sha256": ""}), []),
        (f"TT004-{s}-hash-on-whole-stream-is-fine", tool("a"), []),
        # TT005: ok_preview true while the stream is flagged.
        (
            f"TT005-{s}-ok-preview-on-clipped",
            clipped(s, ok_preview=True),
            [("TT005", f"ok_preview true while {s} truncated")],
        ),
        (f"TT005-{s}-ok-preview-false-is-fine", clipped(s), []),
    ]
CASES += [
    (
        "TT005-both-streams",
        clipped(
            "stdout", stderr_bytes=OVER, stderr_truncated=True, stderr_sha256=None, ok_preview=True
        ),
        [("TT005", "ok_preview true while stdout and stderr truncated")],
    ),
    (
        "TT005-string-ok-preview-is-not-true",
        clipped("stdout", ok_preview="true"),
        [tt014("ok_preview", FLAG_TYPE, "str")],
    ),
    (
        "TT005-string-flag-is-not-flagged",
        over("stdout", "true", ok_preview=True),
        [tt002("stdout", "'true'"), tt014("stdout_truncated", FLAG_TYPE, "str")],
    ),
    # TT006: ok_preview true on a failed or unknown exit.
    ("TT006-nonzero-exit", tool("a", exit_code=2), [("TT006", "ok_preview true with exit 2")]),
    (
        "TT006-null-exit",
        tool("a", exit_code=None, error="killed"),
        [("TT006", "ok_preview true with exit null")],
    ),
    ("TT006-ok-preview-false-is-fine", tool("a", exit_code=2, ok_preview=False), []),
    ("TT006-exit-zero-is-fine", tool("a", exit_code=0, ok_preview=True), []),
    (
        "TT006-string-ok-preview-is-not-true",
        tool("a", exit_code=2, ok_preview="true"),
        [tt014("ok_preview", FLAG_TYPE, "str")],
    ),
]


@pytest.mark.parametrize(("rec", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_contract_edge(make_run: Any, rec: dict[str, Any], expected: list[tuple[str, str]]) -> None:
    root = make_run({"B.jsonl": [rec]})
    ix = build_index(open_path(str(root / "B.jsonl"))[0])
    assert [(i.line, i.code, i.message) for i in lint_index(ix)] == [
        (1, code, msg) for code, msg in expected
    ]


def test_case_ids_are_unique() -> None:
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))
