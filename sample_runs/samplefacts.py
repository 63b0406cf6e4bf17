"""The expected facts of a sample run, read back from its files by the rules of SPEC §2–§4.

This is the answer key for ``tracetui summary --json``: it reads what was written (not what the
generator meant to write), so a bug in the generator shows up here too.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from tracetui.model.markers import find_marker

STREAMS = ("stdout", "stderr")


def member_files(run_dir: Path, base: str) -> list[Path]:
    """The members of one run in set order, oldest first: ``B.N … B.1, B`` (``.gz`` accepted)."""
    found: list[tuple[int, Path]] = []
    pattern = re.compile(re.escape(base) + r"(?:\.(\d+))?(?:\.gz)?$")
    for path in run_dir.iterdir():
        m = pattern.match(path.name)
        if m and path.is_file():
            found.append((int(m.group(1) or 0), path))
    return [p for _, p in sorted(found, key=lambda t: -t[0])]


def _dialect(rec: dict) -> str:
    if rec.get("schema") == "tracetui/1":
        return "tracetui"
    if "command" in rec and ("stdout_tail" in rec or "exit_code" in rec):
        return "feedback"
    return "span"


def _stream_facts(rec: dict, dialect: str, s: str) -> tuple[bool, int | None]:
    """(truncated, hidden bytes or None when unknown) for one stream, judged from evidence."""
    if dialect == "feedback":
        return find_marker(rec.get(f"{s}_tail") or "") is not None, None
    size, cap = rec.get(f"{s}_bytes"), rec.get(f"{s}_cap")
    over = isinstance(size, int) and isinstance(cap, int) and size > cap
    marked = find_marker(rec.get(f"preview_{s}") or "") is not None
    truncated = rec.get(f"{s}_truncated") is True or over or marked
    if not truncated:
        return False, 0
    head, tail = rec.get(f"{s}_head_bytes"), rec.get(f"{s}_tail_bytes")
    if isinstance(head, int) or isinstance(tail, int):
        return True, size - (head or 0) - (tail or 0)
    return True, size - cap if over else 0


def run_facts(run_dir: Path, base: str = "feedback_record.jsonl") -> dict:
    """The facts ``tracetui summary --json`` reports for one run (plus a few extra keys)."""
    files = member_files(run_dir, base)
    spans: list[dict] = []
    bad: list[dict] = []
    for path in files:
        raw = path.read_bytes()
        if path.suffix == ".gz":
            raw = gzip.decompress(raw)
        for number, text in enumerate(raw.split(b"\n"), 1):
            if not text.strip():
                continue
            try:
                rec = json.loads(text)
            except ValueError as exc:
                bad.append({"file": path.name, "line": number, "error": str(exc)})
                continue
            if not isinstance(rec, dict):
                bad.append({"file": path.name, "line": number, "error": "not a JSON object"})
                continue
            spans.append({"rec": rec, "file": path.name, "line": number})
    failed = truncated = hidden = unknown = 0
    latest = None
    for span in spans:
        rec = span["rec"]
        dialect = _dialect(rec)
        code = rec.get("returncode") if dialect == "span" else rec.get("exit_code")
        if code != 0:
            failed += 1
            latest = {
                "command_id": rec.get("command_id"),
                "argv": rec.get("command") if dialect == "feedback" else rec.get("argv"),
                "exit_code": code,
                "file": span["file"],
                "line": span["line"],
            }
        per = [_stream_facts(rec, dialect, s) for s in STREAMS]
        truncated += any(t for t, _ in per)
        if dialect == "feedback":
            unknown += 1
        else:
            hidden += sum(h or 0 for _, h in per)
    chains, orphans = _chains([s["rec"] for s in spans])
    return {
        "files": [p.name for p in files],
        "spans": len(spans),
        "bad_lines": bad,
        "failed": failed,
        "truncated": truncated,
        "hidden_bytes": hidden,
        "hidden_bytes_unknown_spans": unknown,
        "latest_failure": latest,
        "chains": chains,
        "parents_not_in_set": orphans,
    }


def _chains(recs: list[dict]) -> tuple[list[dict], list[str]]:
    """Retry trees of 2+ attempts (attempts in set order) and the ids whose parent is missing."""
    ids = {r["command_id"]: r for r in recs if r.get("command_id")}
    orphans = [
        i
        for i, r in ids.items()
        if r.get("parent_command_id") and r["parent_command_id"] not in ids
    ]

    def root_of(cid: str) -> str:
        seen = set()
        while ids[cid].get("parent_command_id") in ids and cid not in seen:
            seen.add(cid)
            cid = ids[cid]["parent_command_id"]
        return cid

    trees: dict[str, list[str]] = {}
    for cid in ids:  # dict order is set order
        trees.setdefault(root_of(cid), []).append(cid)
    chains = [
        {"root": root, "attempts": attempts, "final_exit_code": ids[attempts[-1]].get("exit_code")}
        for root, attempts in trees.items()
        if len(attempts) >= 2
    ]
    return chains, orphans
