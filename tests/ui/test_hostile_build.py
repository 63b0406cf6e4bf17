"""Issue 13 in the viewer: a long build never holds `q` hostage, and absurd values render.

The first test slows the decompression of a gz member down to a crawl (a big or hostile member),
presses `q` and then waits for the building thread: it must stop at the next piece, cancelled,
leaving no temp copy behind (before, the process could not end until the whole member was read).
The second opens records with absurd numbers and draws each one, as detail and as raw JSON.
"""

from __future__ import annotations

import gzip
import io
import json
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hostile_helpers import temps
from records import encode_line, tool
from viewer_helpers import settle

from tracetui.store import gz
from tracetui.store.runset import open_paths
from tracetui.ui.app import TraceApp
from tracetui.ui.widgets.detail import DetailPane


class Crawling(io.RawIOBase):
    """A .gz source that hands out 4 KiB per read, 50 ms apart: minutes for the whole member."""

    def __init__(self, path: str) -> None:
        self.fh = open(path, "rb")  # noqa: SIM115 - closed in close()

    def read(self, n: int = -1) -> bytes:
        time.sleep(0.05)
        return self.fh.read(4096)

    def close(self) -> None:
        self.fh.close()
        super().close()


async def test_q_quits_while_a_member_is_still_decompressing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tracetui.ui.app as appmod

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    run = tmp_path / "run"
    run.mkdir()
    lines = b"".join(encode_line(tool(f"c{i:05d}", preview_stdout="x" * 300)) for i in range(8000))
    (run / "B.jsonl.1.gz").write_bytes(gzip.compress(lines, compresslevel=0))  # ~3 MB: 800 reads
    (run / "B.jsonl").write_bytes(encode_line(tool("newest")))
    monkeypatch.setattr(gz, "open_regular", Crawling)
    ended = threading.Event()
    outcome: list[str] = []
    real = appmod.build_index

    def watched(*args: Any, **kw: Any) -> Any:
        try:
            index = real(*args, **kw)
        except BaseException as exc:
            outcome.append(type(exc).__name__)
            raise
        else:
            outcome.append("built")
            return index
        finally:
            ended.set()

    monkeypatch.setattr(appmod, "build_index", watched)
    app = TraceApp(open_paths([str(run)]), follow=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause(0.3)
        assert not ended.is_set()  # still decompressing when q comes
        await pilot.press("q")
    # The building thread is not a daemon: the process would wait for it at exit.
    assert ended.wait(30), "the build went on after q"
    assert outcome == ["Cancelled"]
    assert temps(tmp_path) == []  # the decompressed copy is gone (private temp folder too)


ODD = [
    tool("bytes", stdout_bytes=2**64 * 3),
    tool("exit", exit_code=2**70),
    tool("duration", duration_ms=1e308),
    tool(
        "marker",
        stdout_bytes=None,
        stdout_truncated=None,
        preview_stdout="a\n…[truncated " + "9" * 5000 + " bytes]…\n",
    ),
    tool(
        "chars",
        stdout_bytes=None,
        preview_stdout="a\n\n... [99999999999999999999 characters truncated] ...\n\nb",
    ),
]


async def test_records_with_absurd_numbers_are_drawn(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "B.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ODD))
    app = TraceApp(open_paths([str(run)]), follow=False)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        for row, rec in enumerate(ODD):
            app.select_row(row)
            await pilot.pause()
            detail = str(app.query_one(DetailPane).body.render())
            assert rec["command_id"] in detail
            await pilot.press("R")  # the raw record too
            await pilot.pause()
            raw = str(app.query_one(DetailPane).body.render())
            assert f'"command_id": "{rec["command_id"]}"' in raw
            await pilot.press("R")
            await pilot.pause()
