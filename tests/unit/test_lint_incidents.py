"""The incident rules TT019–TT025: each fires on its case and stays quiet on its near-miss twins
(exact finding lines); the summary's counts and the viewer's per-row answers agree with lint."""

from __future__ import annotations

import shlex
from collections import Counter
from typing import Any

import pytest
from records import imported, tool

from tracetui.analysis.lint import lint_index
from tracetui.analysis.suspicions import (
    CODES,
    count_suspicions,
    may_be_suspicious,
    next_suspicious,
    suspicions_at,
    suspicions_of,
    suspicious_rows,
)
from tracetui.store.build import build_index
from tracetui.store.index import RunIndex
from tracetui.store.runset import open_path

# stdout of 9,000 bytes cut to its first 8,192: 808 bytes never shown.
CUT = {
    "stdout_bytes": 9000,
    "stdout_cap": 8192,
    "stdout_truncated": True,
    "stdout_clip": "head",
    "stdout_sha256": None,
    "stdout_head_bytes": 8192,
    "ok_preview": False,
    "preview_stdout": "x" * 100 + "\n…[truncated 808 bytes]…\n",
}
TAIL_CUT = {
    **CUT,
    "stdout_clip": "tail",
    "stdout_head_bytes": None,
    "stdout_tail_bytes": 8192,
    "preview_stdout": "\n…[truncated 808 bytes]…\n" + "x" * 100,
}
# The same output under a 4,096-byte cap.
SMALL_CUT = {
    **CUT,
    "stdout_cap": 4096,
    "stdout_head_bytes": 4096,
    "preview_stdout": "x" * 100 + "\n…[truncated 4904 bytes]…\n",
}
FEED = {"command": ["make"], "stdout_tail": "", "stderr_tail": "", "exit_code": 0}
OPENHANDS_CLIP = "<response clipped><NOTE>Due to the max output limit, only part was shown.</NOTE>"
CLAUDE_CUT = "\n\n... [120 characters truncated] ...\n\n"


def span_record(**fields: Any) -> dict[str, Any]:
    """A truncation-span dialect record (no clip field, returncode), exit 0 and not cut."""
    rec: dict[str, Any] = {
        "span_type": "tool",
        "tool_name": "pytest",
        "argv": ["pytest", "-q"],
        "cwd": ".",
        "returncode": 0,
        "preview_stdout": "ok\n",
        "preview_stderr": "",
        "stdout_bytes": 3,
        "stdout_cap": 8192,
        "stdout_truncated": False,
        "stderr_bytes": 0,
        "stderr_cap": 8192,
        "stderr_truncated": False,
        "stdout_sha256": None,
        "stderr_sha256": None,
        "encoding": "utf-8",
        "ok_preview": False,
    }
    rec.update(fields)
    return rec


def claude(name: str, args: dict[str, Any], result: str = "ok") -> list[dict[str, Any]]:
    """A Claude Code session of one tool call (line 1) and its result (line 2)."""
    base = {"sessionId": "s1", "cwd": "/work", "timestamp": "2026-01-01T00:00:00Z"}
    use = {"type": "tool_use", "id": "toolu_1", "name": name, "input": args}
    res = {"type": "tool_result", "tool_use_id": "toolu_1", "content": result, "is_error": False}
    return [
        {
            **base,
            "type": "assistant",
            "uuid": "u1",
            "message": {"role": "assistant", "content": [use]},
        },
        {**base, "type": "user", "uuid": "u2", "message": {"role": "user", "content": [res]}},
    ]


def codex(command: str, out: str = "Done!", code: int = 0, status: str = "completed") -> list[Any]:
    """A Codex exec stream of one command (its completion on line 2)."""
    item = {"id": "item_0", "type": "command_execution", "command": command}
    done = {**item, "aggregated_output": out, "exit_code": code, "status": status}
    return [{"type": "thread.started", "thread_id": "t1"}, {"type": "item.completed", "item": done}]


