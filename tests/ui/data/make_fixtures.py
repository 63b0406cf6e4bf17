"""Write the viewer's fixed test runs (deterministic: run it again and nothing changes).

``flaky/`` is a rotated run (``feedback_record.jsonl.1`` then ``feedback_record.jsonl``) with a
retry chain that branches, a missing parent, a bad line, a feedback-record span with no byte
counts, a truncation-span record, a span full of escape sequences, and a latest failure that
is not the last row. ``multi/`` holds two runs, for the run picker.

    python tests/ui/data/make_fixtures.py
"""

from __future__ import annotations

import hashlib
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MARK = "\n…[truncated {n} bytes]…\n"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def pytest_output(lines: int, failing: str) -> str:
    out = ["============================= test session starts =============================="]
    out += [f"tests/billing/test_invoice_{i:03d}.py::test_total PASSED" for i in range(lines)]
    out += [
        "=================================== FAILURES ===================================",
        f"___________________________ {failing} ___________________________",
        "    assert round_half_even(Decimal('2.675'), 2) == Decimal('2.68')",
        "E   AssertionError: assert Decimal('2.67') == Decimal('2.68')",
        "=========================== 1 failed, 250 passed ===========================",
    ]
    return "\n".join(out) + "\n"


def stream(s: str, text: str, cap: int | None, clip: str = "head") -> dict:
    n = len(text.encode())
    cut = cap is not None and n > cap
    d = {
        f"{s}_bytes": n,
        f"{s}_cap": cap,
        f"{s}_truncated": cut,
        f"{s}_clip": clip if cut else None,
        f"{s}_sha256": None if cut else sha(text),
        f"{s}_full_sha256": sha(text),
    }
    if not cut:
        d[f"preview_{s}"] = text
        return d
    raw = text.encode()
    if clip == "head":
        head, tail = raw[:cap], b""
    elif clip == "tail":
        head, tail = b"", raw[-cap:]
    else:
        head, tail = raw[: cap // 2], raw[-(cap - cap // 2) :]
    hidden = n - len(head) - len(tail)
    d[f"preview_{s}"] = (
        head.decode(errors="replace") + MARK.format(n=hidden) + tail.decode(errors="replace")
    )
    if head:
        d[f"{s}_head_sha256"], d[f"{s}_head_bytes"] = hashlib.sha256(head).hexdigest(), len(head)
    if tail:
        d[f"{s}_tail_sha256"], d[f"{s}_tail_bytes"] = hashlib.sha256(tail).hexdigest(), len(tail)
    return d


def rec(
    cid: str,
    argv: list[str],
    exit_code: int | None,
    when: str,
    ms: float,
    *,
    out: str = "",
    err: str = "",
    cap: int | None = 8192,
    clip: str = "head",
    parent: str | None = None,
    note: str | None = None,
    cwd: str = "/srv/billing",
    **extra: object,
) -> dict:
    d: dict = {
        "schema": "tracetui/1",
        "span_type": "tool",
        "command_id": cid,
        "parent_command_id": parent,
        "tool_name": os.path.basename(argv[0]),
        "argv": argv,
        "cwd": cwd,
        "started_at": f"2026-03-14T{when}Z",
        "duration_ms": ms,
        "exit_code": exit_code,
        "error": None,
        "agent_note": note,
        "encoding": "utf-8",
    }
    d.update(stream("stdout", out, cap, clip))
    d.update(stream("stderr", err, cap, clip))
    d["ok_preview"] = exit_code == 0 and not d["stdout_truncated"] and not d["stderr_truncated"]
    d["redacted"] = 0
    d.update(extra)
    return d


def invoices_json(n: int) -> str:
    return json.dumps(
        {"data": [{"id": f"inv_{i:04d}", "total": 100 + i} for i in range(n)]}, indent=1
    )


def flaky() -> tuple[list[object], list[object]]:
    pytest_cmd = ["python", "-m", "pytest", "tests/billing", "-x", "-q"]
    old = [
        rec(
            "0001-a1b2c3d4",
            ["git", "status", "--short"],
            0,
            "09:00:01.120",
            41,
            out=" M billing/rounding.py\n",
        ),
        rec(
            "0002-a1b2c3d4",
            pytest_cmd,
            1,
            "09:00:05.000",
            14210,
            out=pytest_output(250, "test_round_half_even"),
            note="expect the rounding fix to pass",
        ),
        rec(
            "0003-a1b2c3d4",
            pytest_cmd,
            1,
            "09:01:10.500",
            13980,
            out=pytest_output(250, "test_round_half_even"),
            parent="0002-a1b2c3d4",
            note="retry: maybe flaky",
        ),
        {
            "span_type": "tool",
            "tool_name": "ls",
            "argv": ["ls", "-R", "src"],
            "cwd": "/srv/app",
            "returncode": 0,
            "preview_stdout": "\n".join(f"src/mod_{i}.py" for i in range(40)),
            "preview_stderr": "",
            "stdout_bytes": 20480,
            "stderr_bytes": 0,
            "stdout_cap": 4096,
            "stderr_cap": 4096,
            "stdout_truncated": True,
            "stderr_truncated": False,
            "stdout_sha256": None,
            "stderr_sha256": sha(""),
            "stdout_head_sha256": sha("x"),
            "stdout_tail_sha256": sha("y"),
            "encoding": "utf-8",
            "ok_preview": False,
        },
    ]
    new: list[object] = [
        '{"schema": "tracetui/1", "argv": ["python", "-m", "pyt',
        rec(
            "0005-a1b2c3d4",
            pytest_cmd,
            0,
            "09:02:30.000",
            12877,
            out="250 passed in 12.8s\n",
            parent="0003-a1b2c3d4",
            note="pinned decimal context",
            cwd="repo",
        ),
        rec(
            "0006-a1b2c3d4",
            [*pytest_cmd, "--lf"],
            2,
            "09:02:45.000",
            900,
            err="ERROR: usage: unrecognized arguments\n",
            parent="0003-a1b2c3d4",
        ),
        rec(
            "0007-a1b2c3d4",
            ["curl", "-s", "http://localhost:8080/api/invoices"],
            0,
            "09:03:00.250",
            310,
            out=invoices_json(50),
            cap=1500,
            parent="zz-rotated-away",
            stdout_items=50,
            preview_stdout_items=20,
            note="list every open invoice",
        ),
        {
            "command": ["make", "build"],
            "stdout_tail": "cc -O2 -c billing.c\n...truncated 212 lines...\nld: done\n",
            "stderr_tail": "",
            "exit_code": None,
            "error": "runner timed out after 600 s",
            "duration_ms": 600000,
            "started_at": "2026-03-14T09:04:00.000Z",
            "agent_note": "build it",
            "command_id": "fb-0008",
        },
        rec(
            "0009-a1b2c3d4",
            ["echo", "\x1b]0;pwned\x07"],
            0,
            "09:05:00.000",
            3,
            out="hello \x1b]52;c;aGVsbG8=\x07 world \x1b[2J\x1b[H done\n",
            note="title \x1b]0;pwned\x07 here",
        ),
        rec(
            "0010-a1b2c3d4",
            ["python", "-m", "pytest", "tests/billing/test_rounding.py"],
            1,
            "09:06:00.000",
            3050,
            out=pytest_output(120, "test_round_half_even"),
            cap=2048,
            clip="head_tail",
            note="only the rounding tests",
        ),
        rec(
            "0011-a1b2c3d4",
            ["git", "diff", "--stat"],
            0,
            "09:06:30.000",
            25,
            out=" billing/rounding.py | 4 ++--\n",
        ),
    ]
    return old, new


def write(path: str, records: list[object]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for r in records:
            fh.write((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n")


def main() -> None:
    old, new = flaky()
    write(os.path.join(HERE, "flaky", "feedback_record.jsonl.1"), old)
    write(os.path.join(HERE, "flaky", "feedback_record.jsonl"), new)
    for name, code in (("alpha", 0), ("beta", 1)):
        write(
            os.path.join(HERE, "multi", f"{name}.jsonl"),
            [
                rec(f"{name}-1", ["true"], 0, "10:00:00.000", 1),
                rec(f"{name}-2", ["make", name], code, "10:00:01.000", 2),
            ],
        )


if __name__ == "__main__":
    main()
