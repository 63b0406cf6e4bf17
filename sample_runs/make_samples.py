"""Generate tracetui's three bundled sample runs by really running the small tools in ``tools/``.

    python3 sample_runs/make_samples.py            # rewrite the committed runs in place
    python3 sample_runs/make_samples.py --out DIR  # write them elsewhere (the tests do this)
    python3 sample_runs/make_samples.py --facts    # print the expected facts of each run as JSON

Deterministic: fixed timestamps, ids and seeds, and tools whose output is a pure function of
their argv, so running it twice gives byte-identical files. Every record's argv starts with
``python3`` and has cwd ``"."``: the viewer resolves it against the run's folder, where the tools
the run uses are copied. See docs/sample-runs.md for what each run shows.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import samplefacts  # noqa: E402
import samplekit as kit  # noqa: E402
import samplerotated  # noqa: E402

BASE = "feedback_record.jsonl"
KEPT = BASE + ".kept"
"""The kept-output store of flaky-billing (only that run keeps its streams)."""
SUITE = ["python3", "tools/billing_suite.py", "tests/billing", "-q"]
FAILING_TEST = "tests/billing/test_subscriptions.py::test_upgrade_mid_cycle_prorates_to_the_cent"
RUNS = {
    "flaky-billing": [
        "billing_suite.py",
        "vcs.py",
        "ls_tree.py",
        "lint_billing.py",
        "build_dist.py",
    ],
    "silent-json": ["list_customers.py", "list_invoices.py", "send_reminders.py"],
    "rotated": ["step.py", "api.py", "vcs.py"],
}


def ident(run: str, n: int) -> str:
    """A fixed command id that looks like a real one."""
    return "cmd_" + hashlib.sha256(f"{run}:{n}".encode()).hexdigest()[:12]


def prepare(out: Path, run: str) -> Path:
    """A fresh run folder holding copies of the tools its records point at."""
    run_dir = out / run
    (run_dir / "tools").mkdir(parents=True, exist_ok=True)
    for old in samplefacts.member_files(run_dir, BASE):  # only members: leave e.g. re-run logs
        old.unlink()
    shutil.rmtree(run_dir / KEPT, ignore_errors=True)
    for name in RUNS[run]:
        src, dst = HERE / "tools" / name, run_dir / "tools" / name
        if src.resolve() != dst.resolve():
            shutil.copyfile(src, dst)
    return run_dir


def flaky_billing(out: Path) -> None:
    """A billing suite failing past an 8 KiB head cap, retried twice, "fixed" by deselection."""
    run_dir = prepare(out, "flaky-billing")
    fixed = [*SUITE, "--deselect", FAILING_TEST]
    # (label, parent label, tool name, argv, duration ms, agent note)
    steps = [
        (
            "status",
            None,
            "git",
            ["python3", "tools/vcs.py", "status"],
            41,
            "check the working tree before touching billing",
        ),
        (
            "ls",
            None,
            "ls",
            ["python3", "tools/ls_tree.py", "src/billing"],
            12,
            "find where proration and the clock helpers live",
        ),
        ("a1", None, "pytest", SUITE, 42310, "run the billing suite; expect the BILL-4412 failure"),
        (
            "lint",
            None,
            "ruff",
            ["python3", "tools/lint_billing.py", "src/billing"],
            388,
            "lint billing; expect only the utcnow warning",
        ),
        (
            "diff",
            None,
            "git",
            ["python3", "tools/vcs.py", "diff"],
            35,
            "confirm the tz fix in clock.py is the only change",
        ),
        ("a2", "a1", "pytest", SUITE, 42187, "expect green after fixing tz"),
        (
            "a3",
            "a2",
            "pytest",
            fixed,
            41402,
            "expect green: deselect the proration test, it only fails in the Berlin tz variant",
        ),
        (
            "stat",
            None,
            "git",
            ["python3", "tools/vcs.py", "diff", "--stat"],
            30,
            "check the change set before building",
        ),
        (
            "build",
            None,
            "build",
            ["python3", "tools/build_dist.py", "--sdist", "--wheel"],
            9120,
            "build sdist and wheel for the hotfix release",
        ),
        (
            "log",
            None,
            "git",
            ["python3", "tools/vcs.py", "log", "-n", "5"],
            28,
            "note the last commits for the release notes",
        ),
    ]
    results = kit.run_commands(run_dir, [s[3] for s in steps])
    clock, rng, ids, lines = kit.Clock("2026-11-02T09:14:03.120"), random.Random(4412), {}, []
    for n, (label, parent, tool, argv, ms, note) in enumerate(steps):
        ids[label] = ident("flaky-billing", n)
        rec = kit.tracetui_record(
            command_id=ids[label],
            parent=ids.get(parent),
            tool_name=tool,
            argv=argv,
            started_at=clock.stamp(),
            duration_ms=ms,
            result=results[tuple(argv)],
            note=note,
        )
        kit.keep_streams(run_dir / BASE, rec, results[tuple(argv)])
        lines.append(kit.line(rec))
        clock.advance(ms + rng.randrange(4000, 60000))
    (run_dir / BASE).write_bytes(b"".join(lines))
    (run_dir / KEPT / "lock").unlink()  # made by the first writer that needs it


def repaired(stdout: bytes, keep: int) -> bytes:
    """What a framework shows after cutting a JSON list mid-record: ``keep`` items, closed up."""
    text = stdout.decode("utf-8")
    decoder = json.JSONDecoder()
    pos = text.index("[", text.index('"data"')) + 1
    for _ in range(keep):
        pos = decoder.raw_decode(text, text.index("{", pos))[1]
    return (text[:pos] + "\n  ]\n}\n").encode("utf-8")


def silent_json(out: Path) -> None:
    """50 invoices at the source, 20 seen: recorded honestly, and once more by a lying collector."""
    run_dir = prepare(out, "silent-json")
    customers = ["python3", "tools/list_customers.py", "--limit", "5"]
    invoices = ["python3", "tools/list_invoices.py", "--status", "open", "--limit", "50"]
    results = kit.run_commands(run_dir, [customers, invoices])
    shown = repaired(results[tuple(invoices)].stdout, 20)
    seen_ids = [item["id"] for item in json.loads(shown)["data"]]
    reminders = ["python3", "tools/send_reminders.py", "--template", "overdue-friendly", *seen_ids]
    results.update(kit.run_commands(run_dir, [reminders]))
    clock = kit.Clock("2026-11-02T11:02:47.310")
    lines = []
    steps = [
        (customers, "api", 640, "look up customers with open balances"),
        (invoices, "api", 1210, "fetch every open invoice (expect about 50) for reminders"),
        (reminders, "reminders", 2304, "queue reminders for all open invoices"),
    ]
    for n, (argv, tool, ms, note) in enumerate(steps):
        rec = kit.tracetui_record(
            command_id=ident("silent-json", n),
            parent=None,
            tool_name=tool,
            argv=argv,
            started_at=clock.stamp(),
            duration_ms=ms,
            result=results[tuple(argv)],
            note=note,
        )
        lines.append(kit.line(rec))
        if argv is invoices:
            # The agent framework's own collector saw the same call: it cut at 8 KiB, closed the
            # brackets and wrote flags that say nothing was withheld.
            lines.append(
                kit.line(
                    kit.span_dialect_record(
                        tool_name="list_invoices",
                        argv=invoices,
                        result=results[tuple(invoices)],
                        cap=8192,
                        shown=shown,
                        lie=True,
                    )
                )
            )
        clock.advance(ms + 9000 + 2000 * n)
    (run_dir / BASE).write_bytes(b"".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE, help="where to write the runs")
    parser.add_argument("--facts", action="store_true", help="print the expected facts as JSON")
    args = parser.parse_args(argv)
    if args.facts:
        facts = {run: samplefacts.run_facts(args.out / run, BASE) for run in RUNS}
        print(json.dumps(facts, indent=2, ensure_ascii=False))
        return 0
    flaky_billing(args.out)
    silent_json(args.out)
    max_bytes = samplerotated.build(prepare(args.out, "rotated"), ident)
    # Diagnostics on stderr: stdout stays free for --facts.
    print(
        f"wrote {', '.join(RUNS)} under {args.out} (rotated with max_bytes={max_bytes})",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