# (case id, records, expected [(line, code, message)])
CASES: list[tuple[str, list[Any], list[tuple[int, str, str]]]] = [
    # ---------------------------------------------------------------- TT019
    (
        "TT019-head-cut-failure",
        [tool("a", exit_code=1, **CUT)],
        [
            (
                1,
                "TT019",
                "exit 1 and stdout kept only its head: 808 bytes at its end, where a failure "
                "is summarised, never seen",
            )
        ],
    ),
    ("TT019-twin-tail-cut", [tool("a", exit_code=1, **TAIL_CUT)], []),
    ("TT019-twin-exit-0", [tool("a", **CUT)], []),
    ("TT019-twin-null-exit", [tool("a", exit_code=None, error="killed", **CUT)], []),
    (
        "TT019-twin-clip-unsaid",
        [span_record(returncode=1, stdout_bytes=9000, stdout_truncated=True)],
        [],
    ),
    (
        "TT019-marker-says-head",
        [imported("a", exit_code=1, preview_stdout="a\n" + OPENHANDS_CLIP, stdout_truncated=True)],
        [
            (
                1,
                "TT019",
                "exit 1 and stdout kept only its head: an unknown amount at its end, where a "
                "failure is summarised, never seen",
            ),
            (
                1,
                "TT020",
                "stdout was cut but its original size is unknown (the openhands marker states "
                "no count, and no stdout_bytes)",
            ),
        ],
    ),
    # ---------------------------------------------------------------- TT020
    (
        "TT020-lines-marker",
        [{**FEED, "stdout_tail": "...truncated 9 lines...\nok\n"}],
        [
            (
                1,
                "TT020",
                "stdout was cut but its original size is unknown (the feedback marker counts 9 "
                "lines, not bytes, and no stdout_bytes)",
            )
        ],
    ),
    ("TT020-twin-no-marker", [{**FEED, "stdout_tail": "ok\n"}], []),
    (
        "TT020-flag-alone",
        [tool("a", stdout_bytes=None, stdout_truncated=True, stdout_sha256=None, ok_preview=False)],
        [
            (
                1,
                "TT020",
                "stdout was cut but its original size is unknown (only stdout_truncated says "
                "so, and no stdout_bytes)",
            )
        ],
    ),
    (
        "TT020-twin-chars-counted",
        [imported("a", preview_stdout="a" + CLAUDE_CUT + "b", stdout_truncated=True)],
        [],
    ),
    ("TT020-twin-bytes-known", [tool("a", **CUT)], []),
    # ---------------------------------------------------------------- TT021
    (
        "TT021-same-cap",
        [tool("a", **CUT), tool("b", parent_command_id="a", **CUT)],
        [
            (
                2,
                "TT021",
                "retries 'a', whose output was cut, with the same argv and cwd under the same "
                "stdout_cap 8192: it could not see more",
            )
        ],
    ),
    (
        "TT021-smaller-cap",
        [tool("a", **CUT), tool("b", parent_command_id="a", **SMALL_CUT)],
        [
            (
                2,
                "TT021",
                "retries 'a', whose output was cut, with the same argv and cwd under a smaller "
                "stdout_cap (4096 < 8192): it could not see more",
            )
        ],
    ),
    (
        "TT021-twin-bigger-cap",
        [
            tool("a", **CUT),
            tool("b", parent_command_id="a", stdout_bytes=9000, stdout_cap=16384),
        ],
        [],
    ),
    (
        "TT021-twin-other-argv",
        [tool("a", **CUT), tool("b", parent_command_id="a", argv=["echo", "hi", "-v"], **CUT)],
        [],
    ),
    (
        "TT021-twin-other-cwd",
        [tool("a", **CUT), tool("b", parent_command_id="a", cwd="sub", **CUT)],
        [],
    ),
    (
        "TT021-twin-other-clip",
        [tool("a", **CUT), tool("b", parent_command_id="a", **TAIL_CUT)],
        [],
    ),
    ("TT021-twin-parent-whole", [tool("a"), tool("b", parent_command_id="a", **CUT)], []),
    ("TT021-twin-retry-fitted", [tool("a", **CUT), tool("b", parent_command_id="a")], []),
    # ---------------------------------------------------------------- TT022
    (
        "TT022-failed",
        [tool("a", exit_code=1, ok_preview=False, agent_note="expect green after fixing tz")],
        [(1, "TT022", 'the note predicted success ("green") but the command exited 1')],
    ),
    (
        "TT022-cut",
        [tool("a", agent_note="all tests pass", **CUT)],
        [(1, "TT022", 'the note predicted success ("pass") but stdout was cut')],
    ),
    (
        "TT022-twin-expects-failure",
        [tool("a", exit_code=1, ok_preview=False, agent_note="expect it to fail")],
        [],
    ),
    (
        "TT022-twin-negated",
        [tool("a", exit_code=1, ok_preview=False, agent_note="not fixed yet")],
        [],
    ),
    ("TT022-twin-as-predicted", [tool("a", agent_note="expect green")], []),
    (
        "TT022-twin-no-exit",
        [tool("a", exit_code=None, error="runner died", ok_preview=False, agent_note="works")],
        [],
    ),
    # ---------------------------------------------------------------- TT023
    (
        "TT023-no-result",
        [imported("a", exit_code=None, error="no result recorded", result_missing=True)],
        [(1, "TT023", "the Bash call has no result (the session ended or it was lost)")],
    ),
    (
        "TT023-twin-error-result",
        [imported("a", exit_code=None, error="tool reported an error")],
        [],
    ),
    (
        "TT023-twin-own-dialect",
        [tool("a", exit_code=None, error="gone", ok_preview=False, result_missing=True)],
        [],
    ),
    # ---------------------------------------------------------------- TT024
    (
        "TT024-write-content",
        claude("Write", {"file_path": "a.py", "content": "x = 1\n…[truncated 5 bytes]…\n"}),
        [
            (
                1,
                "TT024",
                "the Write call writes a truncation marker (tracetui) into a file, in content: "
                "it copied a cut output as if it were the file",
            )
        ],
    ),
    (
        "TT024-multiedit",
        claude(
            "MultiEdit",
            {"file_path": "a.py", "edits": [{"old_string": "a", "new_string": CLAUDE_CUT}]},
        ),
        [
            (
                1,
                "TT024",
                "the MultiEdit call writes a truncation marker (claude-code) into a file, in "
                "edits[].new_string: it copied a cut output as if it were the file",
            )
        ],
    ),
    (
        "TT024-heredoc",
        claude("Bash", {"command": "cat > notes.txt <<'EOF'\nhead" + CLAUDE_CUT + "tail\nEOF"}),
        [
            (
                1,
                "TT024",
                "the Bash call writes a truncation marker (claude-code) into a file, in a "
                "here-document: it copied a cut output as if it were the file",
            )
        ],
    ),
    (
        "TT024-patch-adds",
        codex(shlex.join(["apply_patch", "*** Begin Patch\n@@\n-old\n+" + OPENHANDS_CLIP])),
        [
            (
                2,
                "TT024",
                "the shell call writes a truncation marker (openhands) into a file, in the "
                "patch: it copied a cut output as if it were the file",
            )
        ],
    ),
    (
        "TT024-twin-edit-replaces-marker",
        claude("Edit", {"file_path": "a.py", "old_string": CLAUDE_CUT, "new_string": "ok"}),
        [],
    ),
    (
        "TT024-twin-patch-removes",
        codex(shlex.join(["apply_patch", "@@\n-" + OPENHANDS_CLIP + "\n+fixed\n"])),
        [],
    ),
    ("TT024-twin-search", claude("Bash", {"command": "grep -rn '<response clipped>' src/"}), []),
    (
        "TT024-twin-heredoc-no-write",
        claude("Bash", {"command": "python - <<EOF\nprint( + CLAUDE_CUT + )\nEOF"}),
        [],
    ),
    (
        "TT024-twin-own-dialect",
        [tool("a", tool_name="apply_patch", argv=["apply_patch", "+" + OPENHANDS_CLIP])],
        [],
    ),
    # ---------------------------------------------------------------- TT025
    (
        "TT025-is-error-false",
        [imported("a", exit_code=2, source_ok=True, source_ok_field="is_error: false")],
        [(1, "TT025", "is_error: false marks the call successful, but it exited 2")],
    ),
    ("TT025-twin-marked-failed", [imported("a", exit_code=2, source_ok=False)], []),
    ("TT025-twin-exit-0", [imported("a", source_ok=True, source_ok_field="status: completed")], []),
    (
        "TT025-twin-no-exit",
        [imported("a", exit_code=None, error="gone", source_ok=True, source_ok_field="x")],
        [],
    ),
    ("TT025-twin-own-dialect", [tool("a", exit_code=2, ok_preview=False, source_ok=True)], []),
]


