"""export --otlp-http: a loopback receiver decodes every request with the official schema.

The receiver (http.server on 127.0.0.1:0, in a thread) gunzips when asked, decodes protobuf
with opentelemetry-proto's ExportTraceServiceRequest (JSON strictly through protobuf's own
parser), and answers from a script: the tests set what each request gets back. The command
runs in-process with the sender's ``sleep`` replaced, so waits are recorded, not slept
(tests/otlp_receiver.py). Here: what arrives, and how it is batched; retries and answers in
test_export_otlp_http_retries.py, settings and usage errors in test_export_otlp_http_settings.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from otlp_receiver import PROTO, SAMPLE, Script, export, file_export, quiet, serve
from records import tool


@pytest.fixture
def receiver() -> Iterator[tuple[str, Script]]:
    yield from serve()


@pytest.fixture(autouse=True)
def quiet_env(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    return quiet(monkeypatch)


ENCODINGS = [
    ("protobuf", ["--protocol", "http/protobuf"], PROTO, None),
    ("protobuf-gzip", ["--gzip"], PROTO, "gzip"),
    ("json", ["--protocol", "http/json"], "application/json", None),
    ("json-gzip", ["--protocol", "http/json", "--gzip"], "application/json", "gzip"),
]


@pytest.mark.parametrize(
    ("extra", "ctype", "encoding"), [c[1:] for c in ENCODINGS], ids=[c[0] for c in ENCODINGS]
)
def test_every_field_arrives_as_the_file_holds_it(
    receiver: tuple[str, Script],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    ctype: str,
    encoding: str | None,
) -> None:
    url, script = receiver
    want = file_export(tmp_path, SAMPLE)
    capsys.readouterr()
    code, err = export(capsys, SAMPLE, "--otlp-http", url, *extra)
    assert (code, err) == (0, f"tracetui: 10 spans sent to {url}/v1/traces in 1 request\n")
    (got,) = script.got
    assert got.path == "/v1/traces"
    assert got.headers["content-type"] == ctype
    assert got.headers.get("content-encoding") == encoding
    assert got.headers["user-agent"].startswith("tracetui/")
    assert got.message == want  # ids, times, attributes, links, status: all of it


@pytest.mark.parametrize(
    ("extra", "ctype", "encoding"), [c[1:] for c in ENCODINGS], ids=[c[0] for c in ENCODINGS]
)
def test_a_hostile_run_arrives_as_the_file_holds_it(
    receiver: tuple[str, Script],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    extra: list[str],
    ctype: str,
    encoding: str | None,
) -> None:
    """Odd types, escapes, unsafe characters, markers, links: the fast path's spans, decoded
    with the official schema, are the file's (the file is the reference writer's bytes)."""
    odd: list[dict[str, Any]] = [
        {"exit_code": 2**63 - 1, "redacted": 3.0, "duration_ms": 1e300},
        {"tool_name": "a\u202eb\x85\x7f\U000e0041", "cwd": "\u200b", "agent_note": "é漢"},
        {"preview_stdout": "x\n…[truncated 808 bytes]…\n", "stdout_bytes": None},
        {"preview_stderr": "<response clipped><NOTE>Observations", "stderr_truncated": None},
        {"stdout_bytes": 2**62, "stdout_cap": 1, "stdout_truncated": True, "stdout_clip": "mid"},
        {"started_at": None, "exit_code": None, "error": "cannot start"},
        {"started_at": " 2026-11-02T09:00:00.5+05:30 ", "exit_code": -9},
        {"argv": ["/usr/bin/env", 1], "tool_name": None, "ok_preview": "yes"},
        {"kind": "submission", "command_id": 7},
    ]
    records: list[Any] = []
    for i in range(120):
        fields = odd[i % len(odd)] if i % 3 else {}
        parent = f"h{i - 1}" if i % 4 == 1 else ("gone" if i % 4 == 2 else None)
        records.append(tool(f"h{i}", parent_command_id=parent, **fields))
        if i % 10 == 0:
            records.append({"command": ["make"], "stdout_tail": "…[truncated 9 bytes]…"})
            records.append({"span_type": "tool", "argv": ["pytest"], "returncode": 3})
    run = tmp_path / "H.jsonl"
    run.write_bytes(b"".join((json.dumps(r) + "\n").encode() for r in records) + b"{bad\n")
    url, script = receiver
    want = file_export(tmp_path, str(run))
    capsys.readouterr()
    code, _ = export(capsys, str(run), "--otlp-http", url, "--batch-spans", "100", *extra)
    assert code == 0
    assert [g.headers["content-type"] for g in script.got] == [ctype] * len(script.got)
    assert {g.headers.get("content-encoding") for g in script.got} == {encoding}
    spans = [s for g in script.got for s in g.message.resource_spans[0].scope_spans[0].spans]
    assert len(script.got) > 1
    assert spans == list(want.resource_spans[0].scope_spans[0].spans)


def many(make_run: Any, name: str, n: int) -> str:
    records = [tool(f"{name}{i}", argv=["echo", "x" * 40], exit_code=i % 3) for i in range(n)]
    return str(make_run({"B.jsonl": records}, folder=name) / "B.jsonl")


BATCHES = [
    ("one-per-request", 7, ["--batch-spans", "1"], [[1]] * 7),
    ("uneven", 7, ["--batch-spans", "3"], [[3], [3], [1]]),
    ("exact", 6, ["--batch-spans", "3"], [[3], [3]]),
    ("all-in-one", 7, ["--batch-spans", "7"], [[7]]),
    ("more-room-than-spans", 7, ["--batch-spans", "8"], [[7]]),
    ("a-span-over-the-byte-limit-goes-alone", 3, ["--batch-bytes", "10"], [[1], [1], [1]]),
]


@pytest.mark.parametrize(
    ("n", "extra", "want"), [c[1:] for c in BATCHES], ids=[c[0] for c in BATCHES]
)
def test_batching_boundaries(
    receiver: tuple[str, Script],
    make_run: Any,
    capsys: pytest.CaptureFixture[str],
    n: int,
    extra: list[str],
    want: list[list[int]],
) -> None:
    url, script = receiver
    code, err = export(capsys, many(make_run, "r", n), "--otlp-http", url, *extra)
    assert code == 0, err
    assert [g.counts for g in script.got] == want
    ids = [s.span_id for g in script.got for s in g.message.resource_spans[0].scope_spans[0].spans]
    assert len(set(ids)) == n  # each span once, none lost at a boundary


@pytest.mark.parametrize("protocol", ["http/protobuf", "http/json"])
def test_bytes_bound_packs_requests_under_the_limit(
    receiver: tuple[str, Script],
    make_run: Any,
    capsys: pytest.CaptureFixture[str],
    protocol: str,
) -> None:
    url, script = receiver
    run = many(make_run, "r", 9)  # r0…r8: three alike triples of spans (exit 0, 1, 2)
    assert (
        export(capsys, run, "--otlp-http", url, "--protocol", protocol, "--batch-spans", "1")[0]
        == 0
    )
    alone = [len(g.raw) for g in script.got]
    # Three one-span requests hold three spans and three wrappings: room for three spans in one.
    limit = sum(alone[:3])
    script.got.clear()
    code, err = export(
        capsys, run, "--otlp-http", url, "--protocol", protocol, "--batch-bytes", str(limit)
    )
    assert code == 0, err
    assert [g.counts for g in script.got] == [[3], [3], [3]]
    assert all(len(g.raw) <= limit for g in script.got)


def test_runs_stay_apart_as_resources_in_one_request(
    receiver: tuple[str, Script], make_run: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    url, script = receiver
    a, b = many(make_run, "a", 2), many(make_run, "b", 3)
    code, err = export(capsys, a, b, "--otlp-http", url, "--batch-spans", "4")
    assert code == 0, err
    assert [g.counts for g in script.got] == [[2, 2], [1]]
    runs = [
        [kv.value.string_value for kv in rs.resource.attributes if kv.key == "tracetui.run"]
        for g in script.got
        for rs in g.message.resource_spans
    ]
    assert runs[0] != runs[1] and runs[1] == runs[2]
