"""The Markdown postmortem: chain table, verdict, previews, sidecar re-runs, Markdown safety."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest
from records import tool

from tracetui.export.markdown import code_span, fence
from tracetui.export.report import ReportError, find_row, render_report, rerun_verdict
from tracetui.model.markers import marker_line
from tracetui.model.spans import normalize
from tracetui.rerun import diff
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

CAP = 64
PASSING = "".join(f"test_{i:02d} PASSED\n" for i in range(8))  # 8 lines of 15 bytes
FAILING = "test_money FAILED\nE   AssertionError: assert 33.33 == 33.34\n1 failed, 8 passed\n"
FULL = (PASSING + FAILING).encode()  # 199 bytes: the cap keeps 4 lines and "test"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def clipped(cid: str, full: bytes = FULL, cap: int = CAP, **fields: Any) -> dict[str, Any]:
    """A tracetui/1 record whose stdout was head-capped at ``cap`` bytes."""
    head = full[:cap]
    rec = tool(
        cid,
        tool_name="pytest",
        argv=["pytest", "-q"],
        exit_code=1,
        duration_ms=1500,
        agent_note="expect the money test to fail",
        stdout_bytes=len(full),
        stdout_cap=cap,
        stdout_truncated=True,
        stdout_clip="head",
        stdout_sha256=None,
        stdout_full_sha256=sha(full),
        stdout_head_sha256=sha(head),
        stdout_head_bytes=cap,
        preview_stdout=head.decode() + marker_line(len(full) - cap),
        ok_preview=False,
    )
    rec.update(fields)
    return rec


def rerun_record(parent: str, full: bytes = FULL, **fields: Any) -> dict[str, Any]:
    """A sidecar re-run record as the re-run feature writes it: uncapped up to 64 KiB."""
    rec = tool(
        "rr1",
        parent_command_id=parent,
        rerun_of=parent,
        tool_name="pytest",
        argv=["pytest", "-q"],
        exit_code=1,
        started_at="2026-11-03T10:00:00Z",
        stdout_bytes=len(full),
        stdout_cap=65536,
        stdout_sha256=sha(full),
        stdout_full_sha256=sha(full),
        preview_stdout=full.decode(),
        ok_preview=False,
    )
    rec.update(fields)
    return rec


CHAIN = [
    clipped("a1"),
    tool("other"),
    clipped(
        "a2", parent_command_id="a1", started_at="2026-11-02T09:05:00Z", agent_note="expect green"
    ),
    tool(
        "a3",
        parent_command_id="a2",
        tool_name="pytest",
        argv=["pytest", "-q", "--deselect", "test_money"],
        stdout_bytes=3,
        duration_ms=61000,
    ),
]


def open_run(make_run: Any, records: list[Any], sidecar: list[Any] | None = None) -> Any:
    members: dict[str, list[Any]] = {"B.jsonl": records}
    if sidecar is not None:
        members["B.jsonl.reruns.jsonl"] = sidecar
    root = make_run(members)
    return build_index(open_path(str(root / "B.jsonl"))[0])


def test_report_without_rerun(make_run: Any) -> None:
    ix = open_run(make_run, CHAIN)
    text = render_report(ix, ix.id_rows["a2"])
    lines = text.split("\n")
    assert lines[0] == "# Postmortem: `pytest`, 3 attempts (chain `a1`)"
    assert (
        "3 attempts; the last one exited 0. The agent never saw 135 bytes (68%) of attempt 1's stdout."
        " 1 more attempt was clipped too." in text
    )
    table = [x for x in lines if x.startswith("| ")]
    assert table == [
        "| attempt | id | exit | duration | stdout shown / produced | stderr shown / produced | hidden | share |",
        "| 1 | `a1` | 1 | 1.5 s | 64 / 199 | 0 / 0 | 135 | 68% |",
        "| 2 | `a2` | 1 | 1.5 s | 64 / 199 | 0 / 0 | 135 | 68% |",
        "| 3 | `a3` | 0 | 1m 01s | 3 / 3 | 0 / 0 | 0 | - |",
    ]
    assert "## Attempt 3: `a3`, exit 0" in lines
    assert "- **argv**: `pytest -q --deselect test_money`" in lines
    assert "- **agent note**: `expect green`" in lines
    assert (
        "- **stdout**: 199 bytes produced, cap 64, clip head, 64 shown, **135 never shown (68%)**"
        in lines
    )
    block = text[text.index("**stdout as the agent saw it**") :].split("```")[1].split("\n")
    assert block[1:] == [
        "test_00 PASSED",
        "test_01 PASSED",
        "test_02 PASSED",
        "test_03 PASSED",
        "test",
        "✂──── 135 bytes the agent never saw ────✂",
        "",
    ]
    assert "Re-run" not in text and "other" not in text


def test_report_with_rerun_in_sidecar(make_run: Any) -> None:
    ix = open_run(make_run, CHAIN, sidecar=[rerun_record("a1")])
    text = render_report(ix, ix.id_rows["a3"])
    assert (
        "The agent never saw 135 bytes (68%) of attempt 1's stdout, where a re-run shows "
        "`E   AssertionError: assert 33.33 == 33.34`."
    ) in text
    # The re-run is shown under the attempt it re-ran, not counted as an attempt.
    assert "3 attempts;" in text and text.count("### Re-run") == 1
    section = text[text.index("### Re-run `rr1`") : text.index("## Attempt 2")]
    assert "- **exit**: then 1, now 1" in section
    assert "- **stdout**: then 199 bytes, now 199 bytes; verdict **identical**" in section
    assert "**stdout the agent never saw** (bytes 64 to 199 of the re-run):" in section
    assert "- `test_money FAILED`" in section
    assert "- `E   AssertionError: assert 33.33 == 33.34`" in section
    unseen = section.split("```text\n")[1].split("\n```")[0].split("\n")
    assert unseen == [
        "_04 PASSED",
        "test_05 PASSED",
        "test_06 PASSED",
        "test_07 PASSED",
        *FAILING.rstrip("\n").split("\n"),
    ]


def span_of(rec: dict[str, Any]) -> Any:
    return normalize(rec)


@pytest.mark.parametrize(
    ("new", "fields", "want"),
    [
        (FULL, {}, diff.IDENTICAL),
        (FULL[:CAP] + b"something else entirely\n", {}, diff.HEAD_MATCHES),
        (b"other start" + FULL[11:], {}, diff.DIFFERS),
        # Redacted previews are not the raw bytes: the head window cannot be checked.
        (FULL[:CAP] + b"changed\n", {"redacted": 1}, diff.DIFFERS),
        (
            FULL[:CAP] + b"changed\n",
            {"stdout_full_sha256": None, "stdout_sha256": None},
            diff.HEAD_MATCHES,
        ),
    ],
    ids=[
        "identical",
        "head-matches",
        "differs",
        "redacted-no-window-check",
        "no-full-hash-window-only",
    ],
)
def test_rerun_verdict(new: bytes, fields: dict[str, Any], want: str) -> None:
    original = span_of(clipped("a1"))
    rec = rerun_record("a1", new)
    rec.update(fields)
    assert rerun_verdict(original.stdout, span_of(rec)) == want


def test_rerun_verdict_unknown_without_hashes() -> None:
    original = span_of(clipped("a1", stdout_full_sha256=None, stdout_head_sha256=None))
    assert rerun_verdict(original.stdout, span_of(rerun_record("a1"))) == diff.UNKNOWN


def test_untrusted_text_cannot_escape(make_run: Any) -> None:
    evil_preview = "ok ```` still inside\n\x1b]52;c;ZXZpbA==\x07\x1b[2J done\n"
    rec = tool(
        "x|1",
        agent_note="**bold** <script> | [link](http://x)",
        preview_stdout=evil_preview,
        stdout_bytes=len(evil_preview.encode()),
        cwd="/tmp/`weird`",
    )
    ix = open_run(make_run, [rec])
    text = render_report(ix, 0)
    assert "\x1b" not in text and "\x07" not in text
    assert re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text) is None
    assert "- **agent note**: `**bold** <script> | [link](http://x)`" in text
    assert "| 1 | `x\\|1` |" in text  # a pipe inside a table cell cannot split it
    assert "- **cwd**: `` /tmp/`weird` ``" in text
    assert "\n`````text\n" in text  # a fence longer than the preview's backtick run
    assert "␛]52;c;ZXZpbA==␇␛[2J done" in text


@pytest.mark.parametrize(
    ("text", "want"),
    [("plain", "`plain`"), ("a`b", "``a`b``"), ("`x`", "`` `x` ``"), ("a\x1bb", "`a␛b`")],
    ids=["plain", "inner-tick", "edge-ticks", "escape-neutralised"],
)
def test_code_span(text: str, want: str) -> None:
    assert code_span(text) == want


@pytest.mark.parametrize(
    ("lines", "ticks"),
    [(["a"], 3), (["```"], 4), (["x ``````` y"], 8)],
    ids=["none", "three", "seven"],
)
def test_fence_is_longer_than_any_backtick_run(lines: list[str], ticks: int) -> None:
    out = fence(lines)
    assert out[0] == "`" * ticks + "text" and out[-1] == "`" * ticks


def test_long_preview_is_bounded(make_run: Any) -> None:
    full = "".join(f"line {i}\n" for i in range(200))
    ix = open_run(make_run, [tool("big", preview_stdout=full, stdout_bytes=len(full))])
    text = render_report(ix, 0)
    block = text.split("```text\n")[1].split("\n```")[0].split("\n")
    assert block[0] == "[… 160 earlier lines of the preview not shown here …]"
    assert block[1:] == [f"line {i}" for i in range(160, 200)]


@pytest.mark.parametrize(
    ("ident", "want"),
    [("a2", "a2"), ("oth", "other"), ("a3", "a3")],
    ids=["exact", "unique-prefix", "last"],
)
def test_find_row(make_run: Any, ident: str, want: str) -> None:
    ix = open_run(make_run, CHAIN)
    got_ix, row = find_row([ix], ident)
    assert got_ix is ix and ix.ids[row] == want


@pytest.mark.parametrize(
    ("ident", "message"),
    [
        ("zz", "no span with id 'zz'"),
        ("a", "id 'a' is ambiguous: a1, a2, a3"),
        ("  ", "empty id"),
    ],
    ids=["unknown", "ambiguous", "empty"],
)
def test_find_row_errors(make_run: Any, ident: str, message: str) -> None:
    ix = open_run(make_run, CHAIN)
    with pytest.raises(ReportError) as err:
        find_row([ix], ident)
    assert str(err.value) == message


def test_missing_parent_and_unknown_truncation(make_run: Any) -> None:
    feedback = {
        "command": ["make"],
        "stdout_tail": "done\n",
        "stderr_tail": "",
        "exit_code": 2,
        "command_id": "f2",
        "parent_command_id": "gone",
        "duration_ms": 5,
    }
    ix = open_run(make_run, [feedback])
    text = render_report(ix, 0)
    assert "> The first attempt names parent `gone`: parent not in set (rotated away?)." in text
    assert (
        "1 attempt; it exited 2. Some attempts record no byte counts: whether the agent"
        " saw everything is unknown."
    ) in text
    assert "- **stdout**: no byte count recorded: truncation unknown" in text
