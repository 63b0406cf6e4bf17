"""The kept-output store (tracetui/record/kept.py, keeping.py, kept_read.py): what `tracetui run`
keeps of each stream, redacted, under a budget, through rotation and concurrent writers."""

from __future__ import annotations

import gzip
import hashlib
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest

from tracetui.commands.run_cmd import _budget
from tracetui.model.spans import normalize
from tracetui.record.kept import KeptStore, kept_dir, parse_size
from tracetui.record.kept_read import KeptMismatch, NotKept, find_kept, open_verified
from tracetui.record.recorder import run_with_feedback
from tracetui.record.redact import Redactor
from tracetui.record.redact_rules import REPLACEMENT
from tracetui.record.redact_stream import StreamRedactor

PY = sys.executable
SECRET = "hunter2hunter2"


def records(base: Path) -> list[dict]:
    return [orjson.loads(x) for x in base.read_bytes().splitlines()]


def kept_bytes(base: Path, record: dict, stream: str) -> bytes:
    kept = find_kept(str(base), record, stream)
    with open_verified(kept) as v:
        return b"".join(v.chunks())


def store_files(base: Path) -> set[str]:
    return {p.name for p in Path(kept_dir(str(base))).iterdir() if p.name.endswith(".gz")}


def on_disk(base: Path) -> bytes:
    """Everything the store holds, decompressed where it can be (to look for secrets)."""
    out = b""
    for p in Path(kept_dir(str(base))).iterdir():
        data = p.read_bytes()
        out += gzip.decompress(data) if p.name.endswith(".gz") else data
    return out


def py(code: str) -> list[str]:
    return [PY, "-c", textwrap.dedent(code)]


# ------------------------------------------------------------------ the redactor's edit offsets
EDIT_CASES = [
    ("password", b"x" * 5000 + b" password=" + SECRET.encode() + b" " + b"y" * 9000, 1000),
    ("aws-key", b"a" * 10000 + b" AKIAIOSFODNN7EXAMPLE tail", 333),
    ("several", (b"token: ghp_" + b"A1" * 20 + b"\n") * 50, 4096),
    ("binary", b"\xff\xfe" * 3000 + b"Bearer abcdefghijklmnop\n" + b"\x80" * 100, 777),
    (
        "key-block",
        b"head\n-----BEGIN RSA PRIVATE KEY-----\n" + b"QUJD" * 400_000 + b"\n"
        b"-----END RSA PRIVATE KEY-----\nafter",
        65536,
    ),
]


@pytest.mark.parametrize(
    ("data", "chunk"), [c[1:] for c in EDIT_CASES], ids=[c[0] for c in EDIT_CASES]
)
def test_edits_map_raw_offsets_to_the_redacted_bytes(data: bytes, chunk: int) -> None:
    edits: list[tuple[int, int, int, int]] = []
    sr = StreamRedactor(Redactor(), on_edit=edits.append)
    out = b"".join(sr.feed(data[i : i + chunk]) for i in range(0, len(data), chunk)) + sr.finish()
    assert out == Redactor().redact_bytes(data)[0]
    assert edits, "the case has a secret"
    raw_at = out_at = 0
    for rs, re_, os_, oe in edits:
        assert data[raw_at:rs] == out[out_at:os_]  # untouched between replacements
        assert out[os_:oe] == REPLACEMENT.encode()
        raw_at, out_at = re_, oe
    assert data[raw_at:] == out[out_at:]


# ------------------------------------------------------------------ sizes
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("1000", 1000),
        ("256M", 256 << 20),
        ("1G", 1 << 30),
        ("512k", 512 << 10),
        ("2MiB", 2 << 20),
        ("3KB", 3 << 10),
    ],
    ids=["zero", "plain", "256M", "1G", "lower-k", "MiB", "KB"],
)
def test_budget_sizes(text: str, value: int) -> None:
    assert parse_size(text) == value == _budget(text)


@pytest.mark.parametrize(
    "text", ["", "M", "-1", "1.5G", "ten"], ids=["empty", "unit", "neg", "dot", "word"]
)
def test_bad_budget_sizes(text: str) -> None:
    with pytest.raises(ValueError, match="not a size in bytes"):
        parse_size(text)


