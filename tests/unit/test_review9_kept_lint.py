"""Review of lint's kept findings (tracetui/store/cache_lint.py, cache_results.py): changes to a
run that its cache state does not see, and names the state cannot hold. A warm lint (and a warm
summary, which keeps its results beside them) must print what a lint with no cache prints."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from cache_runs import OLD, lines, make_set, private_cache
from cache_runs import write as write_old
from records import encode_line, tool

from tracetui import cli
from tracetui.commands import common
from tracetui.store import build, cache_lint, cache_results
from tracetui.store.runset import open_path

Outcome = tuple[int, bytes, bytes]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return private_cache(tmp_path, monkeypatch)


def _run(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> Outcome:
    code = cli.main(argv)
    got = capsysbinary.readouterr()
    return code, got.out, got.err


def _cold(
    argv: list[str], capsysbinary: pytest.CaptureFixture[bytes], monkeypatch: pytest.MonkeyPatch
) -> Outcome:
    with monkeypatch.context() as m:
        m.setenv("TRACETUI_NO_CACHE", "1")
        return _run(argv, capsysbinary)


def _rewrite_keeping_stat(path: Path, old: bytes, new: bytes, start: int = 0) -> None:
    """``old`` (its first occurrence from ``start``) replaced by ``new`` (the same length) in
    place, the mtime put back: the file's device, inode, size and mtime are as before."""
    assert len(old) == len(new)
    st = path.stat()
    data = path.read_bytes()
    at = data.index(old, start)
    with open(path, "r+b") as fh:
        fh.seek(at)
        fh.write(new)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


@pytest.mark.parametrize(
    "argv",
    [["lint", "--format", "json"], ["lint"], ["summary", "--json"], ["summary"]],
    ids=["lint-json", "lint-text", "summary-json", "summary-text"],
)
def test_a_rerun_file_rewritten_with_its_stat_put_back_is_read_afresh(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    argv: list[str],
) -> None:
    """The state holds the re-runs file's stat only (no hash of its bytes, as members have), and
    an index reads it afresh each time: only the values kept beside the index went stale. A
    re-run record edited into a bad line of the same size, mtime put back: the warm lint left
    out its TT013 and the warm summary its bad line (both failed before)."""
    base = make_set(tmp_path / "run")
    side = Path(f"{base}.reruns.jsonl")
    good = encode_line(tool("r0001", parent_command_id="c0003"))
    write_old(side, good)
    args = [*argv, str(base)]
    for _ in range(2):  # indexed and kept, then recalled
        assert _run(args, capsysbinary) == _cold(args, capsysbinary, monkeypatch)
    _rewrite_keeping_stat(side, good, b"{" + b"x" * (len(good) - 3) + b"}\n")
    want = _cold(args, capsysbinary, monkeypatch)
    assert b"reruns.jsonl" in want[1] or b"bad lines   2" in want[1]
    assert _run(args, capsysbinary) == want
    assert _run(args, capsysbinary) == want  # and kept for what it is now


