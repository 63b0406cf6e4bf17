"""Re-runs of the bundled sample runs (and of unwritable folders) are kept in the user's state
folder, never beside the run (issue 16: re-running a sample grew its chain for good)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_live import until
from test_rerun_pane import confirm_and_finish, make_app, record

from tracetui.store import sidecars
from tracetui.store.runset import open_paths, sidecar_path
from tracetui.ui.widgets.chain import ChainPane


@pytest.fixture
def samples(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in for tracetui's sample_runs/, and a state folder of the test's own."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    folder = tmp_path / "sample_runs"
    folder.mkdir()
    monkeypatch.setattr(sidecars, "SAMPLES", str(folder))
    return folder


PLACES = [
    ("a-sample", "sample_runs/demo", True, True),
    ("a-sample-one-level-down", "sample_runs/a/b", True, True),
    ("elsewhere", "mine", True, False),
    ("not-writable", "mine", False, True),
]


@pytest.mark.parametrize(
    ("where", "writable", "elsewhere"), [p[1:] for p in PLACES], ids=[p[0] for p in PLACES]
)
def test_where_the_reruns_file_goes(
    where: str,
    writable: bool,
    elsewhere: bool,
    samples: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run = samples.parent / where
    run.mkdir(parents=True)
    base = str(run / "run.jsonl")
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, m: writable and real_access(p, m) if m == os.W_OK else True
    )
    path = sidecar_path(base)
    if elsewhere:
        state = samples.parent / "state" / "tracetui" / "reruns"
        assert os.path.dirname(path) == str(state)
        assert os.path.basename(path).endswith("-run.jsonl.reruns.jsonl")
    else:
        assert path == base + ".reruns.jsonl"


def test_a_reruns_file_already_beside_the_run_stays_in_use(samples: Path) -> None:
    run = samples / "old"
    run.mkdir()
    (run / "run.jsonl.reruns.jsonl").write_text("")
    assert sidecar_path(str(run / "run.jsonl")) == str(run / "run.jsonl.reruns.jsonl")


def test_the_state_file_name_is_plain_and_keyed_by_the_path(samples: Path) -> None:
    a, b = samples / "x", samples / "y"
    name_a = os.path.basename(sidecars.in_state_folder(str(a / "we ird;$(rm).jsonl")))
    name_b = os.path.basename(sidecars.in_state_folder(str(b / "we ird;$(rm).jsonl")))
    assert name_a != name_b  # two runs of one name in two folders: two files
    assert name_a.endswith("-we_ird_rm_.jsonl.reruns.jsonl") and "/" not in name_a


@pytest.mark.parametrize("follow", [False, True], ids=["frozen", "live"])
async def test_rerunning_a_sample_leaves_its_folder_alone(samples: Path, follow: bool) -> None:
    folder = samples / "suite-run"
    cid = record(folder, "suite")
    before = sorted(os.listdir(folder))
    app = make_app(folder, follow=follow)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: app.index is not None and len(app.index) == 1, pauses=2000)
        await pilot.pause()
        pane = await confirm_and_finish(pilot)
        kept = sidecars.in_state_folder(str(folder / "run.jsonl"))
        assert pane.result is not None and pane.result.sidecar == kept
        await until(pilot, lambda: app.index is not None and len(app.index) == 2, pauses=2000)
        await pilot.pause()
        chain = app.query_one(ChainPane)
        new = str(pane.result.record["command_id"])
        assert [app.index.ids[r] for r in chain.order] == [cid, new]  # the chain grew, in state
    assert sorted(os.listdir(folder)) == before  # no B.reruns.jsonl, no lock beside the run
    assert os.path.isfile(kept)
    # Opened again, the run finds its re-run in the state folder.
    (run,) = open_paths([str(folder)])
    assert run.sidecar == kept