# ------------------------------------------------------------------ keeping and redaction
def test_a_run_keeps_both_streams_whole_in_a_private_folder(tmp_path: Path) -> None:
    base = tmp_path / "B"
    out = b"".join(b"line %d\n" % i for i in range(3000))
    r = run_with_feedback(
        py(f"import sys; sys.stdout.write({out.decode()!r}); sys.stderr.write('oops')"),
        log=base,
        cap=100,
    )
    rec = r.record
    assert kept_bytes(base, rec, "stdout") == out
    assert kept_bytes(base, rec, "stderr") == b"oops"
    assert (
        rec["stdout_kept"]["sha256"] == hashlib.sha256(out).hexdigest() == rec["stdout_full_sha256"]
    )
    assert (rec["stdout_kept"]["unseen_start"], rec["stdout_kept"]["unseen_end"]) == (100, len(out))
    folder = Path(kept_dir(str(base)))
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert {stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()} == {0o600}
    assert normalize(rec).stdout.kept is not None and normalize(rec).stdout.kept.bytes == len(out)
    assert r.kept_problems == ()


REDACTION_CASES = [
    # (id, child code, stream, clip, secret bytes that must not be on disk)
    ("split-by-head-cap", f"print('a' * 95 + 'password={SECRET}' + 'b' * 200)", "stdout", "head"),
    ("split-by-tail-cap", f"print('a' * 200 + 'password={SECRET}' + 'b' * 90)", "stdout", "tail"),
    (
        "stderr",
        f"import sys; sys.stderr.write('x' * 500 + ' api_key={SECRET} ' + 'y' * 500)",
        "stderr",
        "head_tail",
    ),
    (
        "binary",
        f"import sys; sys.stdout.buffer.write(b'\\xff\\x00' * 300 + b'password={SECRET}\\n' + b'\\xfe' * 300)",
        "stdout",
        "head",
    ),
    (
        "across-writes",
        "import sys\n"
        "for part in ('x' * 300000 + 'password=hun', 'ter2hunter2 ', 'z' * 300000):\n"
        "    sys.stdout.write(part); sys.stdout.flush()",
        "stdout",
        "head",
    ),
]


@pytest.mark.parametrize(
    ("code", "stream", "clip"),
    [c[1:] for c in REDACTION_CASES],
    ids=[c[0] for c in REDACTION_CASES],
)
def test_secrets_never_reach_the_store(tmp_path: Path, code: str, stream: str, clip: str) -> None:
    base = tmp_path / "B"
    rec = run_with_feedback(py(code), log=base, cap=100, clip=clip).record
    kept = kept_bytes(base, rec, stream)
    assert REPLACEMENT.encode() in kept
    assert b"hunter2" not in on_disk(base) and b"ter2hunter2" not in on_disk(base)
    assert b"ter2" not in kept.split(REPLACEMENT.encode())[1][:4]
    assert rec[f"{stream}_kept"]["sha256"] == hashlib.sha256(kept).hexdigest()
    assert rec[f"{stream}_kept"]["sha256"] != rec[f"{stream}_full_sha256"]  # raw hash kept apart


def test_no_keep_and_no_log_keep_nothing(tmp_path: Path) -> None:
    base = tmp_path / "B"
    rec = run_with_feedback(py("print('hi')"), log=base, keep_budget=None).record
    assert "stdout_kept" not in rec and not os.path.exists(kept_dir(str(base)))
    with pytest.raises(NotKept, match="--no-keep"):
        find_kept(str(base), rec, "stdout")
    assert "stdout_kept" not in run_with_feedback(py("print('hi')"), log=None).record


# ------------------------------------------------------------------ budget
def test_the_budget_evicts_the_oldest_first(tmp_path: Path) -> None:
    base = tmp_path / "B"
    recs = []
    for n in range(6):
        code = f"import os, sys; sys.stdout.buffer.write(os.urandom(3000) + b'{n}')"
        recs.append(run_with_feedback(py(code), log=base, cap=10, keep_budget=10_000).record)
    sizes = sum(p.stat().st_size for p in Path(kept_dir(str(base))).glob("*.gz"))
    assert sizes <= 10_000
    names = store_files(base)
    kept_flags = [r["stdout_kept"]["sha256"] + ".gz" in names for r in recs]
    assert kept_flags == [False, False, False, True, True, True]  # ~3 KB each: the newest 3
    with pytest.raises(NotKept, match="evicted"):
        find_kept(str(base), recs[0], "stdout").opener()  # type: ignore[misc]