def test_a_run_named_in_bytes_no_json_can_hold_is_linted_cold(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """A run file whose name is not UTF-8 (``bad\\xff.jsonl``): reading the state of its files
    raised TypeError from orjson (the name, surrogate-escaped, in the state's blob), so every
    lint with the cache on was an internal error, exit 3 (failed before)."""
    root = tmp_path / "run"
    root.mkdir()
    base = os.fsencode(root) + b"/bad\xff.jsonl"
    with open(base, "wb") as fh:
        fh.write(lines(0, 6) + b"{not json\n")
    os.utime(base, ns=(OLD, OLD))
    for form in ("text", "json", "sarif"):
        argv = ["lint", "--format", form, os.fsdecode(base)]
        want = _cold(argv, capsysbinary, monkeypatch)
        assert want[0] == 1
        assert _run(argv, capsysbinary) == want
        assert _run(argv, capsysbinary) == want
    assert not list(home.glob("*.lint"))  # not kept: its head line cannot name the file


def test_the_state_of_an_unnameable_run_is_none(home: Path, tmp_path: Path) -> None:
    root = tmp_path / "run"
    root.mkdir()
    base = os.fsencode(root) + b"/bad\xff.jsonl"
    with open(base, "wb") as fh:
        fh.write(lines(0, 2))
    os.utime(base, ns=(OLD, OLD))
    (run,) = open_path(os.fsdecode(base))
    assert cache_results.state_now(run) is None


@pytest.mark.xfail(
    strict=True,
    reason="a member's identity (store/identity.py: dev, ino, size, mtime, its first and last "
    "KiB) does not change when bytes past its first and last KiB are rewritten at the same size "
    "and the mtime put back; the index's rows and the kept findings are both trusted then (the "
    "identity issue 18 names). st_ctime_ns would tell, but a rename sets it too: the members a "
    "rotation renames could no longer be reused, which the same issue asks for",
)
def test_a_member_rewritten_in_its_middle_with_its_mtime_put_back_is_relinted(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    root = tmp_path / "run"
    root.mkdir()
    base = root / "B.jsonl"
    write_old(base, lines(0, 40))  # ~25 KiB: its middle is neither end's KiB
    argv = ["lint", "--format", "json", str(base)]
    for _ in range(2):
        assert _run(argv, capsysbinary) == _cold(argv, capsysbinary, monkeypatch)
    data = base.read_bytes()
    middle = data.index(b'"exit_code": 0', len(data) // 2)
    assert 2048 < middle < len(data) - 2048
    _rewrite_keeping_stat(base, data[middle : middle + 14], b'"exit_code": 9', middle)
    want = _cold(argv, capsysbinary, monkeypatch)
    assert _run(argv, capsysbinary) == want


@pytest.mark.parametrize("argv", [["lint"], ["summary", "--json"]], ids=["lint", "summary"])
def test_the_gunzip_cap_a_run_was_read_under_is_part_of_what_was_kept(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    argv: list[str],
) -> None:
    """A ``.gz`` member read under another TRACETUI_GUNZIP_MAX_MIB gives other lines and a note:
    the findings kept under the default cap were printed (1.4 MiB decompressed, 1 MiB allowed:
    fewer findings and a note on stderr cold, the full set and no note warm; failed before)."""
    root = tmp_path / "run"
    root.mkdir()
    write_old(root / "B.jsonl", lines(0, 3))
    body = lines(3, 2000)  # ~1.4 MiB decompressed
    with gzip.open(root / "B.jsonl.1.gz", "wb") as fh:
        fh.write(body)
    os.utime(root / "B.jsonl.1.gz", ns=(OLD, OLD))
    args = [*argv, str(root / "B.jsonl")]
    for _ in range(2):
        assert _run(args, capsysbinary) == _cold(args, capsysbinary, monkeypatch)
    monkeypatch.setenv("TRACETUI_GUNZIP_MAX_MIB", "1")
    want = _cold(args, capsysbinary, monkeypatch)
    assert b"TRACETUI_GUNZIP_MAX_MIB" in want[2]
    assert _run(args, capsysbinary) == want
    assert _run(args, capsysbinary) == want


def test_the_kept_findings_name_the_redaction_code_they_came_from(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """lint's secret checks run tracetui.record's redaction rules, which the index's fingerprint
    (store, model, analysis) does not cover: findings kept by other rules were used as they
    were. The kept file names record's own mark, and one of other code is linted afresh."""
    base = str(make_set(tmp_path / "run"))
    argv = ["lint", "--format", "json", base]
    want = _cold(argv, capsysbinary, monkeypatch)
    assert _run(argv, capsysbinary) == want
    (kept,) = home.glob("*.lint")
    head = orjson.loads(kept.read_bytes().partition(b"\n")[0])
    assert head["record_code"] == cache_lint.code_mark()
    monkeypatch.setattr(cache_lint, "_code_mark", "0" * 32)  # as other record code would be
    assert cache_lint.recall_run(open_path(base)[0]) is None
    assert _run(argv, capsysbinary) == want  # linted afresh, and kept for this code
    assert orjson.loads(kept.read_bytes().partition(b"\n")[0])["record_code"] == "0" * 32


def test_the_redaction_code_mark_changes_with_a_module_of_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "record"
    shutil.copytree(Path(cache_lint._RECORD), copy)
    monkeypatch.setattr(cache_lint, "_RECORD", str(copy))
    monkeypatch.setattr(cache_lint, "_code_mark", None)
    before = cache_lint.code_mark()
    rules = copy / "redact_rules.py"
    rules.write_bytes(rules.read_bytes() + b"\n# another rule\n")
    monkeypatch.setattr(cache_lint, "_code_mark", None)
    assert cache_lint.code_mark() != before


def test_every_module_a_lint_s_findings_come_from_is_fingerprinted(tmp_path: Path) -> None:
    """The index's fingerprint covers store, model and analysis, and the kept findings' mark
    record: a lint that ran code of another package would keep findings no mark ties to it."""
    base = make_set(tmp_path / "run")
    script = (
        "import sys\n"
        "from tracetui.analysis.lint import lint_index\n"
        "from tracetui.store.build import build_index\n"
        "from tracetui.store.runset import open_path\n"
        f"(run,) = open_path({str(base)!r})\n"
        "list(lint_index(build_index(run)))\n"
        "print('\\n'.join(sorted(m for m in sys.modules if m.startswith('tracetui.'))))\n"
    )
    env = dict(os.environ, TRACETUI_NO_CACHE="1")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, env=env, check=True, timeout=60
    )
    covered = ("store", "model", "analysis", "record")
    outside = [
        m
        for m in done.stdout.decode().split()
        if m.split(".")[1] not in covered and m != "tracetui.crash"
    ]
    assert outside == []


def test_a_run_whose_rerun_file_has_findings_is_kept_too(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    """A bad line in the re-runs file is a finding naming that file, which is not a member: the
    run's findings were never kept, and every lint of it indexed it again. The sidecar's bytes
    are in the kept file's head now, so its findings are kept and printed as they were."""
    base = make_set(tmp_path / "run")
    write_old(Path(f"{base}.reruns.jsonl"), b"{not json\n")
    for form in ("text", "json", "sarif"):
        argv = ["lint", "--format", form, str(base)]
        want = _cold(argv, capsysbinary, monkeypatch)
        assert b"reruns.jsonl" in want[1]
        assert _run(argv, capsysbinary) == want
        with monkeypatch.context() as m:
            m.setattr(build, "build_index", _no_build)
            m.setattr(common, "build_index", _no_build)
            assert _run(argv, capsysbinary) == want


def _no_build(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("indexed again")
