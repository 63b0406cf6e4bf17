"""The ``rotated`` sample run: a long CI-like session written by three wrappers, then rotated.

Step commands (tests, builds, lints) are recorded as tracetui/1 spans, API calls by a
truncation-span collector, and VCS commands by a feedback-record runner. The session is laid
out by a seeded plan; the lines are then split into members exactly the way the writer rotates
(max_bytes, keep 4), the oldest members are dropped and ``.3`` is gzip'd. ``build`` checks every
property the brief asks for and fails loudly if a change to the plan loses one.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import samplekit as kit

BASE = "feedback_record.jsonl"
TOTAL = 205
MAX_BYTES = 96 * 1024  # the first size tried; see build()
KEEP = 4
SEED = 20261110
TARGETS = [
    "billing",
    "ledger",
    "invoices",
    "auth",
    "notifications",
    "search",
    "payments-gateway",
    "reports",
]
COLLECTIONS = ["payouts", "charges", "disputes", "refunds"]
DEPLOY = ["./tools/deploy_preview.sh", "--env", "staging"]  # deliberately absent: the runner fails
INTEGRATION = ["python3", "tools/step.py", "test", "integration"]
BAD_LINE_AT = 118
BRANCH_FROM = 100
NULL_EXIT_AT = 140
HEAD_TAIL_AT = 95


def step(task: str, target: str, reruns: int = 0) -> list[str]:
    argv = ["python3", "tools/step.py", task, target]
    return [*argv, "--reruns", str(reruns)] if reruns else argv


def candidates() -> list[list[str]]:
    """Every argv the plan may use, so all can run up front (in parallel) before planning."""
    out = [step("test", t, r) for t in TARGETS for r in range(3)]
    out += [step(k, t) for k in ("build", "lint", "typecheck") for t in TARGETS]
    out += [
        ["python3", "tools/api.py", "GET", f"/v1/{c}", "--page", str(p), "--per-page", "40"]
        for c in COLLECTIONS
        for p in (1, 2)
    ]
    out += [["python3", "tools/api.py", "GET", "/v1/health"], INTEGRATION, DEPLOY]
    out += [
        ["python3", "tools/vcs.py", "status"],
        ["python3", "tools/vcs.py", "log", "-n", "60"],
        ["python3", "tools/vcs.py", "diff", "--stat"],
    ]
    return out


def plan(results: dict, rng: random.Random) -> list[dict]:
    """The session, one dict per span: what ran, who wrote it, and which attempt it retries."""
    events: list[dict] = []
    pending: list[tuple[int, int, list[str], int]] = []  # (due, parent index, argv, attempt)
    branched = False
    for i in range(TOTAL):
        due = [p for p in pending if p[0] <= i]
        if i == NULL_EXIT_AT:
            ev = {
                "writer": "tracetui",
                "argv": DEPLOY,
                "tool": "deploy",
                "note": "deploy a preview to staging",
            }
        elif i == HEAD_TAIL_AT:
            ev = {
                "writer": "tracetui",
                "argv": INTEGRATION,
                "tool": "pytest",
                "mode": "head_tail",
                "note": "run the integration suite; expect the webhook flake at most",
            }
        elif due:
            pending.remove(due[0])
            _, parent, argv, attempt = due[0]
            tool = {"test": "pytest", "build": "make", "lint": "ruff"}[argv[2]]
            ev = {
                "writer": "tracetui",
                "argv": argv,
                "tool": tool,
                "parent": parent,
                "attempt": attempt,
                "mode": "tail" if tool == "make" else "head",
                "note": f"retry {argv[2]} {argv[3]} (attempt {attempt}); expect it to pass now",
            }
        else:
            ev = _fresh(rng)
        events.append(ev)
        res = results[tuple(ev["argv"])]
        if ev["writer"] != "tracetui" or res.exit_code in (0, None) or ev["argv"] is INTEGRATION:
            continue
        attempt = ev.get("attempt", 1)
        if attempt >= 3 or rng.random() > 0.8:
            continue
        task, target = ev["argv"][2], ev["argv"][3]
        # A test is retried with one more --reruns; a build or lint with the same argv.
        nxt = step(task, target, attempt) if task == "test" else ev["argv"]
        pending.append((i + rng.randint(1, 12), i, nxt, attempt + 1))
        if not branched and i >= BRANCH_FROM:
            # The agent also retried the same attempt a second time: two children of one parent.
            branched = True
            pending.append((i + rng.randint(2, 6), i, nxt, attempt + 1))
    return events


def _fresh(rng: random.Random) -> dict:
    roll, target = rng.random(), rng.choice(TARGETS)
    if roll < 0.36:
        return {
            "writer": "tracetui",
            "argv": step("test", target),
            "tool": "pytest",
            "note": f"run {target} tests; expect pass",
        }
    if roll < 0.50:
        return {
            "writer": "tracetui",
            "argv": step("build", target),
            "tool": "make",
            "mode": "tail",
            "note": f"build {target}; expect a clean link",
        }
    if roll < 0.60:
        return {
            "writer": "tracetui",
            "argv": step("lint", target),
            "tool": "ruff",
            "note": f"lint {target} before committing",
        }
    if roll < 0.67:
        return {
            "writer": "tracetui",
            "argv": step("typecheck", target),
            "tool": "mypy",
            "note": f"typecheck {target}",
        }
    if roll < 0.90:
        coll = rng.choice(COLLECTIONS)
        argv = [
            "python3",
            "tools/api.py",
            "GET",
            f"/v1/{coll}",
            "--page",
            str(rng.choice((1, 2))),
            "--per-page",
            "40",
        ]
        if rng.random() < 0.15:
            argv = ["python3", "tools/api.py", "GET", "/v1/health"]
        return {"writer": "span", "argv": argv, "tool": "http"}
    sub = rng.choice([["status"], ["log", "-n", "60"], ["diff", "--stat"]])
    return {
        "writer": "feedback",
        "argv": ["python3", "tools/vcs.py", *sub],
        "note": f"vcs {sub[0]}",
    }


def build(run_dir: Path, ident: Callable[[str, int], str]) -> int:
    """Run the tools, lay out the session, rotate it into members and write them.

    Returns the writer's ``max_bytes`` the layout was rotated with.
    """
    results = kit.run_commands(run_dir, candidates())
    rng = random.Random(SEED)
    events = plan(results, rng)
    clock = kit.Clock("2026-11-01T22:05:00.000")
    lines: list[bytes] = []
    for i, ev in enumerate(events):
        if i == BAD_LINE_AT:
            # A writer killed mid-line leaves a fragment; the next writer starts a fresh line.
            cut = ident("rotated", 10_000).encode()
            lines.append(
                b'{"schema": "tracetui/1", "span_type": "tool", "command_id": "'
                + cut
                + b'", "argv": ["python3", "tools/st\n'
            )
        res, ms = results[tuple(ev["argv"])], rng.randrange(30, 9000)
        cid = ident("rotated", i)
        parent = ident("rotated", ev["parent"]) if "parent" in ev else None
        if ev["writer"] == "tracetui":
            rec = kit.tracetui_record(
                command_id=cid,
                parent=parent,
                tool_name=ev["tool"],
                argv=ev["argv"],
                started_at=clock.stamp(),
                duration_ms=ms,
                result=res,
                note=ev["note"],
                cap=4096,
                mode=ev.get("mode", "head"),
            )
        elif ev["writer"] == "span":
            rec = kit.span_dialect_record(
                tool_name=ev["tool"], argv=ev["argv"], result=res, cap=2048
            )
        else:
            rec = kit.feedback_record(
                command_id=cid,
                parent=None,
                argv=ev["argv"],
                started_at=clock.stamp(),
                duration_ms=ms,
                result=res,
                note=ev["note"],
            )
        lines.append(kit.line(rec))
        clock.advance(ms + rng.randrange(2000, 40000))
    # Where members break depends on every record's size, so a small change anywhere could lose
    # the chain that crosses from .2 into .1. Rather than hand-tune, take the first writer
    # max_bytes (1 KiB steps from 96 KiB) whose layout shows everything; it is deterministic.
    problems: list[str] = []
    for max_bytes in range(MAX_BYTES, 2 * MAX_BYTES, 1024):
        members, dropped = kit.rotate(lines, max_bytes, KEEP)
        problems = _check(members, dropped)
        if not problems:
            kit.write_members(run_dir, BASE, members, gz={3})
            return max_bytes
    raise AssertionError(f"rotated sample lost: {problems}")


def _check(members: list[list[bytes]], dropped: int) -> list[str]:
    """What the layout fails to show of what the sample is for (empty when all is there)."""
    if len(members) != KEEP + 1 or not dropped:
        return ["five members and dropped records"]
    where: dict[str, int] = {}
    recs: list[tuple[int, dict]] = []
    for number, chunk in zip(range(KEEP, -1, -1), members, strict=True):
        for raw in chunk:
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            recs.append((number, rec))
            if rec.get("command_id"):
                where[rec["command_id"]] = number
    spans = len(recs)
    parents = [
        (where.get(r.get("parent_command_id")), n) for n, r in recs if r.get("parent_command_id")
    ]
    kids: dict[str, int] = {}
    for _, r in recs:
        if r.get("parent_command_id"):
            kids[r["parent_command_id"]] = kids.get(r["parent_command_id"], 0) + 1
    problems = {
        "150+ spans": spans >= 150,
        "chain from .2 into .1": (2, 1) in parents,
        "parent rotated away": any(p is None for p, _ in parents),
        "a branch": 2 in kids.values(),
        "null exit": any(r.get("exit_code", 0) is None and r.get("error") for _, r in recs),
        "tail clip": any(r.get("stdout_clip") == "tail" for _, r in recs),
        "head_tail clip": any(r.get("stdout_clip") == "head_tail" for _, r in recs),
        "feedback marker": any("...truncated" in r.get("stdout_tail", "") for _, r in recs),
        "span dialect": any("returncode" in r for _, r in recs),
    }
    return [k for k, ok in problems.items() if not ok]
