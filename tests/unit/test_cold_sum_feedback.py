"""Feedback records whose tail holds tracetui's own marker (``…[truncated N bytes]…``): the
scanner judges them itself (the stream cut, N hidden bytes) where it used to hand them to
Python. Every tail below is indexed both ways (scanner, ``TRACETUI_NO_C``) with the same
columns, the rows the scanner keeps or hands back are the ones expected, and lint and the
suspicion count agree on them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
import test_scan

from tracetui.analysis.lint import lint_index
from tracetui.analysis.suspicions import CODES, count_suspicions
from tracetui.model import marks
from tracetui.store import fastindex
from tracetui.store.build import build_index
from tracetui.store.runset import open_path

pytestmark = pytest.mark.skipif(not fastindex.available(), reason="C scanner not built")

OWN = "\n…[truncated {n} bytes]…\n"
ARABIC_12 = "\u0661\u0662"  # two digits to Python's \d
# id → (stdout_tail, stderr_tail, judged by the scanner)
TAILS: dict[str, tuple[Any, Any, bool]] = {
    "own": ("head" + OWN.format(n=50172) + "end", "", True),
    "zero": ("a" + OWN.format(n=0), "", True),
    "leading-zeros": ("a" + OWN.format(n="00042"), "", True),
    "fifteen-digits": ("a" + OWN.format(n="9" * 15), None, True),
    "sixteen-digits": ("a" + OWN.format(n="9" * 16), None, False),
    "thirty-one-digits": ("a" + OWN.format(n="9" * 31), None, False),
    "both-tails": ("a" + OWN.format(n=5), "b" + OWN.format(n=7), True),
    "stderr-only": ("", "b" + OWN.format(n=7), True),
    "two-markers": ("a" + OWN.format(n=5) + OWN.format(n=9), "", True),
    "unicode-digits-first": ("…[truncated " + ARABIC_12 + " bytes]…" + OWN.format(n=9), "", False),
    "unicode-digit-after": ("…[truncated 1" + ARABIC_12 + " bytes]…" + OWN.format(n=9), "", False),
    "broken-then-own": ("…[truncated 5 byte]… …[truncated x]" + OWN.format(n=9), "", True),
    "no-digits": ("…[truncated  bytes]…", "", False),
    "no-close": ("…[truncated 12 bytes]", "", False),
    "feedback-family-first": ("...truncated 3 lines..." + OWN.format(n=9), "", True),
    "feedback-family-only": ("x ...truncated 3 lines... y", "", False),
    "word-only": ("the output was truncated", "", False),
    "clipped-too": ("<response clipped>" + OWN.format(n=4), "", True),
    "at-the-very-end": ("…[truncated 8 bytes]…", "", True),
    "at-the-very-start-short": ("…[truncated 8 bytes]", "", False),
    "tail-not-a-string": (7, "", False),
    "no-tails": (None, None, True),
}


def record(cid: str, out: Any, err: Any, **fields: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"command": ["make", "test"], "exit_code": 1, "command_id": cid}
    if out is not None:
        rec["stdout_tail"] = out
    if err is not None:
        rec["stderr_tail"] = err
    rec.update(fields)
    return rec


def lint_counts(ix: Any) -> dict[str, int]:
    fired = {(i.file, i.line, i.code) for i in lint_index(ix, every_row=True) if i.code in CODES}
    counts = dict.fromkeys(CODES, 0)
    for _file, _line, code in fired:
        counts[code] += 1
    return counts


@pytest.mark.parametrize("escape", ["utf8", "ensure-ascii", "one-u-escape"])
@pytest.mark.parametrize("case", list(TAILS))
def test_feedback_tails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str, escape: str
) -> None:
    """``utf8``: as most writers write it (\\n and other short escapes only); ``ensure-ascii``:
    the ellipses written as \\u2026; ``one-u-escape``: one \\u escape elsewhere in the tail.
    Only the first is the scanner's to judge."""
    out, err, judged = TAILS[case]
    rec = record("c1", out, err, agent_note="expect green", stdout_clip="head")
    line = json.dumps(rec, ensure_ascii=escape == "ensure-ascii")
    if escape == "one-u-escape":
        line = line.replace('"stdout_tail": "', '"stdout_tail": "\\u0041', 1)
    path = tmp_path / "B.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    fast, slow = test_scan.both(str(path), monkeypatch)
    assert fast == slow
    ix = build_index(open_path(str(path))[0])
    # A tail whose marker is written with an escape, or beside a \\u escape, is Python's.
    escaped = [err] if escape == "ensure-ascii" else []
    escaped += [out] if escape != "utf8" else []
    by_scanner = judged and not any(isinstance(t, str) and "…" in t for t in escaped)
    assert (ix.marks[0] != marks.ALL) == by_scanner
    assert count_suspicions(ix) == lint_counts(ix)


def random_tail(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 5)):
        roll = rng.random()
        if roll < 0.3:
            parts.append(OWN.format(n=rng.choice([0, 7, 123456, "0012"])))
        elif roll < 0.4:
            parts.append("…[truncated " + rng.choice(["", "x", ARABIC_12, "5 byte"]) + " bytes]…")
        elif roll < 0.5:
            parts.append(rng.choice(["...truncated 4 lines...", "<response clipped>", "omitted"]))
        else:
            parts.append(rng.choice(["ok\n", "FAILED test_x\n", '"quoted"\t', "\\path\\", "é"]))
    return "".join(parts)


def test_random_feedback_tails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    recs = []
    for i in range(1500):
        rec = record(
            f"c{i}",
            random_tail(rng),
            rng.choice([None, "", random_tail(rng)]),
            exit_code=rng.choice([0, 1, None]),
            agent_note=rng.choice([None, "expect green", "should fail"]),
            stdout_clip=rng.choice([None, "head", "tail"]),
        )
        if rng.random() < 0.3 and i:
            rec["parent_command_id"] = f"c{rng.randrange(i)}"
        recs.append(json.dumps(rec, ensure_ascii=rng.random() < 0.3))
    path = tmp_path / "B.jsonl"
    path.write_text("\n".join(recs) + "\n", encoding="utf-8")
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    fast, slow = test_scan.both(str(path), monkeypatch)
    assert fast == slow
    ix = build_index(open_path(str(path))[0])
    assert sum(m != marks.ALL for m in ix.marks) > len(ix) // 3  # the scanner judged many
    want = lint_counts(ix)
    assert want["TT019"] and want["TT022"]
    assert count_suspicions(ix) == want
    assert lint_index(ix) == lint_index(ix, every_row=True)
