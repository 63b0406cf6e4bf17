"""What a JSON file that is no trace looks like (importers.unknown.not_a_trace), and the files it
must leave alone: tracetui's own runs (bad lines and all), text, half-written first lines."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tracetui.importers import IMPORTERS, not_a_trace, sniff
from tracetui.importers.unknown import NAME_CHARS
from tracetui.store import runset

NAMES = ", ".join(imp.name for imp in IMPORTERS)
READS = f"tracetui reads {NAMES} and its own JSON Lines runs"
SPAN = {"schema": "tracetui/1", "span_type": "tool", "argv": ["ls"], "exit_code": 0}


def lines(*objs: object) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objs)


def plain(what: str) -> str:
    return f"{what}: no trace tracetui knows ({READS})"


def looks(what: str) -> str:
    return f"{what}; {READS}"


# (case, file bytes, the line; None = left alone, read as before)
CASES: list[tuple[str, bytes, str | None]] = [
    (
        "array-of-objects",
        json.dumps([{"sku": f"s{i}", "qty": i} for i in range(400)]).encode(),
        plain("a JSON array of 400 objects with keys sku, qty"),
    ),
    (
        "pretty-object",
        json.dumps({"a": 1, "b": [2], "c": {}}, indent=2).encode(),
        plain("a JSON object with keys a, b, c"),
    ),
    (
        "json-lines",
        lines(*({"ts": i, "level": "info", "msg": "m"} for i in range(12))),
        plain("JSON Lines of 12 objects with keys ts, level, msg"),
    ),
    ("numbers", b"[1, 2, 3]", plain("a JSON array of 3 numbers")),
    (
        "mixed-array",
        b'[1, "a", {"k": 1}, 2]',
        plain("a JSON array of 4 values (2 numbers, 1 string, 1 object)"),
    ),
    ("empty-array", b"[]\n", plain("an empty JSON array")),
    ("empty-object", b"{}", plain("an empty JSON object")),
    (
        "many-keys",
        json.dumps({f"k{i}": i for i in range(9)}).encode(),
        plain("a JSON object with keys k0, k1, k2, k3, k4, k5 and 3 more"),
    ),
    (
        "openhands-unknown-kinds",
        lines(*({"kind": "FancyEvent", "source": "agent", "id": str(i)} for i in range(3))),
        looks(
            "looks like an OpenHands trace (has 'kind') but no events tracetui knows (kinds: FancyEvent)"
        ),
    ),
    (
        "claude-unknown-types",
        lines(*({"type": "weird", "sessionId": "s", "n": i} for i in range(2))),
        looks(
            "looks like a Claude Code session (has 'sessionId') but no line of a type tracetui "
            "reads (user, assistant, summary, system)"
        ),
    ),
    (
        "swe-agent-steps-without-actions",
        json.dumps({"trajectory": [{"foo": 1}]}).encode(),
        looks(
            "looks like a SWE-agent trajectory (has 'trajectory') but no trajectory[] steps "
            "with an action or observation"
        ),
    ),
    (
        "inspect-without-samples",
        json.dumps({"eval": {"task": "t"}, "samples": 3}).encode(),
        looks("looks like an Inspect AI log (has 'eval') but no samples[] tracetui reads"),
    ),
    (
        "a-kubernetes-kind-is-no-openhands-clue",
        json.dumps({"apiVersion": "v1", "kind": "Deployment"}).encode(),
        plain("a JSON object with keys apiVersion, kind"),
    ),
    (
        "gzip",
        gzip.compress(json.dumps([{"a": 1}]).encode()),
        plain("a JSON array of 1 object with keys a"),
    ),
    # Left alone: read as before.
    ("ours-with-a-bad-line-first", lines({"x": 1}, SPAN), None),
    ("ours", lines(SPAN, SPAN), None),
    ("ours-one-record-no-newline", json.dumps(SPAN).encode(), None),
    ("argv-record-is-ours-even-if-bad", lines({"argv": ["ls"]}, {"argv": 1}), None),
    ("half-written-first-line", b'{"schema": "tracetui/1", "span_t', None),
    ("text", b"hello\nworld\n", None),
    ("empty", b"", None),
    ("broken-document", b'[{"a": 1},\n{"b": ', None),
    ("lines-with-a-non-json-line", b'{"a": 1}\nnot json\n{"a": 2}\n', None),
]


@pytest.mark.parametrize(("data", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_not_a_trace(tmp_path: Path, data: bytes, want: str | None) -> None:
    path = tmp_path / "file.json"
    path.write_bytes(data)
    assert not_a_trace(str(path)) == want


def test_a_huge_first_record_of_ours_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "B.jsonl"
    with open(path, "wb") as fh:
        fh.write(b'{"schema": "tracetui/1", "preview_stdout": "')
        fh.write(b"x" * (17 << 20))
        fh.write(b'"}\n')
    assert not_a_trace(str(path)) is None


def test_a_huge_foreign_array_is_described_from_its_head(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    with open(path, "wb") as fh:
        fh.write(b"[")
        item = b'{"sku": "abc", "qty": 1},'
        fh.write(item * ((17 << 20) // len(item)))
        fh.write(b'{"sku": "z", "qty": 0}]')
    assert not_a_trace(str(path)) == plain(
        "a JSON array of more than 16 MiB of objects with keys sku, qty"
    )


def test_strings_from_the_file_are_neutralised_and_bounded(tmp_path: Path) -> None:
    path = tmp_path / "file.json"
    key = "\x1b[31mred\x1b[0m\n" + "k" * 200
    path.write_text(json.dumps({key: 1}), encoding="utf-8")
    line = not_a_trace(str(path))
    assert line is not None
    assert "\x1b" not in line and "\n" not in line
    shown = line.split("with keys ", 1)[1].split(": no trace", 1)[0]
    assert len(shown) == NAME_CHARS and shown.endswith("…")


def test_open_path_refuses_it_with_that_line(tmp_path: Path) -> None:
    path = tmp_path / "inventory.json"
    path.write_text(json.dumps([{"sku": "a"}]), encoding="utf-8")
    with pytest.raises(runset.RunSetError) as caught:
        runset.open_path(str(path))
    assert str(caught.value) == f"{path}: " + plain("a JSON array of 1 object with keys sku")


def test_a_folder_still_passes_over_such_files(tmp_path: Path) -> None:
    (tmp_path / "inventory.json").write_text("[1]", encoding="utf-8")
    (tmp_path / "B.jsonl").write_bytes(lines(SPAN))
    assert [r.base for r in runset.open_path(str(tmp_path))] == [str(tmp_path / "B.jsonl")]


REFUSED = [(c[0], c[1]) for c in CASES if c[2] is not None]


@pytest.mark.parametrize("data", [r[1] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_no_refused_case_is_one_a_format_recognises(tmp_path: Path, data: bytes) -> None:
    """Each case refused above is one no importer recognises (else it would be read)."""
    path = tmp_path / "file.json"
    path.write_bytes(data)
    assert sniff(str(path)) is None
