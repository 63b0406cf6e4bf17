"""The bundled sample runs: they never drift from their generator, and they show what they claim.

The generator really runs the tools, so regenerating takes a couple of seconds; it is done once
per module. The numbers asserted here are the ones docs/sample-runs.md publishes.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "sample_runs"
sys.path.insert(0, str(SAMPLES))

import make_samples  # noqa: E402
import samplefacts  # noqa: E402

BASE = "feedback_record.jsonl"
RUNS = ("flaky-billing", "silent-json", "rotated")


def _files(root: Path) -> dict[str, bytes]:
    """Every generated file of the runs (members and tools), by relative path; gzip members are
    compared decompressed (zlib builds may compress differently, the content must not).

    Other files are ignored: e.g. ``tracetui rerun`` keeps a re-run log next to a trace.
    """
    out = {}
    for run in RUNS:
        paths = samplefacts.member_files(root / run, BASE)
        paths += sorted((root / run / "tools").glob("*.py"))
        for path in paths:
            data = path.read_bytes()
            data = gzip.decompress(data) if path.suffix == ".gz" else data
            out[str(path.relative_to(root))] = data
    return out


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("samples")
    assert make_samples.main(["--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def facts() -> dict[str, dict]:
    return {run: samplefacts.run_facts(SAMPLES / run, BASE) for run in RUNS}


def _records(run: str) -> list[tuple[str, int, dict]]:
    out = []
    for path in samplefacts.member_files(SAMPLES / run, BASE):
        raw = path.read_bytes()
        raw = gzip.decompress(raw) if path.suffix == ".gz" else raw
        for number, text in enumerate(raw.splitlines(), 1):
            with contextlib.suppress(ValueError):  # a bad line is not a record
                out.append((path.name, number, json.loads(text)))
    return out


def test_regenerated_files_are_identical(regenerated: Path) -> None:
    committed, fresh = _files(SAMPLES), _files(regenerated)
    assert sorted(fresh) == sorted(committed)
    drifted = [name for name in committed if committed[name] != fresh[name]]
    assert drifted == []


def test_gzip_member_is_reproducible() -> None:
    data = (SAMPLES / "rotated" / f"{BASE}.3.gz").read_bytes()
    assert data[:2] == b"\x1f\x8b"
    assert data[4:8] == b"\0\0\0\0"  # mtime 0: no build time leaks into the archive


@pytest.mark.parametrize(
    ("run", "files", "spans", "bad", "failed", "truncated", "hidden", "unknown", "n_chains"),
    [
        ("flaky-billing", [BASE], 10, 0, 3, 3, 46281, 0, 1),
        ("silent-json", [BASE], 4, 0, 0, 2, 23078, 0, 0),
        (
            "rotated",
            [f"{BASE}.4", f"{BASE}.3.gz", f"{BASE}.2", f"{BASE}.1", BASE],
            163,
            1,
            23,
            54,
            107669,
            14,
            11,
        ),
    ],
    ids=RUNS,
)
def test_published_facts(
    facts: dict,
    run: str,
    files: list[str],
    spans: int,
    bad: int,
    failed: int,
    truncated: int,
    hidden: int,
    unknown: int,
    n_chains: int,
) -> None:
    got = facts[run]
    assert got["files"] == files
    assert (got["spans"], len(got["bad_lines"]), got["failed"], got["truncated"]) == (
        spans,
        bad,
        failed,
        truncated,
    )
    assert (got["hidden_bytes"], got["hidden_bytes_unknown_spans"]) == (hidden, unknown)
    assert len(got["chains"]) == n_chains


@pytest.mark.parametrize(
    ("run", "latest"),
    [
        ("flaky-billing", (BASE, 6, 1)),
        ("silent-json", None),
        ("rotated", (f"{BASE}.1", 40, 1)),
    ],
    ids=RUNS,
)
def test_latest_failure(facts: dict, run: str, latest: tuple | None) -> None:
    found = facts[run]["latest_failure"]
    assert (found and (found["file"], found["line"], found["exit_code"])) == latest


def test_flaky_billing_chain_and_hidden_assertion(facts: dict) -> None:
    recs = {r["command_id"]: r for _, _, r in _records("flaky-billing")}
    (chain,) = facts["flaky-billing"]["chains"]
    a1, a2, a3 = (recs[i] for i in chain["attempts"])
    assert a2["parent_command_id"] == a1["command_id"]
    assert a3["parent_command_id"] == a2["command_id"]
    exits = (a1["exit_code"], a2["exit_code"], a3["exit_code"], chain["final_exit_code"])
    assert exits == (1, 1, 0, 0)
    assert facts["flaky-billing"]["latest_failure"]["command_id"] == a2["command_id"]
    # Same argv, same bytes: attempt 2 reproduced attempt 1, and neither showed the assertion.
    assert a1["argv"] == a2["argv"] and a1["stdout_full_sha256"] == a2["stdout_full_sha256"]
    assert (a1["stdout_head_bytes"], a1["stdout_truncated"]) == (8192, True)
    assert a1["ok_preview"] is False
    assert "AssertionError" not in a1["preview_stdout"]
    assert a1["preview_stdout"].endswith(f"\n…[truncated {a1['stdout_bytes'] - 8192} bytes]…\n")
    assert (a3["exit_code"], a3["stdout_truncated"], a3["ok_preview"]) == (0, True, False)


def test_silent_json_items_and_lying_collector() -> None:
    recs = [r for _, _, r in _records("silent-json")]
    honest = next(r for r in recs if r.get("stdout_items") == 50)
    assert (honest["preview_stdout_items"], honest["stdout_truncated"]) == (20, True)
    liar = next(r for r in recs if "returncode" in r)
    assert (liar["stdout_truncated"], liar["ok_preview"]) == (False, True)
    assert liar["stdout_bytes"] > liar["stdout_cap"] == 8192
    assert len(liar["preview_stdout"]) == 512


def test_rotated_shows_every_case() -> None:
    recs = _records("rotated")
    where = {r["command_id"]: f for f, _, r in recs if r.get("command_id")}
    links = [
        (where.get(r["parent_command_id"]), f) for f, _, r in recs if r.get("parent_command_id")
    ]
    assert (f"{BASE}.2", f"{BASE}.1") in links
    assert sum(1 for p, _ in links if p is None) == 2
    parents = [r["parent_command_id"] for _, _, r in recs if r.get("parent_command_id")]
    assert max(parents.count(p) for p in parents) == 2  # one attempt retried twice: a branch
    nulls = [r for _, _, r in recs if "command" not in r and r.get("exit_code", 0) is None]
    assert [r["error"] for r in nulls] == ["command not found: ./tools/deploy_preview.sh"]
    clips = {r.get("stdout_clip") for _, _, r in recs if r.get("stdout_truncated")}
    assert {"tail", "head_tail"} <= clips
    assert any("returncode" in r for _, _, r in recs)
    assert any(r.get("stdout_tail", "").startswith("...truncated ") for _, _, r in recs)
    sizes = [
        len(gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes())
        for p in samplefacts.member_files(SAMPLES / "rotated", BASE)[:-1]
    ]
    assert max(sizes) - min(sizes) < 8192  # rotated members are of similar size


@pytest.mark.parametrize("run", RUNS, ids=RUNS)
def test_summary_agrees_with_published_facts(
    facts: dict, run: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from tracetui.cli import main

    assert main(["summary", str(SAMPLES / run), "--json"]) == 0
    got, want = json.loads(capsys.readouterr().out), facts[run]
    assert [Path(f).name for f in got["files"]] == want["files"]
    keys = ("spans", "failed", "truncated", "hidden_bytes")
    assert {k: got[k] for k in keys} == {k: want[k] for k in keys}
    assert [(Path(b["file"]).name, b["line"]) for b in got["bad_lines"]] == [
        (b["file"], b["line"]) for b in want["bad_lines"]
    ]

    def latest(x: dict | None) -> tuple | None:
        return x and (x["command_id"], x["argv"], x["exit_code"], Path(x["file"]).name, x["line"])

    assert latest(got["latest_failure"]) == latest(want["latest_failure"])
    assert got["chains"] == want["chains"]