def test_a_stream_over_the_budget_is_not_kept_and_says_why(tmp_path: Path) -> None:
    base = tmp_path / "B"
    code = "import os, sys; sys.stdout.buffer.write(os.urandom(50_000))"
    r = run_with_feedback(py(code), log=base, cap=10, keep_budget=20_000)
    assert r.record["stdout_kept"] is None
    assert r.kept_problems == ("stdout not kept: over the keep budget of 20000 bytes",)
    assert store_files(base) == set() and not any(Path(kept_dir(str(base))).glob("tmp.*"))


# ------------------------------------------------------------------ rotation
def test_rotation_forgets_the_kept_output_of_dropped_spans(tmp_path: Path) -> None:
    base = tmp_path / "B"
    recs = [
        run_with_feedback(
            py(f"print('output {n}' * 50)"), log=base, cap=10, max_bytes=3000, keep=1
        ).record
        for n in range(8)
    ]
    surviving = [r for m in ("B.1", "B") if (tmp_path / m).exists() for r in records(tmp_path / m)]
    assert len(surviving) < len(recs)
    wanted = {
        r[f"{s}_kept"]["sha256"] + ".gz"
        for r in surviving
        for s in ("stdout", "stderr")
        if r[f"{s}_kept"]["bytes"]
    }
    assert store_files(base) == wanted


def test_rotation_keeps_a_file_a_surviving_span_shares(tmp_path: Path) -> None:
    base = tmp_path / "B"
    same = py("print('same output ' * 40)")
    first = run_with_feedback(same, log=base, cap=10, max_bytes=2000, keep=0).record
    for _ in range(3):
        last = run_with_feedback(same, log=base, cap=10, max_bytes=2000, keep=0).record
    assert first["stdout_kept"]["sha256"] == last["stdout_kept"]["sha256"]
    assert kept_bytes(base, last, "stdout") == b"same output " * 40 + b"\n"


WRITER = """
import sys
from tracetui.record.recorder import run_with_feedback
base, tag, n, budget, max_bytes = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
for i in range(n):
    code = f"import os, sys; sys.stdout.buffer.write(b'{tag}{i}' + os.urandom(2000))"
    run_with_feedback([sys.executable, "-c", code], log=base, cap=10, keep_budget=budget,
                      max_bytes=max_bytes, keep=2)
"""


@pytest.mark.parametrize(
    ("budget", "max_bytes"),
    [(1 << 30, 6000), (12_000, 1 << 30)],
    ids=["rotation", "budget"],
)
def test_two_writers_at_once(tmp_path: Path, budget: int, max_bytes: int) -> None:
    base = tmp_path / "B"
    procs = [
        subprocess.Popen([PY, "-c", WRITER, str(base), tag, "12", str(budget), str(max_bytes)])
        for tag in ("a", "b")
    ]
    assert [p.wait(120) for p in procs] == [0, 0]
    members = sorted(tmp_path.glob("B*"))
    surviving = [r for m in members if m.is_file() and m.name != "B.lock" for r in records(m)]
    referenced = {r["stdout_kept"]["sha256"] + ".gz" for r in surviving}
    folder = Path(kept_dir(str(base)))
    assert not list(folder.glob("tmp.*"))
    if max_bytes < budget:  # rotation only: exactly the survivors' files, none lost, none left
        assert store_files(base) == referenced
        for r in surviving:
            assert len(kept_bytes(base, r, "stdout")) == r["stdout_bytes"]
    else:  # budget only: all 24 spans written, the store under the budget, the newest kept
        assert len(surviving) == 24
        assert store_files(base) <= referenced
        assert sum(p.stat().st_size for p in folder.glob("*.gz")) <= budget
        assert 0 < len(store_files(base)) < 24


# ------------------------------------------------------------------ refusals and checks
def test_a_link_planted_as_the_store_is_refused_and_the_run_recorded(tmp_path: Path) -> None:
    base = tmp_path / "B"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, kept_dir(str(base)))
    r = run_with_feedback(py("print('x' * 100)"), log=base, cap=10)
    assert r.record["stdout_kept"] is None and r.record["stderr_kept"] is None
    assert r.kept_problems == (
        f"output not kept: {base}.kept: refused, it is a symbolic link (tracetui never follows a "
        "link beside a trace)",
    )
    assert (
        list(elsewhere.iterdir()) == [] and records(base)[0]["command_id"] == r.record["command_id"]
    )


