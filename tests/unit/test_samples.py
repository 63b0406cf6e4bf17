"""The bundled sample runs: they never drift from their generator, and they show what they claim.

The generator really runs the tools, so regenerating takes a couple of seconds; it is done once
per module. The numbers asserted here are the ones docs/sample-runs.md publishes.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import subprocess
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
        paths += sorted((root / run / f"{BASE}.kept").glob("*.gz"))  # kept outputs, by hash
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


LINT = {
    # The head-capped failures (attempts 1 and 2), the "expect green" attempts (2 and 3), and
    # attempt 2 retrying attempt 1 blind: same argv, same cwd, same 8,192-byte cap.
    "flaky-billing": [
        (BASE, 3, "TT019"),
        (BASE, 6, "TT019"),
        (BASE, 6, "TT022"),
        (BASE, 6, "TT021"),
        (BASE, 7, "TT022"),
    ],
    "silent-json": [(BASE, 3, "TT002")],  # the lying collector
    "rotated": [
        (f"{BASE}.4", 4, "TT010"),
        (f"{BASE}.4", 5, "TT010"),
        (f"{BASE}.4", 6, "TT020"),
        (f"{BASE}.4", 22, "TT022"),
        (f"{BASE}.3.gz", 2, "TT020"),
        (f"{BASE}.3.gz", 16, "TT022"),
        (f"{BASE}.3.gz", 18, "TT022"),
        (f"{BASE}.3.gz", 19, "TT022"),
        (f"{BASE}.3.gz", 28, "TT020"),
        (f"{BASE}.3.gz", 30, "TT022"),
        (f"{BASE}.3.gz", 35, "TT022"),
        (f"{BASE}.2", 5, "TT022"),
        (f"{BASE}.2", 6, "TT013"),
        (f"{BASE}.2", 16, "TT022"),
        (f"{BASE}.2", 20, "TT020"),
        (f"{BASE}.1", 2, "TT020"),
        (f"{BASE}.1", 7, "TT020"),
        (f"{BASE}.1", 9, "TT022"),
        (f"{BASE}.1", 13, "TT022"),
        (f"{BASE}.1", 17, "TT022"),
        (f"{BASE}.1", 18, "TT022"),
        (f"{BASE}.1", 19, "TT022"),
        (f"{BASE}.1", 31, "TT022"),
        (f"{BASE}.1", 36, "TT022"),
        (f"{BASE}.1", 40, "TT022"),
        (BASE, 9, "TT020"),
    ],
}
SUSPICIONS = {
    "flaky-billing": {"TT019": 2, "TT021": 1, "TT022": 2},
    "silent-json": {},
    "rotated": {"TT020": 7, "TT022": 16},
}


@pytest.mark.parametrize("run", RUNS, ids=RUNS)
def test_lint_reports_what_a_reviewer_would(run: str) -> None:
    from tracetui.analysis.lint import lint_index
    from tracetui.store.build import build_index
    from tracetui.store.runset import open_path

    issues = lint_index(build_index(open_path(str(SAMPLES / run))[0]))
    assert [(Path(i.file).name, i.line, i.code) for i in issues] == LINT[run]


def test_flaky_billing_incident_messages() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tracetui", "lint", "sample_runs/flaky-billing"],
        capture_output=True,
        text=True,
        cwd=SAMPLES.parent,
    )
    where = f"sample_runs/flaky-billing/{BASE}"
    head = "exit 1 and stdout kept only its head: 16014 bytes at its end, where a failure is summarised, never seen"
    assert out.returncode == 0  # warnings only
    assert out.stdout.splitlines() == [
        f"{where}:3: TT019 {head}",
        f"{where}:6: TT019 {head}",
        f'{where}:6: TT022 the note predicted success ("green") but the command exited 1 and stdout was cut',
        f"{where}:6: TT021 retries 'cmd_3f76c0c60c4e', whose output was cut, with the same argv and cwd under the same stdout_cap 8192: it could not see more",
        f'{where}:7: TT022 the note predicted success ("green") but stdout was cut',
        "issues=5",
    ]


@pytest.mark.parametrize("run", RUNS, ids=RUNS)
def test_summary_suspicions(run: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tracetui.cli import main

    assert main(["summary", str(SAMPLES / run), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["suspicions"]
    codes = ("TT019", "TT020", "TT021", "TT022", "TT023", "TT024", "TT025")
    assert got == {code: SUSPICIONS[run].get(code, 0) for code in codes}
