"""Discovery and set order of rotated members, directories of runs, sidecars."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from records import tool

from tracetui.store.build import build_index
from tracetui.store.runset import RunSetError, open_path, split_member_name

SPLITS = [
    ("base", "B", ("B", 0, False)),
    ("first", "B.1", ("B", 1, False)),
    ("ten", "B.10", ("B", 10, False)),
    ("gz", "B.2.gz", ("B", 2, True)),
    ("jsonl", "feedback_record.jsonl.3", ("feedback_record.jsonl", 3, False)),
    ("gz-base", "run.jsonl.gz", ("run.jsonl", 0, True)),
    # No member is numbered 0 (the base is): a planted "B.0" crashed every listing of the folder.
    ("zero", "B.0", ("B.0", 0, False)),
    ("zeros", "B.000", ("B.000", 0, False)),
    ("zero-gz", "B.0.gz", ("B.0", 0, True)),
    # A planted name ending in a newline, or numbered in other scripts' digits, is no member
    # (the pattern's "$" and "\d" took "B.2\n" as member 2 and "B.\u0661" as member 1).
    ("newline", "B.2\n", ("B.2\n", 0, False)),
    ("newline-gz", "B.2.gz\n", ("B.2.gz\n", 0, False)),
    ("arabic-indic", "B.\u0661", ("B.\u0661", 0, False)),
    ("fullwidth-gz", "B.\uff12.gz", ("B.\uff12", 0, True)),
    ("leading-zero", "B.01", ("B", 1, False)),
]


@pytest.mark.parametrize(("name", "expected"), [c[1:] for c in SPLITS], ids=[c[0] for c in SPLITS])
def test_split_member_name(name: str, expected: tuple[Any, ...]) -> None:
    assert split_member_name(name) == expected


def names(run: Any) -> list[str]:
    return [os.path.basename(m.path) for m in run.members]


def test_natural_order_oldest_first(make_run: Any) -> None:
    members = {f"B.jsonl.{n}": [tool(f"id{n}")] for n in range(1, 12)}
    members["B.jsonl"] = [tool("id0")]
    root = make_run(members)
    (run,) = open_path(str(root / "B.jsonl"))
    assert names(run) == [f"B.jsonl.{n}" for n in range(11, 0, -1)] + ["B.jsonl"]
    ix = build_index(run)
    assert ix.ids == [f"id{n}" for n in range(11, -1, -1)]


def test_gz_member_read_transparently(make_run: Any) -> None:
    root = make_run({"B.jsonl": [tool("c")], "B.jsonl.1": [tool("b")], "B.jsonl.2.gz": [tool("a")]})
    (run,) = open_path(str(root / "B.jsonl.2.gz"))  # any member names its run
    assert names(run) == ["B.jsonl.2.gz", "B.jsonl.1", "B.jsonl"]
    ix = build_index(run)
    assert ix.ids == ["a", "b", "c"]
    assert ix.span(0).command_id == "a"  # random access into the gz member works


def test_directory_of_several_runs_and_sidecar(make_run: Any) -> None:
    root = make_run(
        {
            "agent-a.jsonl": [tool("a1")],
            "agent-a.jsonl.1": [tool("a0")],
            "agent-b.jsonl": [tool("b1")],
            "agent-a.jsonl.reruns.jsonl": [tool("r1", parent_command_id="a1")],
            "notes.txt": ["hello\n"],
            "B.lock": [""],
        }
    )
    runs = open_path(str(root))
    assert [os.path.basename(r.base) for r in runs] == ["agent-a.jsonl", "agent-b.jsonl"]
    assert runs[0].sidecar is not None and runs[0].sidecar.endswith("agent-a.jsonl.reruns.jsonl")
    ix = build_index(runs[0])
    assert ix.ids == ["a0", "a1", "r1"]
    assert ix.stats.spans == 2  # the re-run is a row but not a fact about the trace


def test_missing_members_are_noted(make_run: Any) -> None:
    root = make_run({"B.jsonl": [tool("c")], "B.jsonl.1": [tool("b")], "B.jsonl.3": [tool("a")]})
    (run,) = open_path(str(root / "B.jsonl"))
    assert run.notes == ["rotation members missing: .2"]


# (case id, files and the one record each holds, member names read, notes, ids indexed)
DUPLICATES: list[tuple[str, list[str], list[str], list[str], list[str]]] = [
    (
        "rotated-plain-and-gz",
        ["B.jsonl", "B.jsonl.1", "B.jsonl.2", "B.jsonl.2.gz"],
        ["B.jsonl.2", "B.jsonl.1", "B.jsonl"],
        ["both B.jsonl.2 and B.jsonl.2.gz exist; reading B.jsonl.2, ignoring B.jsonl.2.gz"],
        ["B.jsonl.2", "B.jsonl.1", "B.jsonl"],
    ),
    (
        "base-plain-and-gz",
        ["B.jsonl", "B.jsonl.gz"],
        ["B.jsonl"],
        ["both B.jsonl and B.jsonl.gz exist; reading B.jsonl, ignoring B.jsonl.gz"],
        ["B.jsonl"],
    ),
    (
        "two-numbers-doubled",
        ["B.jsonl", "B.jsonl.1", "B.jsonl.1.gz", "B.jsonl.2", "B.jsonl.2.gz"],
        ["B.jsonl.2", "B.jsonl.1", "B.jsonl"],
        [
            "both B.jsonl.1 and B.jsonl.1.gz exist; reading B.jsonl.1, ignoring B.jsonl.1.gz",
            "both B.jsonl.2 and B.jsonl.2.gz exist; reading B.jsonl.2, ignoring B.jsonl.2.gz",
        ],
        ["B.jsonl.2", "B.jsonl.1", "B.jsonl"],
    ),
    (
        "gz-alone-is-read",
        ["B.jsonl", "B.jsonl.1.gz"],
        ["B.jsonl.1.gz", "B.jsonl"],
        [],
        ["B.jsonl.1.gz", "B.jsonl"],
    ),
    (
        "same-number-spelt-twice",
        ["B.jsonl", "B.jsonl.1", "B.jsonl.02", "B.jsonl.2"],
        ["B.jsonl.02", "B.jsonl.1", "B.jsonl"],
        ["both B.jsonl.02 and B.jsonl.2 exist; reading B.jsonl.02, ignoring B.jsonl.2"],
        ["B.jsonl.02", "B.jsonl.1", "B.jsonl"],
    ),
]


@pytest.mark.parametrize(
    ("files", "members", "notes", "ids"),
    [c[1:] for c in DUPLICATES],
    ids=[c[0] for c in DUPLICATES],
)
@pytest.mark.parametrize("opened", ["base", "gz-member"])
def test_plain_member_wins_over_its_gz_twin(
    make_run: Any,
    files: list[str],
    members: list[str],
    notes: list[str],
    ids: list[str],
    opened: str,
) -> None:
    # Each file's one record is named after the file, so the index shows which file was read.
    root = make_run({name: [tool(name)] for name in files})
    path = root / (files[-1] if opened == "gz-member" else "B.jsonl")
    (run,) = open_path(str(path))
    assert names(run) == members
    assert [m.gz for m in run.members] == [n.endswith(".gz") for n in members]
    assert run.notes == notes
    assert build_index(run).ids == ids


ERRORS = [
    ("missing-path", "nope.jsonl", "no such file or directory"),
    ("empty-dir", "", "no run files (*.jsonl, or another agent's trace) in this directory"),
]


@pytest.mark.parametrize(("rel", "message"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_unusable_paths(tmp_path: Path, rel: str, message: str) -> None:
    with pytest.raises(
        RunSetError, match=message.replace("(", r"\(").replace(")", r"\)").replace("*", r"\*")
    ):
        open_path(str(tmp_path / rel) if rel else str(tmp_path))


def test_relative_cwd_resolves_against_run_folder(make_run: Any) -> None:
    root = make_run({"B.jsonl": [tool("a")]})
    (run,) = open_path(str(root / "B.jsonl"))
    assert run.resolve_cwd("tools") == str(root / "tools")
    assert run.resolve_cwd("/abs") == "/abs"
    assert run.resolve_cwd(None) == str(root)


def test_directory_holding_other_agents_traces(make_run: Any) -> None:
    import shutil

    agents = Path(__file__).resolve().parents[1] / "data" / "agents"
    root = make_run({"ours.jsonl": [tool("a")]})
    shutil.copy(agents / "claude_session.jsonl", root / "session.jsonl")
    shutil.copy(agents / "swe_agent.traj", root / "run.traj")
    runs = open_path(str(root))
    assert [(os.path.basename(r.base), r.source_format) for r in runs] == [
        ("ours.jsonl", None),
        ("run.traj", "swe-agent"),
        ("session.jsonl", "claude-code"),
    ]


def test_a_file_numbered_zero_beside_a_run_is_no_member(tmp_path: Path) -> None:
    (tmp_path / "run.jsonl").write_bytes(b"")
    (tmp_path / "run.jsonl.1").write_bytes(b"")
    (tmp_path / "run.jsonl.0").write_bytes(b"")
    run = open_path(str(tmp_path / "run.jsonl"))[0]
    assert [m.name for m in run.members] == ["run.jsonl.1", "run.jsonl"]