def index_of(make_run: Any, records: list[dict[str, Any]]) -> RunIndex:
    root = make_run({"B.jsonl": records})
    return build_index(open_path(str(root / "B.jsonl"))[0])


@pytest.mark.parametrize(("records", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rule(make_run: Any, records: list[dict[str, Any]], expected: list[tuple]) -> None:
    found = [(i.line, i.code, i.message) for i in lint_index(index_of(make_run, records))]
    assert found == expected


def test_every_incident_rule_fires_and_has_a_twin() -> None:
    fires = {c[0].split("-")[0] for c in CASES if c[2]}
    twins = {c[0].split("-")[0] for c in CASES if "-twin-" in c[0] and not c[2]}
    assert fires == twins == set(CODES)


@pytest.mark.parametrize("records", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_summary_counts_and_row_answers_agree_with_lint(
    make_run: Any, records: list[dict[str, Any]]
) -> None:
    ix = index_of(make_run, records)
    issues = [i for i in lint_index(ix) if i.code in CODES]
    rows_per_code = Counter(code for code, _line in {(i.code, i.line) for i in issues})
    assert count_suspicions(ix) == {code: rows_per_code[code] for code in CODES}
    for row in range(len(ix)):
        line = ix.location(row)[1]  # an imported call is found at its line in the session
        at_row = [(i.code, i.message) for i in issues if i.line == line]
        assert suspicions_at(ix, row) == sorted(at_row)
        span = ix.span(row)
        assert span is not None
        assert suspicions_of(span) == [s for s in sorted(at_row) if s[0] != "TT021"]
        assert may_be_suspicious(ix, row) or not at_row
    fired = {row: frozenset(c for c, _m in suspicions_at(ix, row)) for row in range(len(ix))}
    assert suspicious_rows(ix) == {row: codes for row, codes in fired.items() if codes}


def test_next_suspicious_walks_both_ways(make_run: Any) -> None:
    ix = index_of(
        make_run,
        [tool("a"), tool("b", exit_code=1, **CUT), tool("c"), tool("d", agent_note="works", **CUT)],
    )
    assert [next_suspicious(ix, -1), next_suspicious(ix, 1), next_suspicious(ix, 3)] == [1, 3, None]
    assert [next_suspicious(ix, 3, -1), next_suspicious(ix, 1, -1)] == [1, None]
    assert suspicious_rows(ix) == {1: {"TT019"}, 3: {"TT022"}}
    assert suspicious_rows(ix, start=2) == {3: {"TT022"}}


def test_a_row_tt001_stops_has_no_suspicion(make_run: Any) -> None:
    rec = {k: v for k, v in tool("a", exit_code=1, **CUT).items() if k != "stderr_cap"}
    ix = index_of(make_run, [rec])
    assert [i.code for i in lint_index(ix)] == ["TT001"]
    assert count_suspicions(ix) == dict.fromkeys(CODES, 0)
    assert suspicions_at(ix, 0) == []


def test_contract_rules_do_not_judge_imported_records(make_run: Any) -> None:
    rec = {k: v for k, v in imported("a").items() if k != "stdout_cap"}
    ix = index_of(make_run, [rec, imported("b", stdout_bytes=9000, stdout_cap=10)])
    assert lint_index(ix) == []


def _mixed_records(seed: int, n: int) -> list[Any]:
    """Records of every dialect with random cuts, clips, exits, notes, parents and odd types:
    the summary's shortcuts must reach the rules' verdicts on all of them."""
    import random

    rng = random.Random(seed)
    notes = [None, "expect green", "expect it to fail", "not fixed yet", "works", 7, "lint it"]
    markers = ["", "\n…[truncated 808 bytes]…\n", "...truncated 4 lines...", OPENHANDS_CLIP]
    out: list[Any] = []
    for i in range(n):
        preview = "x" * rng.choice((3, 100)) + rng.choice(markers)
        exit_code = rng.choice((0, 0, 1, 2, None, "1", 1.0))
        parent = f"c{rng.randrange(i)}" if i and rng.random() < 0.3 else None
        kind = rng.random()
        if kind < 0.2:
            out.append(
                {
                    "command": ["make", str(i % 3)],
                    "stdout_tail": preview,
                    "stderr_tail": rng.choice(("", "...truncated 2 lines...\n")),
                    "exit_code": exit_code,
                    "error": "x" if exit_code is None else None,
                    "agent_note": rng.choice(notes),
                    "command_id": f"c{i}",
                    "parent_command_id": parent,
                    "cwd": ".",
                }
            )
            continue
        rec = tool(
            f"c{i}",
            parent_command_id=parent,
            argv=["echo", str(i % 3)],
            exit_code=exit_code,
            error="x" if exit_code is None else None,
            agent_note=rng.choice(notes),
            ok_preview=False,
            stdout_bytes=rng.choice((3, 9000, None, 9000.0, True)),
            stdout_cap=rng.choice((8192, 4096, None)),
            stdout_truncated=rng.choice((True, False, None)),
            stdout_clip=rng.choice(("head", "tail", "head_tail", None)),
            stdout_sha256=None,
            preview_stdout=preview,
        )
        if kind < 0.3:  # the truncation-span dialect: no schema, returncode, no clip
            for key in ("schema", "stdout_clip", "exit_code", "command_id", "parent_command_id"):
                rec.pop(key)
            rec["returncode"] = exit_code
        if rng.random() < 0.05:
            rec.pop("stderr_cap")  # TT001 stops it
        out.append(rec)
    return out


@pytest.mark.parametrize("seed", range(4), ids=[f"seed-{s}" for s in range(4)])
def test_summary_counts_agree_with_lint_on_mixed_records(make_run: Any, seed: int) -> None:
    ix = index_of(make_run, _mixed_records(seed, 300))
    issues = [i for i in lint_index(ix) if i.code in CODES]
    rows_per_code = Counter(code for code, _line in {(i.code, i.line) for i in issues})
    assert count_suspicions(ix) == {code: rows_per_code[code] for code in CODES}
    assert sum(rows_per_code.values()) > 20  # the mix does fire
