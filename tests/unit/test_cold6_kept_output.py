"""``summary --json``'s output kept as a file of its own (``tracetui/store/cache_output.py``):
a warm summary prints exactly the cold one's bytes without indexing, and a kept output whose
first line is spoilt, of another version, files or notes is never printed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from cache_runs import make_set, private_cache

from tracetui import cli
from tracetui.commands import common
from tracetui.store import build, cache_output
from tracetui.store.index import RunIndex


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_cache(tmp_path, monkeypatch)


def _run(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> bytes:
    assert cli.main(argv) == 0
    return capsysbinary.readouterr().out


def _no_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_build(*_a: Any, **_k: Any) -> RunIndex:
        raise AssertionError("indexed again")

    monkeypatch.setattr(build, "build_index", no_build)
    monkeypatch.setattr(common, "build_index", no_build)


def test_the_kept_output_is_the_printed_bytes(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    base = make_set(tmp_path / "run")
    cold = _run(["summary", "--json", str(base)], capsysbinary)
    (kept,) = home.glob("*.out")
    head, _, body = kept.read_bytes().partition(b"\n")
    assert body + b"\n" == cold
    assert set(orjson.loads(head)) == {"version", "state", "notes"}
    results = orjson.loads(next(home.glob("*.json")).read_bytes())
    assert "output" not in results["values"]  # no longer escaped into the results file
    _no_build(monkeypatch)
    assert _run(["summary", "--json", str(base)], capsysbinary) == cold


ORDERS = [
    ("text-then-json", [[], ["--json"], ["--json"], []]),
    ("json-then-text", [["--json"], [], ["--json"], []]),
    ("json-no-cache-json", [["--json"], ["--json", "--no-cache"], ["--json"]]),
]


@pytest.mark.parametrize("order", [o[1] for o in ORDERS], ids=[o[0] for o in ORDERS])
def test_any_order_of_commands_prints_the_cold_output(
    home: Path,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
    order: list[list[str]],
) -> None:
    base = make_set(tmp_path / "run")
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    want = {"--json" in form: _run(["summary", *form, str(base)], capsysbinary) for form in order}
    monkeypatch.delenv("TRACETUI_NO_CACHE")
    for form in order:
        assert _run(["summary", *form, str(base)], capsysbinary) == want["--json" in form]


def _spoil_head(change: Callable[[dict[str, Any]], None]) -> Callable[[bytes], bytes]:
    def spoil(data: bytes) -> bytes:
        head, _, body = data.partition(b"\n")
        fields = orjson.loads(head)
        change(fields)
        return orjson.dumps(fields) + b"\n" + body

    return spoil


SPOILT: list[tuple[str, Callable[[bytes], bytes]]] = [
    ("other-version", _spoil_head(lambda f: f.update(version=-1))),
    ("other-state", _spoil_head(lambda f: f.update(state="0" * 32))),
    ("other-notes", _spoil_head(lambda f: f.update(notes=["a note"]))),
    ("head-not-json", lambda d: b"{not json" + d[d.index(b"\n") :]),
    ("no-newline", lambda d: d.replace(b"\n", b" ")),
    ("empty", lambda d: b""),
]


@pytest.mark.parametrize("spoil", [s[1] for s in SPOILT], ids=[s[0] for s in SPOILT])
def test_a_spoilt_kept_output_is_never_printed(
    home: Path,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
    spoil: Callable[[bytes], bytes],
) -> None:
    base = make_set(tmp_path / "run")
    cold = _run(["summary", "--json", str(base)], capsysbinary)
    (kept,) = home.glob("*.out")
    spoilt = spoil(kept.read_bytes())
    kept.write_bytes(spoilt)
    assert _run(["summary", "--json", str(base)], capsysbinary) == cold
    (kept,) = home.glob("*.out")  # written again, whole
    assert kept.read_bytes().partition(b"\n")[2] + b"\n" == cold


def test_recall_run_without_the_cache_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    private_cache(tmp_path, monkeypatch)
    monkeypatch.setenv("TRACETUI_NO_CACHE", "1")
    from tracetui.store.runset import open_path

    (run,) = open_path(str(make_set(tmp_path / "run")))
    assert cache_output.recall_run(run) is None
