"""Generate a realistic large rotated run for the benchmarks (default ~1 GB, ~1,000,000 spans).

Five members (``B.4 … B.1, B``), mostly tracetui/1 records with some truncation-span and
feedback-record dialect lines, varied output sizes (most previews small, some at an 8 KiB cap),
about 8% failures, 15% truncations, retry chains that cross members, and a few bad lines.
Deterministic for a given seed. Usage: ``python benchmarks/make_big_set.py [--spans N] [--out DIR]``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import time

import orjson

WORDS = [
    "test_invoice_total",
    "test_refund_flow",
    "test_currency_rounding",
    "PASSED",
    "FAILED",
    "ok",
    "error",
    "warning",
    "billing/api.py:212",
    "assert",
    "expected",
    "got",
    "Decimal('10.00')",
    "Traceback",
    "(most",
    "recent",
    "call",
    "last)",
    "collected",
    "items",
    "deprecated",
    "ms",
    "s",
    "timeout",
    "retry",
    "connection",
    "ledger",
    "entry",
]
MARKER = "\n…[truncated {n} bytes]…\n"


_CORPUS: list[str] = []


def text(rng: random.Random, size: int) -> str:
    # Slices of one pre-built corpus: realistic words, and generation stays fast for 1M records.
    if not _CORPUS:
        lines = [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14))) for _ in range(20000)
        ]
        _CORPUS.append("\n".join(lines))
    corpus = _CORPUS[0]
    start = rng.randrange(0, len(corpus) - size - 1)
    return corpus[start : start + size]


def record(rng: random.Random, i: int, parent: str | None, t0: float) -> dict:
    cid = f"c{i:08d}"
    size = min(60000, int(rng.lognormvariate(5.2, 1.0)))  # median ~180 bytes, long tail
    total = size if rng.random() > 0.15 else size + rng.randint(9000, 60000)
    cap = 8192
    truncated = total > cap
    shown = min(size, cap)
    preview = text(rng, shown)
    if truncated:
        preview += MARKER.format(n=total - shown)
    failed = rng.random() < 0.08
    exit_code = (1 if rng.random() < 0.9 else None) if failed else 0
    started = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t0 + i * 0.5)) + "Z"
    digest = hashlib.sha256(preview.encode()).hexdigest()
    dialect = rng.random()
    if dialect < 0.05:
        return {
            "command": ["make", "test", f"SHARD={i % 8}"],
            "stdout_tail": preview[-2000:],
            "stderr_tail": "",
            "exit_code": exit_code,
            "error": None if exit_code is not None else "runner died",
            "duration_ms": rng.randint(5, 9000),
            "started_at": started,
            "agent_note": "expect green",
            "command_id": cid,
            "parent_command_id": parent,
        }
    if dialect < 0.10:
        return {
            "span_type": "tool",
            "tool_name": "pytest",
            "argv": ["pytest", "-q", f"tests/t{i % 50}.py"],
            "cwd": ".",
            "returncode": exit_code if exit_code is not None else 1,
            "preview_stdout": preview[:512],
            "preview_stderr": "",
            "stdout_bytes": total,
            "stdout_cap": cap,
            "stdout_truncated": truncated,
            "stderr_bytes": 0,
            "stderr_cap": cap,
            "stderr_truncated": False,
            "stdout_sha256": None if truncated else digest,
            "stderr_sha256": None,
            "stdout_head_sha256": digest,
            "stdout_tail_sha256": digest,
            "encoding": "utf-8",
            "ok_preview": exit_code == 0 and not truncated,
            "command_id": cid,
            "parent_command_id": parent,
        }
    return {
        "schema": "tracetui/1",
        "span_type": "tool",
        "command_id": cid,
        "parent_command_id": parent,
        "tool_name": "pytest",
        "argv": ["python3", "-m", "pytest", "-q", f"tests/test_{i % 97}.py"],
        "cwd": ".",
        "started_at": started,
        "duration_ms": rng.randint(5, 90000),
        "exit_code": exit_code,
        "error": None if exit_code is not None else "killed by the runner",
        "agent_note": "expect the refund path to pass" if parent else None,
        "stdout_bytes": total,
        "stdout_cap": cap,
        "stdout_truncated": truncated,
        "stdout_clip": "head" if truncated else None,
        "stdout_sha256": None if truncated else digest,
        "stdout_full_sha256": digest,
        "stdout_head_sha256": digest if truncated else None,
        "stdout_head_bytes": shown if truncated else None,
        "stdout_tail_sha256": None,
        "stdout_tail_bytes": None,
        "preview_stdout": preview,
        "stderr_bytes": 0,
        "stderr_cap": cap,
        "stderr_truncated": False,
        "stderr_clip": None,
        "stderr_sha256": hashlib.sha256(b"").hexdigest(),
        "stderr_full_sha256": hashlib.sha256(b"").hexdigest(),
        "preview_stderr": "",
        "encoding": "utf-8",
        "ok_preview": exit_code == 0 and not truncated,
        "redacted": 0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--spans", type=int, default=1_000_000)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "data", "big"))
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    base = os.path.join(args.out, "feedback_record.jsonl")
    names = [f"{base}.{n}" for n in range(4, 0, -1)] + [base]
    per = args.spans // len(names)
    t0 = 1_790_000_000.0
    i = 0
    last_failed: list[str] = []
    for m, name in enumerate(names):
        with open(name, "wb") as fh:
            count = per if m < len(names) - 1 else args.spans - per * (len(names) - 1)
            for _ in range(count):
                parent = last_failed.pop() if last_failed and rng.random() < 0.5 else None
                rec = record(rng, i, parent, t0)
                if rec.get("exit_code", rec.get("returncode")) not in (0,):
                    last_failed.append(rec["command_id"])
                fh.write(orjson.dumps(rec) + b"\n")
                if i % 250_000 == 17:
                    fh.write(
                        b'{"schema": "tracetui/1", "argv": ["oops"\n'
                    )  # a writer died mid-line
                i += 1
    total = sum(os.path.getsize(n) for n in names)
    print(f"{args.spans:,} spans, {total / 1e9:.2f} GB in {args.out}")


if __name__ == "__main__":
    main()
