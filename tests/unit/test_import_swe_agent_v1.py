"""SWE-agent 1.x trajectories (``replay_config``, ``info.exit_status``, per-step
``execution_time``, refused steps kept in the trajectory only) through open_path → build_index.

The fixtures are written by tests/data/agents/make_fixtures_v1.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tracetui.importers import sniff
from tracetui.store import build as build_mod
from tracetui.store import runset

AGENTS = Path(__file__).resolve().parents[1] / "data" / "agents"
B = ["bash", "-lc"]
REFUSED = (
    "not run: SWE-agent refused the command (a format error, a blocked command or a shell "
    "syntax error) and asked the model again"
)
TRACEBACK = (
    "SWE-agent records no exit code; the output shows a failure: Traceback (most recent call last):"
)

# (fixture, [(id, argv, error, truncated, hidden stdout bytes, duration ms, run_exit_status)])
CASES: list[tuple[str, list[tuple[Any, ...]]]] = [
    (
        "swe_agent_v1.traj",
        [
            ("step-1", [*B, "ls -F"], None, False, 0, 50.0, None),
            ("step-2", [*B, "python reproduce.py"], TRACEBACK, False, 0, 1500.0, None),
            ("step-3", [*B, "cat <<EOF rows.txt"], REFUSED, False, 0, None, None),
            ("step-4", [*B, "cat rows.txt"], None, True, 1300, 200.0, None),
            (
                "step-5",
                [*B, "sleep 999"],
                "timed out: SWE-agent cancelled the command after 30 s",
                False,
                0,
                30000.0,
                None,
            ),
            ("step-6", [*B, "submit"], None, False, 0, 400.0, "submitted"),
        ],
    ),
    (
        "swe_agent_v1_limit.traj",
        [
            ("step-1", [*B, "ls -F"], None, False, 0, 50.0, None),
            (
                "step-2",
                [*B, "python reproduce.py"],
                TRACEBACK,
                False,
                0,
                1500.0,
                "submitted (exit_cost)",
            ),
        ],
    ),
]


def _spans(path: Path) -> list[Any]:
    runs = runset.open_path(str(path))
    assert len(runs) == 1 and runs[0].source_format == "swe-agent"
    assert runs[0].notes == []
    ix = build_mod.build_index(runs[0])
    spans = [ix.span(row) for row in range(len(ix))]
    assert all(s is not None for s in spans)
    return spans


@pytest.mark.parametrize(("name", "expected"), CASES, ids=[c[0] for c in CASES])
def test_steps(name: str, expected: list[tuple[Any, ...]]) -> None:
    got = [
        (
            s.command_id,
            list(s.argv),
            s.error,
            s.stdout.truncated,
            s.stdout.hidden_bytes,
            s.duration_ms,
            s.raw.get("run_exit_status"),
        )
        for s in _spans(AGENTS / name)
    ]
    assert got == expected


def test_the_exit_is_never_inferred() -> None:
    assert {s.exit_code for s in _spans(AGENTS / "swe_agent_v1.traj")} == {None}


def test_a_refused_step_says_it_was_not_run() -> None:
    spans = _spans(AGENTS / "swe_agent_v1.traj")
    assert [s.command_id for s in spans if s.raw.get("not_executed")] == ["step-3"]


def test_the_preview_is_the_message_the_model_read() -> None:
    step4 = _spans(AGENTS / "swe_agent_v1.traj")[3]
    assert step4.stdout.preview.startswith("OBSERVATION:\nrow 0000\n")
    assert step4.stdout.bytes == 1800  # the stored observation: the whole output


def _traj(steps: list[dict[str, Any]], history: list[dict[str, Any]]) -> dict[str, Any]:
    return {"trajectory": steps, "history": history, "info": {"exit_status": "submitted"}}


def _step(action: str, observation: str) -> dict[str, Any]:
    return {"action": action, "observation": observation, "thought": "", "execution_time": 0.5}


def _said(action: str | None) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": "x", "agent": "main"}
    if action is None:
        msg["message_type"] = "action"
    else:
        msg["action"] = action
    return msg


def _read(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text, "agent": "main"}


CUT = "<response clipped><NOTE>Observations should not exceeded 3 characters. 7 characters were elided."

# (case, trajectory, history, [(preview, not_executed)])
PAIRING: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]], list[tuple[str, bool]]]] = [
    (
        "by-action-skips-a-refused-step",
        [_step("bad(", ""), _step("ls", "0123456789")],
        [_said("ls"), _read("012" + CUT)],
        [("", True), ("012" + CUT, False)],
    ),
    (
        "messages-without-actions-pair-in-order",
        [_step("ls", "0123456789"), _step("pwd", "/r")],
        [_said(None), _read("012" + CUT), _said(None), _read("/r")],
        [("012" + CUT, False), ("/r", False)],
    ),
    (
        "a-step-the-history-skips-but-that-has-output-is-read-as-stored",
        [_step("ls", "a b"), _step("pwd", "/r")],
        [_said("pwd"), _read("/r")],
        [("a b", False), ("/r", False)],
    ),
    (
        "no-history-at-all",
        [_step("ls", "a b")],
        [],
        [("a b", False)],
    ),
]


@pytest.mark.parametrize(
    ("steps", "history", "want"), [p[1:] for p in PAIRING], ids=[p[0] for p in PAIRING]
)
def test_pairing_steps_with_what_the_model_read(
    tmp_path: Path,
    steps: list[dict[str, Any]],
    history: list[dict[str, Any]],
    want: list[tuple[str, bool]],
) -> None:
    path = tmp_path / "run.traj"
    path.write_text(json.dumps(_traj(steps, history)), encoding="utf-8")
    spans = _spans(path)
    assert [(s.stdout.preview, bool(s.raw.get("not_executed"))) for s in spans] == want


SNIFF = [
    ("replay-config-beside-trajectory", {"trajectory": [], "replay_config": "{}"}, "swe-agent"),
    (
        "exit-status-beside-trajectory",
        {"trajectory": [], "info": {"exit_status": "x"}},
        "swe-agent",
    ),
    ("trajectory-alone", {"trajectory": []}, None),
]


@pytest.mark.parametrize(("doc", "want"), [s[1:] for s in SNIFF], ids=[s[0] for s in SNIFF])
def test_sniff(tmp_path: Path, doc: dict[str, Any], want: str | None) -> None:
    path = tmp_path / "run.traj"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert sniff(str(path)) == want