def test_a_link_planted_inside_the_store_is_refused(tmp_path: Path) -> None:
    base = tmp_path / "B"
    out = b"y" * 100 + b"\n"
    folder = Path(kept_dir(str(base)))
    folder.mkdir(mode=0o700)
    target = tmp_path / "target"
    target.write_bytes(b"untouched")
    os.symlink(target, folder / (hashlib.sha256(out).hexdigest() + ".gz"))
    r = run_with_feedback(py("print('y' * 100)"), log=base, cap=10)
    assert r.record["stdout_kept"] is None
    assert r.kept_problems == (
        f"stdout not kept: {folder}/{hashlib.sha256(out).hexdigest()}.gz: refused, it is a "
        "symbolic link (tracetui never follows a link beside a trace)",
    )
    assert target.read_bytes() == b"untouched"


def test_a_store_of_someone_else_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "B.kept"
    folder.write_text("a file, not a folder")
    with pytest.raises(OSError, match="refused, it is not a directory"):
        KeptStore.open(str(tmp_path / "B"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda data: gzip.compress(gzip.decompress(data).replace(b"x", b"X", 1)),
            "does not match the hash",
        ),
        (lambda data: gzip.compress(gzip.decompress(data) + b"more"), "does not match the hash"),
        (lambda data: data[: len(data) // 2], "is damaged"),
        (lambda data: b"not gzip at all", "is damaged"),
    ],
    ids=["one-byte", "longer", "cut", "garbage"],
)
def test_a_changed_kept_file_is_reported_not_shown(tmp_path: Path, change, message: str) -> None:
    base = tmp_path / "B"
    rec = run_with_feedback(py("print('x' * 5000)"), log=base, cap=10).record
    path = Path(kept_dir(str(base))) / (rec["stdout_kept"]["sha256"] + ".gz")
    path.write_bytes(change(path.read_bytes()))
    with (
        pytest.raises(KeptMismatch, match=message),
        open_verified(find_kept(str(base), rec, "stdout")),
    ):
        pytest.fail("a changed file must not be handed out")


@pytest.mark.parametrize("every_row", [False, True], ids=["marks", "every-row"])
def test_lint_takes_the_kept_fields_in_its_stride(tmp_path: Path, every_row: bool) -> None:
    from tracetui.analysis.lint import lint_index
    from tracetui.store.build import build_index
    from tracetui.store.runset import open_path

    base = tmp_path / "B"
    run_with_feedback(py("print('x' * 100)"), log=base, cap=10, note="expect x")  # kept
    run_with_feedback(py("print('y')"), log=base, keep_budget=None)  # no kept fields
    elsewhere = tmp_path / "other"
    elsewhere.mkdir()
    os.symlink(elsewhere, tmp_path / "C.kept")
    run_with_feedback(py("print('z' * 100)"), log=tmp_path / "C", cap=10)  # kept: null
    for log in (base, tmp_path / "C"):
        assert lint_index(build_index(open_path(str(log))[0]), every_row=every_row) == []


@pytest.mark.parametrize(
    "secret",
    [f"password={SECRET}", "Bearer abcdefghijklmnopqrstuvwxyz012345", "AKIAIOSFODNN7EXAMPLE"],
    ids=["password", "bearer", "aws-key"],
)
def test_a_secret_split_between_chunks_is_redacted_at_every_split(
    tmp_path: Path, secret: str
) -> None:
    data = b"x" * 9000 + b" " + secret.encode() + b" " + b"y" * 9000
    at = 9001
    with KeptStore.open(str(tmp_path / "B")) as store:
        for cut in range(at, at + len(secret) + 1):
            writer = store.writer(Redactor(), 100, 0)
            writer.feed(data[:cut])
            writer.feed(data[cut:])
            pending = writer.finish()
            assert pending is not None and store.commit(pending) is None
    stored = on_disk(tmp_path / "B")
    assert secret.encode()[-6:] not in stored and REPLACEMENT.encode() in stored
    assert len(store_files(tmp_path / "B")) == 1  # every split gave the same bytes
