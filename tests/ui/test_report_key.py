"""The viewer's ``P`` key: the selected span's chain postmortem written where the user says.

Rows of the ``flaky`` run are listed in test_app.py (1, 2, 5, 6 are one retry chain; 4 is a bad line).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from viewer_helpers import make_app, settle

from tracetui.export.report import render_report
from tracetui.ui.report_export import report_stem, write_new

STEMS = [
    ("plain-id", "cmd_3f76c0c60c4e", 0, "tracetui-report-cmd_3f76c0c60c4e"),
    ("slashes-and-dots", "../../etc/passwd", 0, "tracetui-report-_.._etc_passwd"),
    ("control-chars", "a\x1b]52;c;x\x07b", 0, "tracetui-report-a__52_c_x_b"),
    ("dots-only", "...", 4, "tracetui-report-row5"),
    ("no-id", None, 9, "tracetui-report-row10"),
    ("long-id", "x" * 100, 0, "tracetui-report-" + "x" * 64),
]


@pytest.mark.parametrize(("cid", "row", "stem"), [c[1:] for c in STEMS], ids=[c[0] for c in STEMS])
def test_report_stem_is_filename_safe(cid: str | None, row: int, stem: str) -> None:
    assert report_stem(cid, row) == stem


def test_write_new_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "r.md").write_text("mine")
    (tmp_path / "r-2.md").write_text("mine too")
    got = [os.path.basename(write_new(str(tmp_path), "r", f"report {i}")) for i in range(2)]
    assert got == ["r-3.md", "r-4.md"]
    assert [(tmp_path / n).read_text() for n in ("r.md", "r-2.md", "r-3.md", "r-4.md")] == [
        "mine",
        "mine too",
        "report 0",
        "report 1",
    ]


@pytest.mark.parametrize("row", [1, 6, 10], ids=["chain-root", "chain-branch", "latest-failure"])
async def test_e_writes_the_report_of_the_selected_row(
    row: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.select_row(row)
        await pilot.pause()
        await pilot.press("P", "enter")  # P asks where; Enter takes the default in the cwd
        await settle(pilot)
        assert app.index is not None
        expected = render_report(app.index, row)
        stem = report_stem(app.index.ids[row], row)
        await pilot.press("P", "enter")  # the same span again: a second file, the first kept
        await settle(pilot)
        messages = [n.message for n in app._notifications]
    assert sorted(os.listdir(tmp_path)) == [f"{stem}-2.md", f"{stem}.md"]
    assert (tmp_path / f"{stem}.md").read_text(encoding="utf-8") == expected
    assert (tmp_path / f"{stem}-2.md").read_text(encoding="utf-8") == expected
    assert messages == [
        f"report written to {tmp_path / f'{stem}.md'}",
        f"report written to {tmp_path / f'{stem}-2.md'}",
    ]


async def test_e_on_a_bad_line_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.select_row(4)
        await pilot.pause()
        await pilot.press("P")
        await settle(pilot)
        messages = [n.message for n in app._notifications]
    assert os.listdir(tmp_path) == []
    assert messages == ["a bad line has no retry chain to report"]


async def test_write_failure_is_an_error_notification(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A cwd removed under the viewer (works as root too, unlike a read-only directory).
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("P", "enter")
        await settle(pilot)
        notes = [(n.severity, n.message) for n in app._notifications]
    name = "tracetui-report-0010-a1b2c3d4.md"  # the latest failure's id
    assert notes == [("error", f"cannot write the report: No such file or directory ({name})")]


async def test_export_is_in_the_palette() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        names = {b.action: b for b in app.palette_bindings()}
    assert names["export_report"].id == "view.export_report"
    assert names["export_report"].key == "P"
    assert names["export_report"].tooltip
